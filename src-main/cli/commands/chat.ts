// `chat`: one message to the agent; the reply on stdout (token by token with --stream), the
// conversation id, actions and token usage on stderr (or in the JSON object).
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { z } from 'zod';
import type { ChatResult, ChatStreamEvent } from '../../app/service';
import { defineAction, type CliContext } from '../context';
import { CliFailure } from '../errors';
import { EXIT } from '../exit-codes';
import { parseFlags } from '../flags';
import { addTargetOptions } from '../target';

const flagsSchema = z.looseObject({
  message: z.string().min(1, 'the message is empty').max(65_536, 'the message is too long'),
  userId: z.string().min(1).max(256).optional(),
  stream: z.boolean().optional(),
});

function defaultUserId(): string {
  try {
    return `cli-${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

function meta(r: ChatResult): string {
  const tokens = r.usage.totalTokens ?? (r.usage.inputTokens ?? 0) + (r.usage.outputTokens ?? 0);
  return [
    `conversation: ${r.conversationId ?? '-'}`,
    `actions: ${r.actions.length ? r.actions.map((a) => a.name).join(', ') : 'none'}`,
    `tokens: ${tokens || '-'}${r.usage.inputTokens !== undefined ? ` (in ${r.usage.inputTokens}, out ${r.usage.outputTokens ?? '-'})` : ''}`,
  ].join('\n');
}

function plain(r: ChatResult): Record<string, unknown> {
  return { reply: r.reply, conversationId: r.conversationId, actions: r.actions, usage: r.usage };
}

/** Exit code for an error event inside a stream, by its HTTP status. */
function exitForStatus(status: number | undefined): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 400 || status === 422) return EXIT.failure;
  return EXIT.service;
}

/** A stream's error event as the CLI's failure: the reply that could not be read keeps what came. */
function streamFailure(ev: Extract<ChatStreamEvent, { type: 'error' }>): CliFailure {
  const what = ev.code === 'UNREADABLE_REPLY' ? ev.message : `the stream failed: ${ev.message}`;
  return new CliFailure(what, exitForStatus(ev.status), ev.code, ev.raw, ev.status);
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(
    program.command('chat').description('send one chat message to the agent and print the reply'),
  );
  cmd
    .requiredOption('--message <text>', 'your message')
    .option('--user-id <id>', 'conversation key: the same id continues one conversation')
    .option('--stream', 'print the reply token by token as it arrives')
    .option('--json', 'one JSON object per line on stdout (with --stream: a line per token, then done)');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const client = ctx.client(target);
    const req = { message: f.message, user_id: f.userId ?? defaultUserId() };
    if (!f.stream) {
      const r = await client.chat(target.agentId, req, { signal: ctx.signal });
      out.result(plain(r), r.reply);
      if (!out.json) ctx.io.stderr.write(`${meta(r)}\n`);
      return EXIT.ok;
    }
    const stream = client.chatStream(target.agentId, req, { signal: ctx.signal });
    const onAbort = () => stream.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let printed = false;
    try {
      for await (const ev of stream) {
        if (ev.type === 'token') {
          out.event({ event: 'token', token: ev.token });
          out.raw(ev.token);
          printed = true;
        } else if (ev.type === 'done') {
          // An answer that came whole (JSON to a stream request) is printed whole.
          if (!printed) out.raw(ev.result.reply);
          out.event({ event: 'done', ...plain(ev.result) });
          if (!out.json) ctx.io.stdout.write('\n');
          if (!out.json) ctx.io.stderr.write(`${meta(ev.result)}\n`);
          return EXIT.ok;
        } else {
          if (!out.json && printed) ctx.io.stdout.write('\n');
          throw streamFailure(ev);
        }
      }
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
    if (ctx.signal.aborted) throw new CliFailure('cancelled', EXIT.interrupted, 'INTERRUPTED');
    throw new CliFailure('the stream ended without a reply', EXIT.service, 'STREAM_ENDED');
  });
}
