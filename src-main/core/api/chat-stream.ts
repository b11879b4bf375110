// POST .../chat with stream:true and Accept: text/event-stream, as an abortable async iterable.
// Whatever the answer is, it is read: a token stream (SSE, also when mislabelled), one JSON answer
// (a `done`), JSON lines, or plain streamed text; an answer without reply text is an error event
// carrying what came. The frames as received are kept (bounded) for the raw view. Service failures
// become one `error` event; a caller abort ends the iteration quietly and releases the connection.
import { Aborted, ServiceError } from './errors';
import { mapErrorResponse, mapTransportError, tryJson } from './error-map';
import { openRequest, readText, type HttpContext, type OpenResponse } from './http';
import { parseChatResult } from './chat-answer';
import { ShapeError } from './parse';
import { FrameLog, rawResponse, type FrameSnapshot } from './raw';
import { headerValue } from './rate-limit';
import { ChatEventDecoder } from './sse';
import type { CallOptions, ChatStream } from './service';
import type { ChatRequest, ChatStreamEvent } from './types';

function errorEvent(err: ServiceError): ChatStreamEvent {
  const ev: ChatStreamEvent = { type: 'error', code: err.code, message: err.message };
  if (err.status !== undefined) ev.status = err.status;
  if (err.raw !== undefined) ev.raw = err.raw;
  return ev;
}

type BodyKind = 'sse' | 'json' | 'text' | 'unreadable';

/** What the body is, from its content type and, when that is not event-stream, its first characters. */
function bodyKind(contentType: string, head: string): BodyKind {
  if (contentType.includes('text/event-stream')) return 'sse';
  const t = head.trimStart();
  if (t === '' || contentType.includes('html') || /^<(!doctype|html|\?xml)/i.test(t)) return 'unreadable';
  if (/^(data|event|id|retry)\s*:|^:/.test(t)) return 'sse';
  if (t.startsWith('{') || t.startsWith('[') || contentType.includes('json')) return 'json';
  return 'text';
}

const READ_AHEAD = 64;
const UNREADABLE = "The agent's reply could not be read";

export function createChatStream(ctx: HttpContext, url: string, req: ChatRequest, opts: CallOptions = {}): ChatStream {
  const ctrl = new AbortController();
  const onCallerAbort = () => ctrl.abort();
  if (opts.signal?.aborted) ctrl.abort();
  else opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  let frames: (head?: number, tail?: number) => FrameSnapshot = () => ({ frames: [], omitted: 0 });

  async function* run(): AsyncGenerator<ChatStreamEvent> {
    let res: OpenResponse | undefined;
    try {
      if (ctrl.signal.aborted) return;
      try {
        res = await openRequest(ctx, {
          method: 'POST',
          url,
          json: { message: req.message, user_id: req.user_id, stream: true },
          headers: { accept: 'text/event-stream' },
          signal: ctrl.signal,
          timeoutMs: opts.timeoutMs,
          timeoutHeadersOnly: true,
        });
      } catch (err) {
        if (err instanceof Aborted) return;
        yield errorEvent(mapTransportError(err, null, ctx.apiKey));
        return;
      }
      const contentType = headerValue(res.headers, 'content-type') ?? null;
      if (res.status < 200 || res.status >= 300) {
        const text = await readText(ctx, res);
        yield errorEvent(mapErrorResponse(res.status, text, res.rateLimit, ctx.apiKey, contentType));
        return;
      }
      const status = res.status;
      const openedAt = ctx.clock.now();
      const chunks = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      // Read until the first characters say what the body is (not needed for a labelled SSE stream).
      const ahead: Uint8Array[] = [];
      let head = '';
      const lowerType = (contentType ?? '').toLowerCase();
      if (!lowerType.includes('text/event-stream')) {
        const peek = new TextDecoder('utf-8');
        while (head.trim().length < READ_AHEAD) {
          const n = await chunks.next();
          if (n.done) break;
          ahead.push(n.value);
          head += peek.decode(n.value, { stream: true });
        }
      }
      const kind = bodyKind(lowerType, head);
      const rest = async function* (): AsyncGenerator<Uint8Array> {
        yield* ahead;
        for (let n = await chunks.next(); !n.done; n = await chunks.next()) yield n.value;
      };

      if (kind === 'sse' || kind === 'json') {
        const decoder = new ChatEventDecoder({
          secret: ctx.apiKey,
          recordFrames: true,
          now: () => ctx.clock.now() - openedAt,
          status,
          contentType,
        });
        frames = (h, t) => decoder.frames(h, t);
        if (kind === 'sse') {
          for await (const chunk of rest()) {
            for (const ev of decoder.push(chunk)) yield ev;
            if (decoder.finished) return;
          }
          for (const ev of decoder.end()) yield ev;
          return;
        }
        // One JSON answer (print its reply), or JSON lines read as the data of SSE frames.
        const parts: Buffer[] = [];
        for await (const chunk of rest()) parts.push(Buffer.from(chunk));
        const text = Buffer.concat(parts).toString('utf8');
        const body = tryJson(text);
        if (body !== undefined) {
          const log = new FrameLog();
          log.push({ ms: ctx.clock.now() - openedAt, event: null, id: null, data: text });
          frames = (h, t) => log.snapshot(ctx.apiKey, h, t);
          try {
            yield { type: 'done', result: parseChatResult(body) };
          } catch (err) {
            if (!(err instanceof ShapeError)) throw err;
            yield {
              type: 'error',
              status,
              code: err.code,
              message: err.message,
              raw: rawResponse(status, contentType, text, ctx.apiKey),
            };
          }
          return;
        }
        const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
        if (lines.length > 0 && lines.every((l) => tryJson(l) !== undefined)) {
          for (const ev of decoder.push(Buffer.from(lines.map((l) => `data: ${l}\n\n`).join(''), 'utf8'))) yield ev;
          for (const ev of decoder.end()) yield ev;
          return;
        }
        yield {
          type: 'error',
          status,
          code: 'UNREADABLE_REPLY',
          message: `${UNREADABLE}: the answer was not valid JSON.`,
          raw: rawResponse(status, contentType, text, ctx.apiKey),
        };
        return;
      }

      // Plain text, streamed as it comes (every chunk is a piece of the reply), or an unreadable page.
      const log = new FrameLog();
      frames = (h, t) => log.snapshot(ctx.apiKey, h, t);
      const utf8 = new TextDecoder('utf-8');
      let all = '';
      for await (const chunk of rest()) {
        const piece = utf8.decode(chunk, { stream: true });
        if (piece === '') continue;
        log.push({ ms: ctx.clock.now() - openedAt, event: null, id: null, data: piece });
        all += piece;
        if (kind === 'text') yield { type: 'token', token: piece };
      }
      all += utf8.decode();
      if (kind === 'text' && all.trim() !== '') {
        yield { type: 'done', result: { reply: all, conversationId: null, actions: [], usage: {} } };
        return;
      }
      yield {
        type: 'error',
        status,
        code: 'UNREADABLE_REPLY',
        message: `${UNREADABLE}: the answer was ${all.trim() === '' ? 'empty' : `not a token stream nor JSON (${contentType ?? 'no content type'})`}.`,
        raw: rawResponse(status, contentType, all, ctx.apiKey),
      };
    } catch (err) {
      if (ctrl.signal.aborted && res?.abortCause() !== 'timeout') return;
      const mapped = mapTransportError(err, res?.abortCause() ?? null, ctx.apiKey);
      if (mapped instanceof Aborted) return;
      yield errorEvent(mapped);
    } finally {
      opts.signal?.removeEventListener('abort', onCallerAbort);
      if (res) {
        res.release();
        if (!res.body.destroyed) res.body.destroy();
      }
    }
  }

  let iterator: AsyncGenerator<ChatStreamEvent> | undefined;
  return {
    [Symbol.asyncIterator]() {
      if (iterator) throw new Error('A chat stream can be iterated once.');
      iterator = run();
      return iterator;
    },
    abort() {
      ctrl.abort();
    },
    frames: (head, tail) => frames(head, tail),
  };
}
