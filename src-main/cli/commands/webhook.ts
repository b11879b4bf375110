// `webhook set`: registers the URL inbound messages are delivered to (the app's registerAgentWebhook,
// as the app and `listen` do). The signing secret is stored in the keychain for a --team
// target, printed only with --show-secret, or written to --secret-file (mode 0600).
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { registerAgentWebhook } from '../../app/usecases/webhooks';
import { teamsOf } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure } from '../errors';
import { EXIT } from '../exit-codes';
import { httpUrlSchema } from '../../core/url';
import { parseFlags } from '../flags';
import { addTargetOptions } from '../target';

const flagsSchema = z.looseObject({
  url: httpUrlSchema,
  secretFile: z.string().min(1, 'expected a file path').optional(),
  showSecret: z.boolean().optional(),
});

export function register(program: Command, ctx: CliContext): void {
  const webhook = program.command('webhook').description('the webhook inbound messages are delivered to');
  const cmd = addTargetOptions(webhook.command('set').description('register the webhook URL (mode passthrough)'));
  cmd
    .requiredOption('--url <url>', 'URL of the receiving app')
    .option('--secret-file <path>', 'save the returned signing secret to this file (mode 0600)')
    .option('--show-secret', 'print the signing secret (it is otherwise shown only as a hint)')
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const keepInKeychain = teamsOf(ctx).signingSecretKeeper(target);
    let secret = '';
    const { registration: cfg, secretHint } = await registerAgentWebhook({
      client: ctx.client(target),
      agentId: target.agentId,
      url: f.url,
      signal: ctx.signal,
      keepSecret: async (s) => {
        secret = s;
        await keepInKeychain?.(target.agentId, s);
        if (f.secretFile) {
          const path = resolve(ctx.io.cwd, f.secretFile);
          try {
            await writeFile(path, `${s}\n`, { mode: 0o600 });
          } catch (e) {
            throw new CliFailure(`the webhook is set, but the secret could not be saved to ${f.secretFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, EXIT.failure, 'SECRET_FILE');
          }
          out.note(`signing secret saved to ${path}`);
        }
      },
    });
    const secretShown = f.showSecret ? secret : undefined;
    const data: Record<string, unknown> = { mode: cfg.mode, url: cfg.url, secretHint };
    if (secretShown !== undefined) data.secret = secretShown;
    if (cfg.events) data.events = cfg.events;
    if (cfg.updatedAt) data.updatedAt = cfg.updatedAt;
    out.result(data, () =>
      [
        `webhook ${cfg.mode}: ${cfg.url}`,
        secretShown !== undefined ? `signing secret: ${secretShown}` : `signing secret ${secretHint} (use --secret-file PATH to save it, or --show-secret)`,
      ].join('\n'),
    );
  });
}
