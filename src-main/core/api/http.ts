// One HTTP exchange with the service: bearer key, JSON bodies, per-call timeout combined with the
// caller's AbortSignal, rate-limit headers read from every answer, errors mapped by meaning.
import { Agent, request, type Dispatcher } from 'undici';
import type { Clock } from '../ports';
import { mapErrorResponse, mapTransportError, tryJson, type AbortCause } from './error-map';
import { headerValue, parseRateLimit, type HeaderBag } from './rate-limit';
import type { RateLimitInfo } from './types';

export type BodyReadable = Dispatcher.ResponseData['body'];

export interface HttpContext {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
  clock: Clock;
  timeoutMs: number;
  /** Called with the rate-limit headers of every answer (success or error). */
  onRateLimit(info: RateLimitInfo, req: { method: string; url: string }): void;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL. */
  url: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** Whether to send the API key. Callers decide by origin (media redirects). Default true. */
  auth?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** When true the timeout stops once headers arrive (long bodies: streams, downloads). */
  timeoutHeadersOnly?: boolean;
}

export interface OpenResponse {
  status: number;
  headers: HeaderBag;
  body: BodyReadable;
  rateLimit: RateLimitInfo;
  /** Aborted on caller abort or (for timeouts that cover the body) on timeout. */
  signal: AbortSignal;
  /** Why the signal fired, if it did. */
  abortCause(): AbortCause;
  /** Clears the timer and the link to the caller's signal. Call once the body is consumed. */
  release(): void;
}

export function createDefaultDispatcher(): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
}

export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** Sends the request and returns once headers arrive; throws a mapped error on transport failure. */
export async function openRequest(ctx: HttpContext, spec: RequestSpec): Promise<OpenResponse> {
  const ctrl = new AbortController();
  let cause: AbortCause = null;
  const timeoutMs = spec.timeoutMs ?? ctx.timeoutMs;
  const onCallerAbort = () => {
    if (cause === null) cause = 'aborted';
    ctrl.abort(new Error('aborted by caller'));
  };
  if (spec.signal?.aborted) onCallerAbort();
  spec.signal?.addEventListener('abort', onCallerAbort, { once: true });
  let timer: unknown = ctx.clock.setTimeout(() => {
    timer = undefined;
    if (cause === null) cause = 'timeout';
    ctrl.abort(new Error('timed out'));
  }, timeoutMs);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (timer !== undefined) ctx.clock.clearTimeout(timer);
    timer = undefined;
    spec.signal?.removeEventListener('abort', onCallerAbort);
  };

  const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
  if (spec.auth !== false) headers.authorization = `Bearer ${ctx.apiKey}`;
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] = 'application/json';
  }

  let res: Dispatcher.ResponseData;
  try {
    if (ctrl.signal.aborted) throw new Error('aborted before start');
    res = await request(spec.url, {
      method: spec.method,
      headers,
      body,
      signal: ctrl.signal,
      dispatcher: ctx.dispatcher,
    });
  } catch (err) {
    release();
    throw mapTransportError(err, cause, ctx.apiKey);
  }
  if (spec.timeoutHeadersOnly && timer !== undefined) {
    ctx.clock.clearTimeout(timer);
    timer = undefined;
  }
  const rateLimit = parseRateLimit(res.headers, ctx.clock.now());
  ctx.onRateLimit(rateLimit, { method: spec.method, url: spec.url });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: res.body,
    rateLimit,
    signal: ctrl.signal,
    abortCause: () => cause,
    release,
  };
}

/** Reads the whole body as text; transport failures while reading are mapped too. */
export async function readText(ctx: HttpContext, res: OpenResponse): Promise<string> {
  try {
    return await res.body.text();
  } catch (err) {
    throw mapTransportError(err, res.abortCause(), ctx.apiKey, res.rateLimit);
  } finally {
    res.release();
  }
}

export interface JsonResponse {
  status: number;
  headers: HeaderBag;
  rateLimit: RateLimitInfo;
  /** Parsed JSON, or undefined for an empty / non-JSON body. */
  json: unknown;
  /** The body as received. */
  text: string;
  contentType: string | null;
}

/** A request whose answer is JSON (or empty). Non-2xx answers throw their mapped error. */
export async function requestJson(ctx: HttpContext, spec: RequestSpec): Promise<JsonResponse> {
  const res = await openRequest(ctx, spec);
  const text = await readText(ctx, res);
  const contentType = headerValue(res.headers, 'content-type') ?? null;
  if (res.status < 200 || res.status >= 300) throw mapErrorResponse(res.status, text, res.rateLimit, ctx.apiKey, contentType);
  return { status: res.status, headers: res.headers, rateLimit: res.rateLimit, json: tryJson(text), text, contentType };
}
