// Decodes the chat token stream (ASSUMPTION A-CHAT-STREAM) from raw bytes into typed events.
// Bytes may be split anywhere, including inside a multi-byte UTF-8 character or an SSE frame.
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { readErrorBody, redact, tryJson } from './error-map';
import { parseChatResult } from './parse';
import type { ChatResult, ChatStreamEvent } from './types';

const DONE_EVENTS = new Set(['done', 'end', 'complete', 'completed']);
const TOKEN_EVENTS = new Set(['token', 'message', 'delta', 'chunk', 'text']);

function tokenFromJson(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  for (const k of ['token', 'delta', 'text', 'content']) {
    if (typeof o[k] === 'string') return o[k] as string;
  }
  const choices = o.choices;
  if (Array.isArray(choices)) {
    const delta = (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta;
    if (typeof delta?.content === 'string') return delta.content;
  }
  if (typeof o.delta === 'object' && o.delta !== null) {
    const inner = (o.delta as Record<string, unknown>).content ?? (o.delta as Record<string, unknown>).text;
    if (typeof inner === 'string') return inner;
  }
  return undefined;
}

/** Feed bytes in, get events out; `finished` once a done or error event was produced. */
export class ChatEventDecoder {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private pending: ChatStreamEvent[] = [];
  private text = '';
  finished = false;

  constructor(private readonly secret?: string) {
    this.parser = createParser({ onEvent: (ev) => this.onEvent(ev) });
  }

  /** Everything streamed so far, joined. */
  get accumulated(): string {
    return this.text;
  }

  push(chunk: Uint8Array): ChatStreamEvent[] {
    if (!this.finished) this.parser.feed(this.decoder.decode(chunk, { stream: true }));
    return this.take();
  }

  /** The stream closed: flush what is left; synthesise `done` when the server sent no end. */
  end(): ChatStreamEvent[] {
    if (!this.finished) {
      const rest = this.decoder.decode();
      if (rest) this.parser.feed(rest);
      this.parser.feed('\n\n');
    }
    if (!this.finished) this.emitDone(this.synthesised());
    return this.take();
  }

  private take(): ChatStreamEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  private synthesised(): ChatResult {
    return { reply: this.text, conversationId: null, actions: [], usage: {} };
  }

  private emitDone(result: ChatResult): void {
    this.finished = true;
    this.pending.push({ type: 'done', result });
  }

  private onEvent(ev: EventSourceMessage): void {
    if (this.finished) return;
    const data = ev.data;
    // Fast path for the common frame (`event: token`, `data: {"token":"…"}`): one JSON.parse, no
    // trimming or lower-casing. Anything unusual falls through to the tolerant path below.
    if (ev.event === 'token' && data.charCodeAt(0) === 123 /* { */) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = undefined;
      }
      const direct = (parsed as { token?: unknown } | undefined)?.token;
      if (typeof direct === 'string') {
        if (direct !== '') {
          this.text += direct;
          this.pending.push({ type: 'token', token: direct });
        }
        return;
      }
    }
    const name = ev.event?.toLowerCase();
    if (data.charCodeAt(0) === 91 /* [ */ || data.charCodeAt(0) <= 32) {
      if (data.trim() === '[DONE]') return this.emitDone(this.synthesised());
    }
    if (name !== undefined && DONE_EVENTS.has(name)) {
      const body = tryJson(data);
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
        const result = parseChatResult(body);
        if (result.reply === '') result.reply = this.text;
        return this.emitDone(result);
      }
      return this.emitDone(this.synthesised());
    }
    if (name === 'error') {
      const body = tryJson(data);
      const { code, message } = readErrorBody(body);
      const status = (body as { status?: unknown } | undefined)?.status;
      const plain = body === undefined && data.trim() !== '' ? data.trim() : undefined;
      this.finished = true;
      const event: ChatStreamEvent = {
        type: 'error',
        code: code ?? 'STREAM_ERROR',
        message: redact(message ?? plain ?? 'The chat stream failed.', this.secret),
      };
      if (typeof status === 'number') event.status = status;
      this.pending.push(event);
      return;
    }
    if (name !== undefined && !TOKEN_EVENTS.has(name)) return; // unknown event kinds carry no token
    if (data === '') return;
    const json = tryJson(data);
    const token = json === undefined ? data : tokenFromJson(json);
    if (token === undefined || token === '') return;
    this.text += token;
    this.pending.push({ type: 'token', token });
  }
}
