// `send`: one message (text, image or document). The recipient is checked locally before any
// request; 503 reconnecting is retried with progress on stderr; 409 means a QR scan is needed.
// With --team it is the companion's send.message — the app's one send path: its send budget and queue, its
// retries while the monitor sees the number reconnecting, its send log and Messages. Given by --base-url and
// a key from the environment, it is sent directly and recorded in the data folder's send log all the same.
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { z } from 'zod';
import type { SendArgs, SendProgressDTO } from '../../../src-shared/contract';
import type { SendRequest } from '../../app/service';
import { defineAction, type CliContext } from '../context';
import { httpUrlSchema } from '../../app/url';
import { intString, parseFlags, recipient } from '../flags';
import type { Output } from '../output';
import { addTargetOptions } from '../target';
import { companionFolders } from '../companion';
import { HUB_FLAG_HELP } from '../hub-client';
import { teamAgentOf, teamFlag, withCompanion } from '../companion-run';
import { SendLog, sendAndRecord } from '../../app/usecases/send';

const flagsSchema = z
  .looseObject({
    to: recipient,
    text: z.string().min(1, 'the text is empty').max(65_536, 'the text is too long').optional(),
    imageUrl: httpUrlSchema.optional(),
    documentUrl: httpUrlSchema.optional(),
    filename: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^/\\\0]+$/, 'expected a file name without slashes')
      .optional(),
    retries: intString(0, 10).optional(),
    dataDir: z.string().min(1, 'expected a folder').optional(),
  })
  .refine((f) => f.text !== undefined || f.imageUrl !== undefined || f.documentUrl !== undefined, {
    message: 'nothing to send: give --text, --image-url or --document-url',
    path: ['text'],
  })
  .refine((f) => !(f.imageUrl !== undefined && f.documentUrl !== undefined), {
    message: 'give --image-url or --document-url, not both',
    path: ['imageUrl'],
  })
  .refine((f) => f.filename === undefined || f.documentUrl !== undefined, {
    message: '--filename names a document; give --document-url too',
    path: ['filename'],
  });

/** A send's progress as the companion tells it: queued behind the send budget, or retried. */
function progressNote(out: Output, p: SendProgressDTO): void {
  if (p.phase === 'queued')
    out.note(
      `send rate budget used up — queued (position ${p.position ?? '?'}), going out in ~${Math.ceil((p.waitMs ?? 0) / 1000)} s`,
    );
  else
    out.note(
      p.error?.kind === 'reconnecting'
        ? `the number is reconnecting (HTTP 503) — retry ${p.attempt ?? '?'} in ${((p.delayMs ?? 0) / 1000).toFixed(1)} s`
        : `${p.error?.message ?? 'the send failed'} — retry ${p.attempt ?? '?'} in ${((p.delayMs ?? 0) / 1000).toFixed(1)} s`,
    );
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(
    program
      .command('send')
      .alias('reply')
      .description("send one message from the agent's number (`reply` is the same command)"),
  );
  cmd
    .requiredOption('--to <number>', 'recipient: E.164 number (+15550102000) or a full JID')
    .option('--text <text>', 'message text (the caption when media is sent)')
    .option('--image-url <url>', 'public URL of an image to send')
    .option('--document-url <url>', 'public URL of a document to send')
    .option('--filename <name>', 'file name shown for the document')
    .option('--retries <n>', 'retries while the number is reconnecting (503); with --team the companion retries', '4')
    .option(
      '--data-dir <dir>',
      "the companion's data folder, whose send log records the send (default: <config dir>/data)",
    )
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'the send result as one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    // Flags first: a bad recipient or flag is a usage error and nothing is sent.
    const f = parseFlags(flagsSchema, opts);
    const req: SendRequest = { to: f.to };
    if (f.text !== undefined) req.text = f.text;
    if (f.imageUrl !== undefined) req.imageUrl = f.imageUrl;
    if (f.documentUrl !== undefined) req.documentUrl = f.documentUrl;
    if (f.filename !== undefined) req.documentFilename = f.filename;
    const team = teamFlag(opts);
    if (team !== undefined) {
      const result = await withCompanion(ctx, out, { ...opts, dataDir: f.dataDir }, async (client) => {
        const t = await teamAgentOf(client, { team, agent: typeof opts.agent === 'string' ? opts.agent : undefined });
        const clientRef = `cli-${randomUUID()}`;
        client.on('send.progress', (p) => {
          if (p.clientRef === clientRef) progressNote(out, p);
        });
        await client.listening();
        // Ctrl-C stops this send in the companion too (a queued or retrying one is not sent later).
        const stop = () => void client.request('send.stop', { clientRef }).catch(() => undefined);
        ctx.signal.addEventListener('abort', stop, { once: true });
        try {
          const args: SendArgs & { from: 'cli' } = {
            teamId: t.teamId,
            agentId: t.agentId,
            to: f.to,
            clientRef,
            from: 'cli',
          };
          if (req.text !== undefined) args.text = req.text;
          if (req.imageUrl !== undefined) args.imageUrl = req.imageUrl;
          if (req.documentUrl !== undefined) args.documentUrl = req.documentUrl;
          if (req.documentFilename !== undefined) args.documentFilename = req.documentFilename;
          return await client.request('send.message', args);
        } finally {
          ctx.signal.removeEventListener('abort', stop);
        }
      });
      out.result(
        { ...result },
        `${result.status} ${result.messageId || '(the service gave no message id)'} to ${result.to}`,
      );
      return;
    }
    const target = await ctx.resolveTarget(opts);
    const maxRetries = f.retries ?? 4;
    const log = new SendLog(
      companionFolders(ctx, { dataDir: f.dataDir, configDir: opts.configDir as string | undefined }).dataDir,
    );
    const recorded = {
      log,
      teamId: null,
      agentId: target.agentId,
      via: 'cli' as const,
      now: () => ctx.clock.now(),
      onLogError: (e: unknown) =>
        out.note(`the send could not be recorded in the send log: ${e instanceof Error ? e.message : String(e)}`),
    };
    const result = await sendAndRecord(
      ctx.client(target),
      req,
      {
        signal: ctx.signal,
        maxRetries,
        onRetry: (i) =>
          out.note(
            i.error.kind === 'reconnecting'
              ? `the number is reconnecting (HTTP 503) — retry ${i.attempt}/${maxRetries} in ${(i.delayMs / 1000).toFixed(1)} s`
              : `${i.error.message} — retry ${i.attempt} in ${(i.delayMs / 1000).toFixed(1)} s`,
          ),
        onQueued: (q) =>
          out.note(
            `send rate budget used up — queued (position ${q.position}), going out in ~${Math.ceil(q.waitMs / 1000)} s`,
          ),
      },
      recorded,
    );
    out.result(
      { ...result },
      `${result.status} ${result.messageId || '(the service gave no message id)'} to ${result.to}`,
    );
  });
}
