// Dialects: the other ways a real service may fill what its document leaves open (the chat answer,
// the token stream, error bodies, rate-limit headers, the contacts path). A team or an agent speaks
// a list of dialect names; each name sets one facet, later names win, an agent's over its team's
// over the emulator's default. With none, the emulator speaks its own shape (docs/service-assumptions.md).
import { z } from 'zod';

export interface Dialect {
  /** The JSON answer to POST .../chat. */
  chatJson: 'reply' | 'message' | 'text' | 'content' | 'response' | 'answer' | 'output' | 'openai';
  /** The answer to a stream request. */
  chatStream: 'token' | 'delta' | 'message' | 'openai' | 'anthropic' | 'dify' | 'text' | 'crlf' | 'heartbeat' | 'json';
  /** The body of an error answer. */
  errors: 'nested' | 'flat' | 'array' | 'string' | 'text' | 'empty';
  /** X-RateLimit-Reset as a unix time or as seconds until the reset. */
  reset: 'unix' | 'delta';
  /** Retry-After on a 429: seconds, an HTTP date, or left out. */
  retryAfter: 'seconds' | 'date' | 'none';
  /** How rate-limit header names are written. */
  headerCase: 'lower' | 'upper';
  /** Which form of the number the contacts path takes. */
  contactPath: 'any' | 'plus' | 'digits';
}

export const DEFAULT_DIALECT: Readonly<Dialect> = {
  chatJson: 'reply',
  chatStream: 'token',
  errors: 'nested',
  reset: 'unix',
  retryAfter: 'seconds',
  headerCase: 'lower',
  contactPath: 'any',
};

/** Every dialect name: what it changes, in a line. */
export const DIALECTS: Readonly<Record<string, { describe: string; set: Partial<Dialect> }>> = {
  default: { describe: "the emulator's own shapes", set: {} },
  'message-json': {
    describe: 'chat JSON {message, conversation_id, actions_called, tokens_used}',
    set: { chatJson: 'message' },
  },
  'text-json': { describe: 'chat JSON {text, conversationId, actionsCalled, tokensUsed}', set: { chatJson: 'text' } },
  'content-json': {
    describe: 'chat JSON {content, conversation_id, tool_calls, tokens}',
    set: { chatJson: 'content' },
  },
  'response-json': {
    describe: 'chat JSON {response, conversationId, actions, usage:{input_tokens, output_tokens}}',
    set: { chatJson: 'response' },
  },
  'answer-json': {
    describe: 'chat JSON {answer, conversation_id, metadata:{usage}} (Dify-style)',
    set: { chatJson: 'answer' },
  },
  'output-json': { describe: 'chat JSON {output, conversation_id, actions, usage}', set: { chatJson: 'output' } },
  'openai-json': {
    describe: 'chat JSON {choices:[{message:{content, tool_calls}}], usage:{prompt_tokens…}}',
    set: { chatJson: 'openai' },
  },
  'delta-stream': {
    describe: 'stream of `event: delta` {"delta"} frames, ended by closing',
    set: { chatStream: 'delta' },
  },
  'message-stream': {
    describe: 'stream of `event: message` {"text"} frames, then `event: end`',
    set: { chatStream: 'message' },
  },
  'openai-stream': {
    describe: 'stream of OpenAI chunks (choices[0].delta.content), then data: [DONE]',
    set: { chatStream: 'openai' },
  },
  'anthropic-stream': {
    describe: 'stream of content_block_delta (delta.text) … message_stop',
    set: { chatStream: 'anthropic' },
  },
  'dify-stream': {
    describe: 'stream of unnamed {"event":"message","answer"} frames, then message_end',
    set: { chatStream: 'dify' },
  },
  'text-stream': { describe: 'stream of plain-text data: lines, ended by closing', set: { chatStream: 'text' } },
  'crlf-stream': { describe: 'the default stream with CRLF line ends', set: { chatStream: 'crlf' } },
  'heartbeat-stream': {
    describe: 'the default stream with comments, heartbeat events, retry: and id: fields',
    set: { chatStream: 'heartbeat' },
  },
  'json-for-stream': { describe: 'a plain application/json answer to a stream request', set: { chatStream: 'json' } },
  'flat-errors': { describe: 'error bodies {"code","message"}', set: { errors: 'flat' } },
  'errors-array': { describe: 'error bodies {"errors":[{"code","message"}]}', set: { errors: 'array' } },
  'string-errors': { describe: 'error bodies {"error":"CODE"}', set: { errors: 'string' } },
  'text-errors': { describe: 'error bodies in plain text, without a code', set: { errors: 'text' } },
  'empty-errors': { describe: 'error answers without a body', set: { errors: 'empty' } },
  'reset-delta': {
    describe: 'X-RateLimit-Reset in seconds until the reset; a 429 has no Retry-After',
    set: { reset: 'delta', retryAfter: 'none' },
  },
  'reset-unix': {
    describe: 'X-RateLimit-Reset as a unix time; a 429 has no Retry-After',
    set: { reset: 'unix', retryAfter: 'none' },
  },
  'retry-after-date': { describe: 'Retry-After as an HTTP date', set: { retryAfter: 'date' } },
  'upper-case-headers': { describe: 'rate-limit header names in upper case', set: { headerCase: 'upper' } },
  'plus-encoded-contacts': {
    describe: 'the contacts path takes only %2B<digits>; bare digits are 404',
    set: { contactPath: 'plus' },
  },
  'bare-digit-contacts': {
    describe: 'the contacts path takes only bare digits; a + is 400',
    set: { contactPath: 'digits' },
  },
};

export const DIALECT_NAMES = Object.keys(DIALECTS);

/** A list of dialect names, given as an array or as one comma-separated string. */
export const dialectListSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))
  .superRefine((names, ctx) => {
    for (const n of names) {
      if (!(n in DIALECTS))
        ctx.addIssue({ code: 'custom', message: `unknown dialect "${n}" (known: ${DIALECT_NAMES.join(', ')})` });
    }
  });

/** The facets the lists of names give, applied in order (later lists win). */
export function resolveDialect(...lists: ReadonlyArray<readonly string[] | undefined>): Dialect {
  const d: Dialect = { ...DEFAULT_DIALECT };
  for (const list of lists) for (const name of list ?? []) Object.assign(d, DIALECTS[name]?.set);
  return d;
}
