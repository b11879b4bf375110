// POST /api/v1/agents/:agentId/chat — a JSON reply, or a token stream over SSE.
// ASSUMPTION A-CHAT-RESP, A-CHAT-STREAM
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ChatResult } from '../core/api/types';
import type { Clock } from '../core/ports';
import { EmulatorError, errorBody } from './errors';
import { parseWith, sendJson } from './http';
import type { Agent, ChatScript } from './model';

export const DEFAULT_TOKEN_DELAY_MS = 25;

const chatRequestSchema = z.looseObject({
  message: z.string().min(1, 'message must not be empty').max(32_000),
  user_id: z.string().min(1).max(256).optional(),
  stream: z.boolean().optional(),
});

export const chatScriptSchema = z.strictObject({
  reply: z.string().max(32_000).optional(),
  tokens: z.array(z.string()).max(10_000).optional(),
  tokenDelayMs: z.number().int().nonnegative().max(60_000).optional(),
  actions: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
  failAfterTokens: z.number().int().nonnegative().optional(),
  status: z.number().int().min(400).max(599).optional(),
  code: z.string().min(1).max(100).optional(),
});

type WireResult = Omit<ChatResult, 'raw'>;

/** Word tokens whose concatenation is the reply (each keeps its trailing whitespace). */
export function splitTokens(reply: string): string[] {
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
}

export async function handleChat(agent: Agent, body: unknown, req: IncomingMessage, res: ServerResponse, deps: ChatDeps): Promise<void> {
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
  const reply = script.reply ?? (script.tokens ? script.tokens.join('') : `You said: ${input.message}`);
  const tokens = script.tokens ?? splitTokens(reply);
  const inputTokens = countWords(input.message);
  const result: WireResult = {
    reply,
    conversationId,
    actions: script.actions ?? [],
    usage: { inputTokens, outputTokens: tokens.length, totalTokens: inputTokens + tokens.length },
  };
  const wantsStream = input.stream === true && (req.headers.accept ?? '').includes('text/event-stream');
  if (!wantsStream) {
    if (script.failAfterTokens !== undefined) throw new EmulatorError(500, script.code ?? 'INTERNAL_ERROR', 'scripted chat failure');
    sendJson(res, 200, result, deps.headers);
    return;
  }
  stream(res, tokens, result, script, deps);
}

function defaultCode(status: number): string {
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 500) return 'INTERNAL_ERROR';
  return 'INVALID_REQUEST';
}

function stream(res: ServerResponse, tokens: string[], result: WireResult, script: ChatScript, deps: ChatDeps): void {
  const { clock, streams } = deps;
  const delay = script.tokenDelayMs ?? DEFAULT_TOKEN_DELAY_MS;
  const failAt = script.failAfterTokens;
  res.writeHead(200, { ...deps.headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  let timer: unknown = null;
  let i = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    streams.delete(abort);
  };
  const abort = () => {
    finish();
    res.destroy();
  };
  streams.add(abort);
  res.on('close', finish);
  const frame = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const step = (): void => {
    timer = null;
    while (!finished) {
      if (failAt !== undefined && i >= failAt) {
        frame('error', errorBody(script.code ?? 'STREAM_FAILED', 'the reply stream failed'));
        finish();
        res.end();
        return;
      }
      if (i >= tokens.length) {
        frame('done', result);
        finish();
        res.end();
        return;
      }
      frame('token', { token: tokens[i] });
      i++;
      if (delay > 0) {
        timer = clock.setTimeout(step, delay);
        return;
      }
    }
  };
  step();
}
