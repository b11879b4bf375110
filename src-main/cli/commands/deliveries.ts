// `deliveries list|show|refused|replay|export`: the receiver's log of deliveries and the requests it refused,
// asked of the companion of the data folder (the one the Tunnel screen shows; started here for the command when
// none runs). A delivery is named by this app's id (the one listed first here and on the screen) or by the
// service's own (its x-delivery-id). --json prints the contract's DTOs as they are, one per line.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { VERDICTS, type DeliveryDetailDTO, type DeliveryFilterDTO, type Verdict } from '../../../src-shared/contract';
import { REFUSED_REASONS } from '../../../src-shared/vocabulary';
import { terminalSafe } from '../../../src-shared/terminal-text';
import { deliveryTypeWords, forwardWords, verdictWords } from '../../../src-shared/words';
import { httpUrlSchema } from '../../app/url';
import { addCompanionOptions } from '../companion';
import { forwardLine, refusedLine, summaryLine } from '../delivery-lines';
import { isoTime, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { CliFailure } from '../errors';
import { EXIT } from '../exit-codes';
import { agentId, intString, parseFlags } from '../flags';

const dirFlags = {
  dataDir: z.string().min(1, 'expected a folder').optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  json: z.boolean().optional(),
};
const deliveryId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'expected a delivery id (see `deliveries list`)');

/** Verdicts that take a delivery (the others refuse it). */
const TAKEN: ReadonlySet<Verdict> = new Set<Verdict>(['verified', 'verified-legacy-only', 'duplicate', 'simulated']);

const listSchema = z.object({
  ...dirFlags,
  agent: agentId.optional(),
  verdict: z
    .enum(['ok', 'rejected', ...VERDICTS], {
      error: `expected ok, rejected or a verdict (${VERDICTS.join(', ')})`,
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
  text: z.string().min(1, 'expected some text').max(500).optional(),
  limit: intString(1, 1000).optional(),
});
const refusedSchema = z.object({
  ...dirFlags,
  agent: agentId.optional(),
  reason: z.enum(REFUSED_REASONS, { error: `expected one of ${REFUSED_REASONS.join(', ')}` }).optional(),
  text: z.string().min(1, 'expected some text').max(200).optional(),
  limit: intString(1, 1000).optional(),
});
const replaySchema = z
  .object({
    ...dirFlags,
    mode: z.enum(['as-received', 're-signed'], { error: 'expected as-received or re-signed' }),
    bodyFile: z.string().min(1, 'expected a file path').optional(),
    forwardTo: httpUrlSchema.optional(),
  })
  .refine((f) => f.bodyFile === undefined || f.mode === 're-signed', {
    message: 'an edited body is only sent re-signed: add --mode re-signed',
    path: ['bodyFile'],
  });
const exportSchema = z.object({
  ...dirFlags,
  format: z.enum(['curl', 'fixture'], { error: 'expected curl or fixture' }),
  url: httpUrlSchema.optional(),
});

function idArg(cmd: Command): string {
  return parseFlags(z.object({ id: deliveryId }), { id: cmd.args[0] }).id;
}

/** A DTO as the one JSON line --json prints. */
function line(dto: object): Record<string, unknown> {
  return { ...dto };
}

const safe = (text: string): string => terminalSafe(text);

function detailText(d: DeliveryDetailDTO): string {
  const ids = [
    `${d.id}`,
    ...(d.serviceId ? [`service: ${safe(d.serviceId)}`] : []),
    ...(d.messageId ? [`message: ${safe(d.messageId)}`] : []),
  ];
  return [
    `${ids.join('  ')}`,
    `${d.agentId ?? '-'}  ${isoTime(d.receivedAt)}  ${deliveryTypeWords(d)}${d.from ? ` from +${d.from.replace(/^\+/, '')}` : ''}`,
    `verdict: ${verdictWords(d.verdict)}`,
    ...d.verificationDetail
      .split('\n')
      .filter((s) => s !== '')
      .map((s) => `  - ${s}`),
    ...Object.entries(d.headers).map(([k, v]) => `${safe(k)}: ${safe(v)}`),
    '',
    terminalSafe(d.rawBody, { lines: true }),
    '',
    `forward: ${d.forwardState}${d.nextTryAt !== null ? ` (next try ${isoTime(d.nextTryAt)})` : ''} — ${forwardWords(d).words}`,
    ...d.forwards.map(forwardLine),
  ].join('\n');
}

const ok2xx = (status: number | null): boolean => status !== null && status >= 200 && status <= 299;

export function register(program: Command, ctx: CliContext): void {
  const deliveries = program
    .command('deliveries')
    .description("the receiver's log of received and simulated webhook deliveries, through the companion");

  const list = addCompanionOptions(
    deliveries
      .command('list')
      .description('list deliveries, newest first')
      .option('--agent <id>', 'only this agent')
      .option('--verdict <v>', 'ok, rejected, or a verdict (verified, duplicate, signature-mismatch, simulated, …)')
      .option('--from <number>', 'only from this sender')
      .option('--type <type>', 'only this message type (text, image, document, …)')
      .option('--text <text>', 'only those whose body contains this')
      .option('--limit <n>', 'at most this many (default 50)'),
  ).option('--json', 'one JSON object per delivery (the contract’s DeliverySummaryDTO)');
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(listSchema, opts);
    const limit = f.limit ?? 50;
    // The contract filters by agent, sender, text and one verdict; ok/rejected and the message type here.
    const local = f.verdict === 'ok' || f.verdict === 'rejected' || f.type !== undefined;
    const q: DeliveryFilterDTO = { limit: local ? 1000 : limit };
    if (f.agent !== undefined) q.agentId = f.agent;
    if (f.from !== undefined) q.from = f.from;
    if (f.text !== undefined) q.text = f.text;
    if (f.verdict !== undefined && f.verdict !== 'ok' && f.verdict !== 'rejected') q.verdict = f.verdict;
    const items = (await withCompanion(ctx, out, f, (client) => client.request('tunnel.deliveries', q)))
      .filter((d) => f.verdict !== 'ok' || TAKEN.has(d.verdict))
      .filter((d) => f.verdict !== 'rejected' || !TAKEN.has(d.verdict))
      .filter((d) => f.type === undefined || d.messageType === f.type)
      .slice(0, limit);
    if (items.length === 0) out.note('no deliveries');
    for (const d of items) out.result(line(d), summaryLine(d));
  });

  const show = addCompanionOptions(
    deliveries
      .command('show')
      .description('one delivery: headers, body, verdict and forward attempts')
      .argument('<id>', "delivery id: this app's (as listed) or the service's (x-delivery-id)"),
  ).option('--json', 'the delivery as one JSON object (the contract’s DeliveryDetailDTO)');
  defineAction(ctx, show, async (opts, out, cmd) => {
    const f = parseFlags(z.object(dirFlags), opts);
    const id = idArg(cmd);
    const d = await withCompanion(ctx, out, f, (client) => client.request('tunnel.delivery', { id }));
    out.result(line(d), () => detailText(d));
  });

  const refused = addCompanionOptions(
    deliveries
      .command('refused')
      .description(
        'requests the receiver refused, and requests to paths that are not hooks (metadata only), newest first',
      )
      .option('--agent <id>', 'only this agent')
      .option('--reason <reason>', `only this reason (${REFUSED_REASONS.join(', ')})`)
      .option('--text <text>', 'only those whose path, source, reason, detail, first bytes or a header contain this')
      .option('--limit <n>', 'at most this many (default 50)'),
  ).option('--json', 'one JSON object per refused request (the contract’s RefusedRequestDTO)');
  defineAction(ctx, refused, async (opts, out) => {
    const f = parseFlags(refusedSchema, opts);
    const limit = f.limit ?? 50;
    const local = f.agent !== undefined || f.reason !== undefined;
    const items = (
      await withCompanion(ctx, out, f, (client) =>
        client.request('tunnel.refused', {
          limit: local ? 1000 : limit,
          ...(f.text !== undefined ? { text: f.text } : {}),
        }),
      )
    )
      .filter((r) => f.agent === undefined || r.agentId === f.agent)
      .filter((r) => f.reason === undefined || r.reason === f.reason)
      .slice(0, limit);
    if (items.length === 0) out.note('no refused requests');
    for (const r of items) out.result(line(r), refusedLine(r));
  });

  const replay = addCompanionOptions(
    deliveries
      .command('replay')
      .description('send a stored delivery to your local app again')
      .argument('<id>', "delivery id: this app's (as listed) or the service's (x-delivery-id)")
      .option(
        '--mode <mode>',
        "as-received (original bytes and signature) or re-signed (fresh timestamp, signed with the agent's secret)",
        'as-received',
      )
      .option('--body-file <path>', 're-signed only: send this body instead')
      .option(
        '--forward-to <url>',
        "your local app (default: the agent's forward address, a setting of the companion)",
      ),
  ).option('--json', 'the attempt as one JSON object (the contract’s ForwardResultDTO)');
  defineAction(ctx, replay, async (opts, out, cmd) => {
    const f = parseFlags(replaySchema, opts);
    const id = idArg(cmd);
    let body: string | undefined;
    if (f.bodyFile !== undefined) {
      try {
        body = await readFile(resolve(ctx.io.cwd, f.bodyFile), 'utf8');
      } catch (e) {
        throw new CliFailure(
          `cannot read --body-file ${f.bodyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
          EXIT.failure,
          'BODY_FILE',
        );
      }
    }
    const a = await withCompanion(ctx, out, f, (client) =>
      client.request('tunnel.replay', {
        id,
        mode: f.mode,
        ...(body !== undefined ? { body } : {}),
        ...(f.forwardTo !== undefined ? { url: f.forwardTo } : {}),
      }),
    );
    out.result(line(a), forwardLine(a));
    return ok2xx(a.status) ? EXIT.ok : EXIT.failure;
  });

  const exp = addCompanionOptions(
    deliveries
      .command('export')
      .description('a stored delivery as a curl command (exact bytes) or a JSON test fixture')
      .argument('<id>', "delivery id: this app's (as listed) or the service's (x-delivery-id)")
      .option('--format <format>', 'curl or fixture', 'curl')
      .option(
        '--url <url>',
        "curl: where the command posts (default: the agent's forward address, else the placeholder <FORWARD_URL>)",
      ),
  ).option('--json', 'one JSON object: the contract’s ExportDTO {format, filename, content}');
  defineAction(ctx, exp, async (opts, out, cmd) => {
    const f = parseFlags(exportSchema, opts);
    const id = idArg(cmd);
    const e = await withCompanion(ctx, out, f, (client) =>
      client.request('tunnel.export', { id, format: f.format, ...(f.url !== undefined ? { url: f.url } : {}) }),
    );
    out.result(line(e), e.content.replace(/\n$/, ''));
  });
}
