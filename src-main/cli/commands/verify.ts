// `verify`: checks one saved delivery (headers + raw body) exactly as the tunnel does (its verdict,
// legacy-only refused unless --allow-legacy-signature, a note on an odd but authentic body).
// Exit 0 when valid, 1 when not (with the reason).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { verdictWords } from '../../../src-shared/words';
import { DEFAULT_TOLERANCE_SEC, verifyTunnelDelivery, type HeaderBag } from '../../app/verify';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { envVarName, intString, parseFlags } from '../flags';
import { SECRET_FLAG_HELP, explicitSecret } from '../tunnel-support';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const flagsSchema = z
  .object({
    secret: z.string().min(1, 'the secret is empty').optional(),
    secretEnv: envVarName.optional(),
    header: z.array(z.string()).optional(),
    bodyFile: z.string().min(1, 'expected a file path'),
    tolerance: intString(0, 86_400).optional(),
    now: intString(0, 99_999_999_999).optional(),
    allowLegacySignature: z.boolean().optional(),
    json: z.boolean().optional(),
  })
  .refine((f) => !(f.secret !== undefined && f.secretEnv !== undefined), {
    message: 'give either --secret or --secret-env, not both',
    path: ['secret'],
  })
  .refine((f) => f.secret !== undefined || f.secretEnv !== undefined, {
    message: 'the signing secret is required: --secret-env NAME (preferred) or --secret S',
    path: ['secretEnv'],
  });

/** `Name: value` lines into a header bag; repeated names are kept as a list. */
function parseHeaderArgs(lines: readonly string[]): HeaderBag {
  const bag: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name))
      throw new UsageError(
        `--header: expected 'Name: value', got ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)}`,
      );
    const key = name.toLowerCase();
    (bag[key] ??= []).push(line.slice(colon + 1).trim());
  }
  const out: HeaderBag = {};
  for (const [k, v] of Object.entries(bag)) out[k] = v.length === 1 ? v[0] : v;
  return out;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('verify')
    .description('verify a saved webhook delivery (headers + raw body) like the tunnel does')
    .requiredOption('--body-file <path>', 'file holding the raw request body, byte for byte')
    .option('--header <line>', "a delivery header, 'Name: value' (repeatable)", collect)
    .option('--secret-env <name>', 'environment variable holding the signing secret (preferred)')
    .option('--secret <secret>', SECRET_FLAG_HELP)
    .option(
      '--allow-legacy-signature',
      'accept a delivery signed only with x-service-signature, as `listen --allow-legacy-signature` does',
    )
    .option('--tolerance <seconds>', `timestamp tolerance in seconds (default ${DEFAULT_TOLERANCE_SEC})`)
    .option('--now <unix>', 'verify as if the time were this unix timestamp (seconds)')
    .option('--json', 'one JSON object per line on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const headers = parseHeaderArgs(f.header ?? []);
    const secret = explicitSecret(ctx, out, f)!;
    let rawBody: Buffer;
    try {
      rawBody = await readFile(resolve(ctx.io.cwd, f.bodyFile));
    } catch (e) {
      throw new CliFailure(
        `cannot read --body-file ${f.bodyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        EXIT.failure,
        'BODY_FILE',
      );
    }
    const now = f.now ?? Math.floor(ctx.clock.now() / 1000);
    const { verdict } = verifyTunnelDelivery({
      headers,
      rawBody,
      secrets: [secret],
      now,
      toleranceSec: f.tolerance ?? DEFAULT_TOLERANCE_SEC,
      allowLegacy: f.allowLegacySignature === true,
    });
    const data: Record<string, unknown> = {
      ok: verdict.ok,
      reason: verdict.reason,
      scheme: verdict.scheme,
      steps: verdict.steps,
    };
    if (verdict.timestamp !== undefined) data.timestamp = verdict.timestamp;
    if (verdict.note !== undefined) data.note = verdict.note;
    out.result(data, () =>
      [`${verdictWords(verdict.reason)} (${verdict.reason})`, ...verdict.steps.map((s) => `  - ${s}`)].join('\n'),
    );
    if (!verdict.ok && !out.json) ctx.io.stderr.write(`error: delivery refused: ${verdict.reason}\n`);
    return verdict.ok ? EXIT.ok : EXIT.failure;
  });
}
