// Decodes a chat token stream (ASSUMPTION A-CHAT-STREAM) from raw bytes into typed events, in the
// dialects a service may speak: named events (`token`, `delta`, `message`…), OpenAI chunks ending
// in `[DONE]`, Anthropic-style `content_block_delta` / `message_stop`, Dify-style `answer` frames
// naming their event inside the data, plain-text `data:` lines; CRLF, comments, `retry:` and `id:`
// fields. Bytes may be split anywhere, including inside a multi-byte UTF-8 character or a frame.
// A stream that ends without any reply text is an error carrying the frames as received.
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { readErrorBody, tryJson } from './error-map';
import { conversationIdOf, readChatResult, usageOf } from './chat-answer';
import { FrameLog, RAW_PREFIX_BYTES, redact, textPrefix, type FrameSnapshot } from './raw';
import type { ChatAction, ChatResult, ChatStreamEvent, ChatUsage, RawResponse } from './types';

const DONE_NAMES = new Set([
  'done',
  'end',
  'complete',
  'completed',
  'finish',
  'finished',
  'stop',
  'close',
  'message_stop',
  'message_end',
  'workflow_finished',
  'response.completed',
  'response.done',
]);
const TOKEN_NAMES = new Set([
  'token',
  'delta',
  'message',
  'text',
  'chunk',
  'content',
  'answer',
  'agent_message',
  'completion',
  'data',
  'reply',
  'output',
]);

/** Event names whose data may hold a piece of the reply (others: pings, metadata, lifecycle). */
function isTokenName(name: string): boolean {
  return TOKEN_NAMES.has(name) || name.endsWith('.delta') || name.endsWith('_delta');
}

function isErrorName(name: string): boolean {
  return name === 'error' || name.endsWith('.error') || name.endsWith('.failed');
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** The piece of reply text one JSON frame carries, if any. */
function tokenFromJson(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  const o = obj(v);
  if (!o) return undefined;
  for (const k of ['token', 'delta', 'text', 'content', 'answer', 'message']) {
    if (typeof o[k] === 'string') return o[k] as string;
  }
  // Hugging Face TGI: {"token":{"text":"…","special":false}}; special tokens are not reply text.
  const tok = obj(o.token);
  if (tok && typeof tok.text === 'string') return tok.special === true ? undefined : tok.text;
  const choice = Array.isArray(o.choices) ? obj(o.choices[0]) : undefined;
  if (choice) {
    const c = obj(choice.delta)?.content ?? obj(choice.message)?.content ?? choice.text;
    return typeof c === 'string' ? c : undefined;
  }
  const inner = obj(o.delta) ?? obj(o.message);
  if (inner) {
    const t = inner.text ?? inner.content;
    if (typeof t === 'string') return t;
  }
  return undefined;
}

/** The fast path's frame: `{"token":"…"}` with no escapes in the text. */
const TOKEN_HEAD = '{"token":"';

export interface ChatDecoderOptions {
  /** Taken out of error messages and of the frames kept. */
  secret?: string;
  /** Keep the frames as received (bounded) to show them. Default false. */
  recordFrames?: boolean;
  /** Milliseconds clock that stamps the kept frames (from the decoder's creation). */
  now?: () => number;
  /** Of the response, for the raw view of an unreadable stream. */
  status?: number;
  contentType?: string | null;
}

/** Feed bytes in, get events out; `finished` once a done or error event was produced. */
export class ChatEventDecoder {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private readonly log: FrameLog | null;
  private readonly secret: string | undefined;
  private readonly now: (() => number) | undefined;
  private readonly startedAt: number;
  private pending: ChatStreamEvent[] = [];
  private text = '';
  /** Whether any token held more than whitespace (so the whole text is never scanned for it). */
  private hasText = false;
  private bytes = 0;
  private prefix = '';
  private chunkMs = 0;
  private conversationId: string | null = null;
  private usage: ChatUsage = {};
  private actions: ChatAction[] = [];
  finished = false;

  constructor(private readonly opts: ChatDecoderOptions = {}) {
    this.secret = opts.secret;
    this.now = opts.now;
    this.startedAt = opts.now?.() ?? 0;
    this.log = opts.recordFrames ? new FrameLog() : null;
    const log = this.log;
    this.parser = createParser({
      onEvent: (ev) => this.onEvent(ev),
      ...(log
        ? {
            onComment: (comment: string) => log.push({ ...this.stamp(), event: null, id: null, data: '', comment }),
            onRetry: (retry: number) => log.push({ ...this.stamp(), event: null, id: null, data: '', retry }),
          }
        : {}),
    });
  }

  /** Everything streamed so far, joined. */
  get accumulated(): string {
    return this.text;
  }

  private stamp(): { ms?: number } {
    return this.now ? { ms: this.chunkMs } : {};
  }

  push(chunk: Uint8Array): ChatStreamEvent[] {
    this.bytes += chunk.length;
    if (this.now) this.chunkMs = Math.round(this.now() - this.startedAt);
    const s = this.decoder.decode(chunk, { stream: true });
    if (this.prefix.length < RAW_PREFIX_BYTES) this.prefix += s.slice(0, RAW_PREFIX_BYTES);
    if (!this.finished) this.parser.feed(s);
    return this.take();
  }

  /** The stream closed: flush what is left; finish with what came when the server sent no end. */
  end(): ChatStreamEvent[] {
    if (!this.finished) {
      const rest = this.decoder.decode();
      if (rest) this.parser.feed(rest);
      this.parser.feed('\n\n');
    }
    if (!this.finished) this.finish(undefined);
    return this.take();
  }

  /** The frames kept so far (recordFrames), key removed. */
  frames(head?: number, tail?: number): FrameSnapshot {
    return this.log ? this.log.snapshot(this.secret, head, tail) : { frames: [], omitted: 0 };
  }

  /** What was received, as a person may look at it. */
  raw(): RawResponse {
    const { frames, omitted } = this.frames(40, 40);
    const out: RawResponse = {
      status: this.opts.status ?? 200,
      contentType: this.opts.contentType ?? 'text/event-stream',
      bytes: this.bytes,
      prefix: redact(textPrefix(this.prefix), this.secret),
    };
    if (this.log) out.frames = frames;
    if (omitted > 0) out.framesOmitted = omitted;
    return out;
  }

  private take(): ChatStreamEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  private addToken(token: string): void {
    this.text += token;
    if (!this.hasText && token.trim() !== '') this.hasText = true;
    this.pending.push({ type: 'token', token });
  }

  /** Ends the stream with the reply of `done` (a final frame's fields, if any) or of the tokens. */
  private finish(done: Obj | undefined): void {
    this.finished = true;
    const fromDone = done ? readChatResult(done) : undefined;
    const doneHasText = fromDone !== undefined && fromDone.reply.trim() !== '';
    const reply = doneHasText ? fromDone.reply : this.text;
    if (!doneHasText && !this.hasText) {
      this.pending.push({
        type: 'error',
        status: this.opts.status ?? 200,
        code: 'UNREADABLE_REPLY',
        message: "The agent's reply could not be read: the stream ended without any reply text.",
        raw: this.raw(),
      });
      return;
    }
    const usage = fromDone && Object.keys(fromDone.usage).length > 0 ? fromDone.usage : this.usage;
    // Input and output counts from different frames (a start frame, a final delta) add up.
    if (usage.totalTokens === undefined && usage.inputTokens !== undefined && usage.outputTokens !== undefined)
      usage.totalTokens = usage.inputTokens + usage.outputTokens;
    const result: ChatResult = {
      reply,
      conversationId: fromDone?.conversationId ?? this.conversationId,
      actions: fromDone && fromDone.actions.length > 0 ? fromDone.actions : this.actions,
      usage,
    };
    if (done) result.raw = done;
    this.pending.push({ type: 'done', result });
  }

  private fail(body: unknown, plain: string): void {
    const { code, message } = readErrorBody(body);
    const status = obj(body)?.status;
    this.finished = true;
    const event: ChatStreamEvent = {
      type: 'error',
      code: code ?? 'STREAM_ERROR',
      message: redact(message ?? (plain !== '' ? plain : 'The chat stream failed.'), this.secret),
    };
    if (typeof status === 'number') event.status = status;
    this.pending.push(event);
  }

  /** Conversation id, usage and tool calls, wherever a frame carries them. */
  private harvest(o: Obj): void {
    const id = conversationIdOf(o);
    if (id !== null) this.conversationId = id;
    const usage = usageOf(o);
    if (Object.keys(usage).length > 0) this.usage = { ...this.usage, ...usage };
    const nested = obj(o.message) ?? obj(o.response);
    if (nested && nested !== o) {
      const inner = usageOf(nested);
      if (Object.keys(inner).length > 0) this.usage = { ...this.usage, ...inner };
    }
    const block = obj(o.content_block);
    if (block?.type === 'tool_use' && typeof block.name === 'string') this.actions.push({ name: block.name });
    // OpenAI tool calls arrive in pieces; the first piece of each names the function.
    const calls = obj(obj(Array.isArray(o.choices) ? o.choices[0] : undefined)?.delta)?.tool_calls;
    if (Array.isArray(calls)) {
      for (const call of calls) {
        const name = obj(obj(call)?.function)?.name;
        if (typeof name === 'string' && name !== '') this.actions.push({ name });
      }
    }
  }

  private onEvent(ev: EventSourceMessage): void {
    if (this.log) this.log.pushParsed(ev, this.now ? this.chunkMs : undefined);
    if (this.finished) return;
    const data = ev.data;
    // Fast path for the common frame (`event: token`, `data: {"token":"…"}` without escapes): a
    // slice, no JSON.parse. Anything else takes the tolerant path below.
    if (ev.event === 'token' && data.startsWith(TOKEN_HEAD) && data.endsWith('"}')) {
      const token = data.slice(TOKEN_HEAD.length, -2);
      if (token.indexOf('"') === -1 && token.indexOf('\\') === -1) {
        if (token !== '') this.addToken(token);
        return;
      }
    }
    this.tolerant(ev.event, data);
  }

  private tolerant(eventName: string | undefined, data: string): void {
    const c0 = data.charCodeAt(0);
    if ((c0 === 91 /* [ */ || c0 <= 32) && data.trim() === '[DONE]') return this.finish(undefined);
    const json = tryJson(data);
    const o = obj(json);
    // Without an `event:` field, the data may name its event itself (`event` or `type`).
    const named =
      eventName ??
      (o ? (typeof o.event === 'string' ? o.event : typeof o.type === 'string' ? o.type : undefined) : undefined);
    const name = named?.toLowerCase();
    if (o) this.harvest(o);
    if (name !== undefined && isErrorName(name)) return this.fail(json, data.trim());
    if (name !== undefined && DONE_NAMES.has(name)) return this.finish(o);
    if (name !== undefined && !isTokenName(name)) return;
    if (data === '') return;
    const token = json === undefined ? data : tokenFromJson(json);
    if (token === undefined && eventName === undefined && o && (o.error !== undefined || o.errors !== undefined))
      return this.fail(json, data.trim());
    if (token === undefined || token === '') return;
    this.addToken(token);
  }
}
