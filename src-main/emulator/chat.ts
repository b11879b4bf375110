// POST /api/v1/agents/:agentId/chat — a JSON reply, or a token stream over SSE, in the agent's
// dialect (dialect-wire.ts). ASSUMPTION A-CHAT-RESP, A-CHAT-STREAM
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Clock } from '../core/ports';
import type { Dialect } from './dialect';
import { chatJsonWire, streamWire } from './dialect-wire';
import { EmulatorError } from './errors';
import { parseWith, sendJson } from './http';
import { CHAT_LOG_MAX, type Agent, type ChatRecord, type ChatScript } from './model';
import type { WireChatResult } from './wire';

const DEFAULT_TOKEN_DELAY_MS = 25;

const chatRequestSchema = z.looseObject({
  message: z.string().min(1, 'message must not be empty').max(32_000),
  user_id: z.string().min(1).max(256).optional(),
  stream: z.boolean().optional(),
});

const MAX_TOKEN_COUNT = 1_000_000;

export const chatScriptSchema = z
  .strictObject({
    reply: z.string().max(32_000).optional(),
    tokens: z.array(z.string()).max(10_000).optional(),
    /** Stream this many tokens, cycling through `tokens` (or the reply's words). */
    tokenCount: z.number().int().positive().max(MAX_TOKEN_COUNT).optional(),
    tokenDelayMs: z.number().int().nonnegative().max(60_000).optional(),
    /** Pace by rate instead of a delay per token: each timer tick writes every token due by then. */
    tokensPerSecond: z.number().positive().max(1_000_000).optional(),
    /** Latency probes: token 0, N, 2N, … is replaced by ⟨t=<epoch ms>⟩ stamped as it is written. */
    stampEvery: z.number().int().positive().optional(),
    actions: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
    failAfterTokens: z.number().int().nonnegative().optional(),
    status: z.number().int().min(400).max(599).optional(),
    code: z.string().min(1).max(100).optional(),
  })
  .refine((s) => s.tokenDelayMs === undefined || s.tokensPerSecond === undefined, {
    message: 'give tokenDelayMs or tokensPerSecond, not both',
  })
  .refine((s) => s.tokenCount === undefined || (s.tokens?.length ?? 1) > 0, {
    message: 'tokenCount needs at least one token to repeat',
  });

/** Wall-clock epoch milliseconds with sub-millisecond precision, for latency stamps (never the
 *  injected clock: a stamp is read against the reader's own wall clock). */
const epochNow = (): number => performance.timeOrigin + performance.now();

/** A latency-probe token: the time it leaves, readable by anything that sees the text. */
function stampToken(epochMs: number): string {
  return `\u27e8t=${epochMs.toFixed(2)}\u27e9 `;
}

/** Word tokens whose concatenation is the reply (each keeps its trailing whitespace). */
function splitTokens(reply: string): string[] {
  return reply.match(/\s*\S+\s*/g) ?? (reply === '' ? [] : [reply]);
}

function countWords(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

export interface ChatDeps {
  clock: Clock;
  /** Stoppers of live SSE streams; close() calls each. */
  streams: Set<() => void>;
  headers: Record<string, string>;
  dialect: Dialect;
}

export async function handleChat(
  agent: Agent,
  body: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  deps: ChatDeps,
): Promise<void> {
  const input = parseWith(chatRequestSchema, body);
  const script: ChatScript = agent.chatScript ?? {};
  if (script.status !== undefined) {
    throw new EmulatorError(script.status, script.code ?? defaultCode(script.status), 'scripted chat failure');
  }
  const userId = input.user_id ?? 'anonymous';
  let conversationId = agent.conversations.get(userId);
  if (!conversationId) {
    conversationId = `conv_${randomBytes(8).toString('hex')}`;
    agent.conversations.set(userId, conversationId);
  }
  const base = script.reply ?? (script.tokens ? script.tokens.join('') : `You said: ${input.message}`);
  const words = script.tokens ?? splitTokens(base);
  const source = tokenSource(words, script);
  const inputTokens = countWords(input.message);
  const result: WireChatResult = {
    reply: base,
    conversationId,
    actions: script.actions ?? [],
    usage: { inputTokens, outputTokens: source.count, totalTokens: inputTokens + source.count },
  };
  const wantsStream = input.stream === true && (req.headers.accept ?? '').includes('text/event-stream');
  const record: ChatRecord = {
    userId,
    conversationId,
    stream: wantsStream,
    status: 'streaming',
    reply: '',
    tokens: 0,
    startedAt: deps.clock.now(),
    endedAt: null,
  };
  agent.chats.push(record);
  if (agent.chats.length > CHAT_LOG_MAX) agent.chats.splice(0, agent.chats.length - CHAT_LOG_MAX);
  // json-for-stream: a stream request answered with one JSON body.
  if (!wantsStream || deps.dialect.chatStream === 'json') {
    if (script.failAfterTokens !== undefined) {
      Object.assign(record, { status: 'error', endedAt: deps.clock.now() });
      throw new EmulatorError(500, script.code ?? 'INTERNAL_ERROR', 'scripted chat failure');
    }
    if (!source.plain) result.reply = Array.from({ length: source.count }, (_, i) => source.at(i)).join('');
    Object.assign(record, { status: 'done', reply: result.reply, tokens: source.count, endedAt: deps.clock.now() });
    sendJson(res, 200, chatJsonWire(deps.dialect, result, deps.clock.now()), deps.headers);
    return;
  }
  stream(res, source, result, script, record, deps);
}

interface TokenSource {
  count: number;
  /** True when the reply is exactly the scripted text (no repetition, no stamps). */
  plain: boolean;
  at(i: number): string;
}

function tokenSource(words: string[], script: ChatScript): TokenSource {
  const count = script.tokenCount ?? words.length;
  const every = script.stampEvery;
  return {
    count,
    plain: every === undefined && count === words.length,
    at: (i) => (every !== undefined && i % every === 0 ? stampToken(epochNow()) : (words[i % words.length] ?? '')),
  };
}

function defaultCode(status: number): string {
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 500) return 'INTERNAL_ERROR';
  return 'INVALID_REQUEST';
}

function stream(
  res: ServerResponse,
  source: TokenSource,
  result: WireChatResult,
  script: ChatScript,
  record: ChatRecord,
  deps: ChatDeps,
): void {
  const { clock, streams } = deps;
  const perSecond = script.tokensPerSecond;
  const delay = script.tokenDelayMs ?? DEFAULT_TOKEN_DELAY_MS;
  const failAt = script.failAfterTokens;
  res.writeHead(200, {
    ...deps.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let timer: unknown = null;
  let i = 0;
  let finished = false;
  const startedAt = clock.now();
  const finish = (status: ChatRecord['status']) => {
    if (finished) return;
    finished = true;
    record.status = status;
    record.endedAt = clock.now();
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    streams.delete(abort);
  };
  const abort = () => {
    finish('aborted');
    res.destroy();
  };
  streams.add(abort);
  res.on('close', () => finish('aborted'));
  const wire = streamWire(deps.dialect, startedAt);
  if (wire.open) res.write(wire.open);
  /** How many tokens should have left by now: one at a time with a delay, or all due at the rate. */
  const due = (): number =>
    perSecond === undefined ? i + 1 : Math.floor(((clock.now() - startedAt) * perSecond) / 1000) + 1;
  const step = (): void => {
    timer = null;
    while (!finished) {
      // Every token due now leaves in one write (one chunk on the wire).
      const upTo = Math.min(source.count, due());
      let chunk = '';
      let end: 'done' | 'error' | null = null;
      for (;;) {
        if (failAt !== undefined && i >= failAt) {
          chunk += wire.error(script.code ?? 'STREAM_FAILED', 'the reply stream failed');
          end = 'error';
          break;
        }
        if (i >= source.count) {
          chunk += wire.done(source.plain ? result : { ...result, reply: record.reply });
          end = 'done';
          break;
        }
        if (i >= upTo) break;
        const token = source.at(i++);
        record.reply += token;
        record.tokens = i;
        chunk += wire.token(token, i - 1);
        if (perSecond === undefined) break;
      }
      if (end) {
        finish(end);
        res.end(chunk);
        return;
      }
      if (chunk) res.write(chunk);
      if (perSecond !== undefined || delay > 0) {
        timer = clock.setTimeout(step, perSecond !== undefined ? 1 : delay);
        return;
      }
    }
  };
  step();
}
