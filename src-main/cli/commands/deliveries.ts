// `deliveries list|show|refused|replay|export`: the tunnel's durable log and its refused requests
// (default <config dir>/data/tunnel). They read the data folder read-only, so they are safe while
// `listen` (or the app) writes it: nothing is cut, repaired or compacted. Replays go to --forward-to
// only; nothing queued is forwarded by these commands; a replay is recorded in the log unless
// another process is writing it.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { DeliveryDetail, EventLog, RefusedStore } from '../../core/tunnel';
import { REFUSED_REASONS, TUNNEL_REASONS } from '../../core/tunnel/types';
import { teamsOf } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { httpUrlSchema } from '../../core/url';
import { agentId, intString, parseFlags } from '../flags';
import {
  DATA_DIR_HELP,
  SECRET_FLAG_HELP,
  attemptData,
  attemptLine,
  explicitSecret,
  listItemData,
  listItemLine,
  oneSecretSource,
  refusedData,
  refusedLine,
  secretFlags,
  secretSource,
  tunnelDataDir,
  verdictWord,
} from '../tunnel-support';
import { addConfigDirOption } from './team';

const dirFlags = { dataDir: secretFlags.dataDir, configDir: secretFlags.configDir, json: z.boolean().optional() };
const deliveryId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'expected a delivery id (see `deliveries list`)');

const listSchema = z.object({
  ...dirFlags,
  agent: agentId.optional(),
  verdict: z
    .enum(['ok', 'rejected', ...TUNNEL_REASONS], {
      error: 'expected ok, rejected or a reason like verified, signature-mismatch',
    })
    .optional(),
  from: z
    .string()
    .regex(/^\+?\d{6,15}$/, 'expected a phone number')
    .transform((s) => s.replace(/^\+/, ''))
    .optional(),
  type: z
    .string()
    .regex(/^[a-z_-]{1,40}$/, 'expected a message type like text, image, document')
    .optional(),
  limit: intString(1, 1000).optional(),
});
const showSchema = z.object({ ...dirFlags });
const refusedSchema = z.object({
  ...dirFlags,
  agent: agentId.optional(),
  reason: z.enum(REFUSED_REASONS, { error: `expected one of ${REFUSED_REASONS.join(', ')}` }).optional(),
  text: z.string().min(1, 'expected some text').max(200).optional(),
  limit: intString(1, 1000).optional(),
});
const replaySchema = z
  .object({
    ...secretFlags,
    json: z.boolean().optional(),
    mode: z.enum(['as-received', 're-signed'], { error: 'expected as-received or re-signed' }),
    bodyFile: z.string().min(1, 'expected a file path').optional(),
    forwardTo: httpUrlSchema,
  })
  .refine(...oneSecretSource)
  .refine((f) => f.bodyFile === undefined || f.mode === 're-signed', {
    message: 'an edited body is only sent re-signed: add --mode re-signed',
    path: ['bodyFile'],
  });
const exportSchema = z.object({
  ...dirFlags,
  format: z.enum(['curl', 'fixture'], { error: 'expected curl or fixture' }),
  url: httpUrlSchema.optional(),
});

async function exists(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** Opens the log read-only (a writer may be running); null when there is no log yet. */
async function withLog<T>(
  ctx: CliContext,
  f: { dataDir?: string | undefined; configDir?: string | undefined },
  fn: (log: EventLog | null) => Promise<T> | T,
): Promise<T> {
  const dataDir = tunnelDataDir(ctx, f);
  if (!(await exists(resolve(dataDir, 'deliveries')))) return fn(null);
  const { EventLog } = await import('../../core/tunnel');
  const log = new EventLog({ dataDir, clock: ctx.clock, readOnly: true });
  await log.open();
  try {
    return await fn(log);
  } finally {
    await log.close();
  }
}

/** The refused requests, read-only. */
async function refusedStore(
  ctx: CliContext,
  f: { dataDir?: string | undefined; configDir?: string | undefined },
): Promise<RefusedStore> {
  const { RefusedStore } = await import('../../core/tunnel');
  const store = new RefusedStore({ dataDir: tunnelDataDir(ctx, f), readOnly: true });
  await store.open();
  return store;
}

function mustGet(log: EventLog | null, id: string): DeliveryDetail {
  const d = log?.get(id);
  if (!d)
    throw new CliFailure(
      `no delivery ${id} in the log (see \`channel-companion deliveries list\`)`,
      EXIT.failure,
      'NOT_FOUND',
    );
  return d;
}

function idArg(cmd: Command): string {
  return parseFlags(z.object({ id: deliveryId }), { id: cmd.args[0] }).id;
}

export function register(program: Command, ctx: CliContext): void {
  const deliveries = program
    .command('deliveries')
    .description("the tunnel's log of received and simulated webhook deliveries");
  const withDir = (c: Command) => addConfigDirOption(c.option('--data-dir <dir>', DATA_DIR_HELP));

  const list = withDir(
    deliveries
      .command('list')
      .description('list deliveries, newest first')
      .option('--agent <id>', 'only this agent')
      .option(
        '--verdict <v>',
        'ok, rejected, or a reason (verified, signature-mismatch, stale-timestamp, duplicate, …)',
      )
      .option('--from <number>', 'only from this sender')
      .option('--type <type>', 'only this message type (text, image, document, …)')
      .option('--limit <n>', 'at most this many (default 50)'),
  ).option('--json', 'one JSON object per delivery');
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(listSchema, opts);
    const items = await withLog(ctx, f, (log) => {
      if (!log) return [];
      const q: Parameters<EventLog['list']>[0] = { limit: f.limit ?? 50 };
      if (f.agent !== undefined) q.agentId = f.agent;
      if (f.verdict !== undefined) q.verdict = f.verdict;
      if (f.from !== undefined) q.from = f.from;
      if (f.type !== undefined) q.type = f.type;
      return log.list(q);
    });
    if (items.length === 0) out.note('no deliveries');
    for (const i of items) out.result(listItemData(i), listItemLine(i));
  });

  const show = withDir(
    deliveries
      .command('show')
      .description('one delivery: headers, body, verdict and forward attempts')
      .argument('<id>', 'delivery id'),
  ).option('--json', 'the delivery as one JSON object');
  defineAction(ctx, show, async (opts, out, cmd) => {
    const f = parseFlags(showSchema, opts);
    const id = idArg(cmd);
    const d = await withLog(ctx, f, (log) => mustGet(log, id));
    const body = Buffer.from(d.bodyBase64, 'base64').toString('utf8');
    const data = {
      id: d.id,
      agentId: d.agentId,
      receivedAt: new Date(d.receivedAt).toISOString(),
      method: d.method,
      path: d.path,
      headers: d.headers,
      body,
      bodyBase64: d.bodyBase64,
      verdict: d.verdict,
      summary: d.summary,
      simulated: d.simulated === true,
      forwardState: d.forwardState,
      attempts: d.attempts.map(attemptData),
    };
    out.result(data, () =>
      [
        `${d.id}  ${d.agentId}  ${data.receivedAt}${d.simulated ? '  (simulated)' : ''}`,
        `verdict: ${verdictWord(d.verdict)} (${d.verdict.scheme})`,
        ...d.verdict.steps.map((s) => `  - ${s}`),
        `${d.method} ${d.path}`,
        ...Object.entries(d.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`),
        '',
        body,
        '',
        `forward: ${d.forwardState}`,
        ...d.attempts.map(attemptLine),
      ].join('\n'),
    );
  });

  const refused = withDir(
    deliveries
      .command('refused')
      .description(
        'requests the receiver refused, and requests to paths that are not hooks (metadata only), newest first',
      )
      .option('--agent <id>', 'only this agent')
      .option('--reason <reason>', `only this reason (${REFUSED_REASONS.join(', ')})`)
      .option('--text <text>', 'only those whose path, source, reason, detail, first bytes or a header contain this')
      .option('--limit <n>', 'at most this many (default 50)'),
  ).option('--json', 'one JSON object per refused request');
  defineAction(ctx, refused, async (opts, out) => {
    const f = parseFlags(refusedSchema, opts);
    const store = await refusedStore(ctx, f);
    const q: Parameters<RefusedStore['list']>[0] = { limit: f.limit ?? 50 };
    if (f.agent !== undefined) q.agentId = f.agent;
    if (f.reason !== undefined) q.reason = f.reason;
    if (f.text !== undefined) q.text = f.text;
    const items = store.list(q);
    store.close();
    if (items.length === 0) out.note('no refused requests');
    for (const r of items) out.result(refusedData(r), refusedLine(r));
  });

  const replay = addConfigDirOption(
    deliveries
      .command('replay')
      .description('send a stored delivery to your local app again')
      .argument('<id>', 'delivery id')
      .option(
        '--mode <mode>',
        'as-received (original bytes and signature) or re-signed (fresh timestamp and signature)',
        'as-received',
      )
      .option('--body-file <path>', 're-signed only: send this body instead')
      .requiredOption('--forward-to <url>', 'your local app')
      .option('--secret-env <name>', 're-signed: environment variable holding the signing secret')
      .option('--secret <secret>', `re-signed: ${SECRET_FLAG_HELP}`)
      .option('--team <team>', "re-signed: sign with the agent's secret from the keychain")
      .option('--data-dir <dir>', DATA_DIR_HELP),
  ).option('--json', 'the attempt as one JSON object');
  defineAction(ctx, replay, async (opts, out, cmd) => {
    const f = parseFlags(replaySchema, opts);
    const id = idArg(cmd);
    const explicit = f.mode === 're-signed' ? explicitSecret(ctx, out, f) : undefined;
    let teamId: string | undefined;
    if (f.mode === 're-signed' && f.team !== undefined) teamId = (await teamsOf(ctx).team(f.team, f.configDir)).team.id;
    if (f.mode === 're-signed' && explicit === undefined && teamId === undefined)
      throw new UsageError('re-signing needs the secret: --secret-env NAME (preferred), --secret S, or --team T');
    let body: Buffer | undefined;
    if (f.bodyFile !== undefined) {
      try {
        body = await readFile(resolve(ctx.io.cwd, f.bodyFile));
      } catch (e) {
        throw new CliFailure(
          `cannot read --body-file ${f.bodyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
          EXIT.failure,
          'BODY_FILE',
        );
      }
    }
    const dataDir = tunnelDataDir(ctx, f);
    if (!(await exists(resolve(dataDir, 'deliveries'))))
      throw new CliFailure(
        `no delivery ${id} in the log (see \`channel-companion deliveries list\`)`,
        EXIT.failure,
        'NOT_FOUND',
      );
    const { Tunnel, ReplayError, TunnelError } = await import('../../core/tunnel');
    const secrets = secretSource(ctx, { explicit, teamId, configDir: f.configDir });
    // No forward target: opening the tunnel resumes nothing towards the app; only the replay is sent.
    let tunnel = new Tunnel({ dataDir, getSecrets: secrets.getSecrets, clock: ctx.clock });
    try {
      await tunnel.open();
    } catch (e) {
      if (!(e instanceof TunnelError && e.code === 'locked')) throw e;
      // Another process writes the log: replay from a read-only view, without recording the attempt.
      out.note(
        'another process (listen or the app) is writing this data folder: the replay is sent but not recorded in its log',
      );
      tunnel = new Tunnel({ dataDir, getSecrets: secrets.getSecrets, clock: ctx.clock, readOnly: true });
    }
    try {
      let a;
      try {
        a = await tunnel.replay(
          id,
          body !== undefined ? { mode: f.mode, url: f.forwardTo, body } : { mode: f.mode, url: f.forwardTo },
        );
      } catch (e) {
        if (e instanceof ReplayError && e.code === 'not-found')
          throw new CliFailure(
            `no delivery ${id} in the log (see \`channel-companion deliveries list\`)`,
            EXIT.failure,
            'NOT_FOUND',
          );
        if (e instanceof ReplayError && e.code === 'no-secret')
          throw new UsageError(`${e.message}: give --secret-env NAME or --team T`);
        throw e;
      }
      out.result({ event: 'replay', ...attemptData(a) }, attemptLine(a));
      return a.status !== null && a.status >= 200 && a.status <= 299 ? EXIT.ok : EXIT.failure;
    } finally {
      await tunnel.stop();
    }
  });

  const exp = withDir(
    deliveries
      .command('export')
      .description('a stored delivery as a curl command (exact bytes) or a JSON test fixture')
      .argument('<id>', 'delivery id')
      .option('--format <format>', 'curl or fixture', 'curl')
      .option('--url <url>', 'curl: where the command posts (default: the placeholder <FORWARD_URL>, to replace)'),
  ).option('--json', 'one JSON object: {format, curl} or {format, fixture}');
  defineAction(ctx, exp, async (opts, out, cmd) => {
    const f = parseFlags(exportSchema, opts);
    const id = idArg(cmd);
    const { toCurl, toFixture } = await import('../../core/tunnel');
    const d = await withLog(ctx, f, (log) => mustGet(log, id));
    if (f.format === 'curl') {
      const curl = toCurl(d, f.url !== undefined ? { url: f.url } : {});
      out.result({ format: 'curl', id: d.id, curl }, curl);
    } else {
      const fixture = toFixture(d);
      out.result({ format: 'fixture', id: d.id, fixture }, JSON.stringify(fixture, null, 2));
    }
  });
}
