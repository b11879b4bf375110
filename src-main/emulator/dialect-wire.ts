// What each dialect puts on the wire: error bodies, rate-limit headers, the chat JSON answer and
// the frames of a token stream. Built from the emulator's own shapes (wire.ts), never the client's.
import type { Dialect } from './dialect';
import type { WireChatResult } from './wire';

// ---- errors -------------------------------------------------------------------------------------

export interface WireBody {
  contentType: string | null;
  text: string;
}

export function errorWire(d: Dialect, code: string, message: string): WireBody {
  const json = (v: unknown): WireBody => ({ contentType: 'application/json; charset=utf-8', text: JSON.stringify(v) });
  switch (d.errors) {
    case 'flat':
      return json({ code, message });
    case 'array':
      return json({ errors: [{ code, message }] });
    case 'string':
      return json({ error: code });
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', text: message };
    case 'empty':
      return { contentType: null, text: '' };
    default:
      return json({ error: { code, message } });
  }
}

// ---- rate-limit headers ---------------------------------------------------------------------------

export interface RateFigures {
  limit: number;
  remaining?: number;
  /** ms epoch of the window's reset. */
  resetMs?: number;
  /** seconds to wait (a 429). */
  retryAfterSec?: number;
}

const NAMES = {
  lower: {
    limit: 'x-ratelimit-limit',
    remaining: 'x-ratelimit-remaining',
    reset: 'x-ratelimit-reset',
    retryAfter: 'retry-after',
  },
  upper: {
    limit: 'X-RATELIMIT-LIMIT',
    remaining: 'X-RATELIMIT-REMAINING',
    reset: 'X-RATELIMIT-RESET',
    retryAfter: 'RETRY-AFTER',
  },
};

export function rateWire(d: Dialect, f: RateFigures, nowMs: number): Record<string, string> {
  const n = NAMES[d.headerCase];
  const out: Record<string, string> = { [n.limit]: String(f.limit) };
  if (f.remaining !== undefined) out[n.remaining] = String(f.remaining);
  if (f.resetMs !== undefined)
    out[n.reset] = String(
      d.reset === 'delta' ? Math.max(0, Math.ceil((f.resetMs - nowMs) / 1000)) : Math.ceil(f.resetMs / 1000),
    );
  if (f.retryAfterSec !== undefined && d.retryAfter !== 'none') {
    out[n.retryAfter] =
      d.retryAfter === 'date' ? new Date(nowMs + f.retryAfterSec * 1000).toUTCString() : String(f.retryAfterSec);
  }
  return out;
}

// ---- chat JSON --------------------------------------------------------------------------------------

const toolCalls = (r: WireChatResult) =>
  r.actions.map(({ name, ...args }, i) => ({
    id: `call_${i + 1}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  }));

export function chatJsonWire(d: Dialect, r: WireChatResult, createdMs: number): unknown {
  const { inputTokens, outputTokens, totalTokens } = r.usage;
  switch (d.chatJson) {
    case 'message':
      return {
        message: r.reply,
        conversation_id: r.conversationId,
        actions_called: r.actions,
        tokens_used: totalTokens,
      };
    case 'text':
      return {
        text: r.reply,
        conversationId: r.conversationId,
        actionsCalled: r.actions.map((a) => a.name),
        tokensUsed: { total: totalTokens },
      };
    case 'content':
      return { content: r.reply, conversation_id: r.conversationId, tool_calls: toolCalls(r), tokens: totalTokens };
    case 'response':
      return {
        response: r.reply,
        conversationId: r.conversationId,
        actions: r.actions,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      };
    case 'answer':
      return {
        event: 'message',
        answer: r.reply,
        conversation_id: r.conversationId,
        metadata: { usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: totalTokens } },
      };
    case 'output':
      return { output: r.reply, conversation_id: r.conversationId, actions: r.actions, usage: r.usage };
    case 'openai':
      return {
        id: `chatcmpl-${r.conversationId}`,
        object: 'chat.completion',
        created: Math.floor(createdMs / 1000),
        model: 'emulator',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: r.reply,
              ...(r.actions.length > 0 ? { tool_calls: toolCalls(r) } : {}),
            },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: totalTokens },
      };
    default:
      return r;
  }
}

// ---- token streams ---------------------------------------------------------------------------------

/** The text of each part of a stream in one dialect (`json` streams nothing: see chat.ts). */
export interface StreamWire {
  open: string;
  token(token: string, index: number): string;
  done(result: WireChatResult): string;
  error(code: string, message: string): string;
}

const sse = (fields: Array<[string, string]>, eol = '\n') =>
  `${fields.map(([k, v]) => `${k}: ${v}`).join(eol)}${eol}${eol}`;
const data = (v: unknown) => sse([['data', JSON.stringify(v)]]);
const named = (event: string, v: unknown, eol = '\n') =>
  sse(
    [
      ['event', event],
      ['data', JSON.stringify(v)],
    ],
    eol,
  );

export function streamWire(d: Dialect, createdMs: number): StreamWire {
  switch (d.chatStream) {
    case 'crlf':
      return {
        open: '',
        token: (token) => named('token', { token }, '\r\n'),
        done: (r) => named('done', r, '\r\n'),
        error: (code, message) => named('error', { error: { code, message } }, '\r\n'),
      };
    case 'heartbeat':
      return {
        open: ': stream open\n\nretry: 3000\n\n',
        token: (token, i) =>
          `${i % 3 === 0 ? ': heartbeat\n\nevent: heartbeat\ndata: {}\n\n' : ''}${sse([
            ['id', String(i + 1)],
            ['event', 'token'],
            ['data', JSON.stringify({ token })],
          ])}`,
        done: (r) => `: closing\n\n${named('done', r)}`,
        error: (code, message) => named('error', { error: { code, message } }),
      };
    case 'delta':
      return {
        open: '',
        token: (delta) => named('delta', { delta }),
        done: () => '',
        error: (code, message) => named('error', { code, message }),
      };
    case 'message':
      return {
        open: '',
        token: (text) => named('message', { text }),
        done: (r) => named('end', { conversation_id: r.conversationId, tokens_used: r.usage.totalTokens }),
        error: (code, message) => named('error', { errors: [{ code, message }] }),
      };
    case 'openai': {
      const id = `chatcmpl-${createdMs}`;
      const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
        data({
          id,
          object: 'chat.completion.chunk',
          created: Math.floor(createdMs / 1000),
          model: 'emulator',
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...extra,
        });
      return {
        open: chunk({ role: 'assistant', content: '' }),
        token: (content) => chunk({ content }),
        done: (r) =>
          [
            ...r.actions.map(({ name, ...args }, i) =>
              chunk({
                tool_calls: [
                  {
                    index: i,
                    id: `call_${i + 1}`,
                    type: 'function',
                    function: { name, arguments: JSON.stringify(args) },
                  },
                ],
              }),
            ),
            chunk({}, 'stop'),
            data({
              id,
              object: 'chat.completion.chunk',
              choices: [],
              usage: {
                prompt_tokens: r.usage.inputTokens,
                completion_tokens: r.usage.outputTokens,
                total_tokens: r.usage.totalTokens,
              },
            }),
            'data: [DONE]\n\n',
          ].join(''),
        error: (code, message) => data({ error: { message, type: 'server_error', code } }),
      };
    }
    case 'anthropic':
      return {
        open: [
          named('message_start', {
            type: 'message_start',
            message: {
              id: `msg_${createdMs}`,
              type: 'message',
              role: 'assistant',
              content: [],
              usage: { input_tokens: 0, output_tokens: 0 },
            },
          }),
          named('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: '' },
          }),
          named('ping', { type: 'ping' }),
        ].join(''),
        token: (text) =>
          named('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
        done: (r) =>
          [
            named('content_block_stop', { type: 'content_block_stop', index: 0 }),
            ...r.actions.map(({ name, ...input }, i) =>
              named('content_block_start', {
                type: 'content_block_start',
                index: i + 1,
                content_block: { type: 'tool_use', id: `toolu_${i + 1}`, name, input },
              }),
            ),
            named('message_delta', {
              type: 'message_delta',
              delta: { stop_reason: 'end_turn' },
              usage: { input_tokens: r.usage.inputTokens, output_tokens: r.usage.outputTokens },
            }),
            named('message_stop', { type: 'message_stop' }),
          ].join(''),
        error: (code, message) => named('error', { type: 'error', error: { type: code.toLowerCase(), message } }),
      };
    case 'dify':
      return {
        open: '',
        token: (answer) => data({ event: 'message', message_id: `m_${createdMs}`, answer }),
        done: (r) =>
          data({
            event: 'message_end',
            conversation_id: r.conversationId,
            metadata: {
              usage: {
                prompt_tokens: r.usage.inputTokens,
                completion_tokens: r.usage.outputTokens,
                total_tokens: r.usage.totalTokens,
              },
            },
          }),
        error: (code, message) => data({ event: 'error', status: 500, code, message }),
      };
    case 'text':
      return {
        open: '',
        token: (t) =>
          `${t
            .split('\n')
            .map((line) => `data: ${line}`)
            .join('\n')}\n\n`,
        done: () => '',
        error: (_code, message) =>
          sse([
            ['event', 'error'],
            ['data', message],
          ]),
      };
    default:
      return {
        open: '',
        token: (token) => named('token', { token }),
        done: (r) => named('done', r),
        error: (code, message) => named('error', { error: { code, message } }),
      };
  }
}
