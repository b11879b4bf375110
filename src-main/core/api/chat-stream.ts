// POST .../chat with stream:true and Accept: text/event-stream, as an abortable async iterable.
// Service failures become one `error` event; a caller abort (abort() or the signal) ends the
// iteration quietly and releases the connection.
import { Aborted, ServiceError } from './errors';
import { mapErrorResponse, mapTransportError, tryJson } from './error-map';
import { openRequest, readText, type HttpContext, type OpenResponse } from './http';
import { headerValue } from './rate-limit';
import { parseChatResult } from './parse';
import { ChatEventDecoder } from './sse';
import type { CallOptions, ChatStream } from './service';
import type { ChatRequest, ChatStreamEvent } from './types';

function errorEvent(err: ServiceError): ChatStreamEvent {
  const ev: ChatStreamEvent = { type: 'error', code: err.code, message: err.message };
  if (err.status !== undefined) ev.status = err.status;
  return ev;
}

export function createChatStream(ctx: HttpContext, url: string, req: ChatRequest, opts: CallOptions = {}): ChatStream {
  const ctrl = new AbortController();
  const onCallerAbort = () => ctrl.abort();
  if (opts.signal?.aborted) ctrl.abort();
  else opts.signal?.addEventListener('abort', onCallerAbort, { once: true });

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
      if (res.status < 200 || res.status >= 300) {
        const text = await readText(ctx, res);
        yield errorEvent(mapErrorResponse(res.status, text, res.rateLimit, ctx.apiKey));
        return;
      }
      const contentType = (headerValue(res.headers, 'content-type') ?? '').toLowerCase();
      if (!contentType.includes('text/event-stream')) {
        // The service answered with one JSON response: a single done event.
        const body = tryJson(await readText(ctx, res));
        if (typeof body === 'object' && body !== null && !Array.isArray(body)) yield { type: 'done', result: parseChatResult(body) };
        else yield { type: 'error', status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'The chat answer was neither a token stream nor JSON.' };
        return;
      }
      const decoder = new ChatEventDecoder(ctx.apiKey);
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        for (const ev of decoder.push(chunk)) yield ev;
        if (decoder.finished) return;
      }
      for (const ev of decoder.end()) yield ev;
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
  };
}
