// One HTTP exchange with the service: bearer key, JSON bodies, per-call timeout (one timer shared by
// a client's calls) combined with the caller's AbortSignal, rate-limit headers read from every
// answer, errors mapped by meaning.
import { Agent, request, util, type Dispatcher } from 'undici';
import type { Deadline, Deadlines } from '../deadlines';
import type { Clock } from '../ports';
import { mapErrorResponse, mapTransportError, tryJson, type AbortCause } from './error-map';
import { headerValue, parseRateLimit, type HeaderBag } from './rate-limit';
import type { RateLimitInfo } from './types';

type BodyReadable = Dispatcher.ResponseData['body'];

export interface HttpContext {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
  clock: Clock;
  /** The per-call timeouts, on `clock`. */
  deadlines: Deadlines;
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
  /** Why the request was aborted (caller abort, or a timeout that covers the body), if it was. */
  abortCause(): AbortCause;
  /** Stops the timeout and the link to the caller's signal. Call once the body is consumed. */
  release(): void;
}

export function createDefaultDispatcher(): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
}

export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
}

type AbortListener = () => void;

const parseHeaders = util.parseHeaders;

/**
 * How one request is aborted: by the caller's signal (see watchCaller) or by its timeout. It is
 * also the signal undici watches: undici takes any object with `on`/`once`/`removeListener` in place
 * of an AbortSignal, and this one is a plain object with a short list of listeners, far cheaper
 * to make per request than an AbortController or an EventEmitter.
 */
class RequestAbort {
  aborted = false;
  reason: Error | undefined = undefined;
  cause: AbortCause = null;
  deadline: Deadline | null = null;
  private listeners: AbortListener[] | null = null;

  constructor(readonly caller: AbortSignal | undefined) {}

  /** undici's listener; it hears the abort once. */
  on(_event: 'abort', fn: AbortListener): this {
    if (this.listeners) this.listeners.push(fn);
    else this.listeners = [fn];
    return this;
  }

  once(event: 'abort', fn: AbortListener): this {
    return this.on(event, fn);
  }

  removeListener(_event: 'abort', fn: AbortListener): this {
    const at = this.listeners?.indexOf(fn) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
    return this;
  }

  abort(cause: 'aborted' | 'timeout'): void {
    if (cause === 'timeout') this.deadline = null;
    if (this.aborted) return;
    this.cause = cause;
    this.aborted = true;
    this.reason = new Error(cause === 'timeout' ? 'timed out' : 'aborted by caller');
    const fns = this.listeners;
    this.listeners = null;
    if (fns) for (const fn of fns) fn();
  }

  stopTimeout(): void {
    this.deadline?.cancel();
    this.deadline = null;
  }

  release(): void {
    this.stopTimeout();
    if (this.caller) callers.get(this.caller)?.delete(this);
  }
}

/**
 * The requests running under each caller signal. A signal gets one listener for its whole life
 * (a poller reuses one signal for an agent's polls), not one added and removed per request:
 * listeners on an AbortSignal cost far more than a set entry.
 */
const callers = new WeakMap<AbortSignal, Set<RequestAbort>>();

function watchCaller(signal: AbortSignal, a: RequestAbort): void {
  const running = callers.get(signal);
  if (running) {
    running.add(a);
    return;
  }
  const set = new Set([a]);
  callers.set(signal, set);
  signal.addEventListener(
    'abort',
    () => {
      callers.delete(signal);
      for (const r of set) r.abort('aborted');
    },
    { once: true },
  );
}

const onTimeout = (a: RequestAbort) => a.abort('timeout');

/** What every request starts with: its abort (caller's signal, timeout), headers and JSON body. */
function prepare(
  ctx: HttpContext,
  spec: RequestSpec,
): { abort: RequestAbort; headers: Record<string, string>; body: string | undefined } {
  const abort = new RequestAbort(spec.signal);
  if (spec.signal?.aborted) abort.abort('aborted');
  else if (spec.signal) watchCaller(spec.signal, abort);
  abort.deadline = ctx.deadlines.add(spec.timeoutMs ?? ctx.timeoutMs, onTimeout, abort);
  const headers: Record<string, string> = spec.headers
    ? { accept: 'application/json', ...spec.headers }
    : { accept: 'application/json' };
  if (spec.auth !== false) headers.authorization = `Bearer ${ctx.apiKey}`;
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] = 'application/json';
  }
  return { abort, headers, body };
}

/** Sends the request and returns once headers arrive; throws a mapped error on transport failure. */
export async function openRequest(ctx: HttpContext, spec: RequestSpec): Promise<OpenResponse> {
  const { abort, headers, body } = prepare(ctx, spec);
  let res: Dispatcher.ResponseData;
  try {
    if (abort.aborted) throw new Error('aborted before start');
    res = await request(spec.url, { method: spec.method, headers, body, signal: abort, dispatcher: ctx.dispatcher });
  } catch (err) {
    abort.release();
    throw mapTransportError(err, abort.cause, ctx.apiKey);
  }
  if (spec.timeoutHeadersOnly) abort.stopTimeout();
  const rateLimit = parseRateLimit(res.headers, ctx.clock.now());
  ctx.onRateLimit(rateLimit, { method: spec.method, url: spec.url });
  return new Opened(res, rateLimit, abort);
}

class Opened implements OpenResponse {
  readonly status: number;
  readonly headers: HeaderBag;
  readonly body: BodyReadable;

  constructor(
    res: Dispatcher.ResponseData,
    readonly rateLimit: RateLimitInfo,
    private readonly abort: RequestAbort,
  ) {
    this.status = res.statusCode;
    this.headers = res.headers;
    this.body = res.body;
  }

  abortCause(): AbortCause {
    return this.abort.cause;
  }

  release(): void {
    this.abort.release();
  }
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

/** Where a request goes, as undici's dispatch takes it. */
interface Target {
  origin: string;
  path: string;
}

/** Parsed request URLs: the service's few origins, each parsed (and so checked) once. */
const origins = new Map<string, string>();

function targetOf(url: string): Target {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const head = slash < 0 ? url : url.slice(0, slash);
  let origin = origins.get(head);
  if (origin === undefined) {
    origin = new URL(head).origin;
    if (origins.size >= 64) origins.clear();
    origins.set(head, origin);
  }
  return { origin, path: slash < 0 ? '/' : url.slice(slash) };
}

/**
 * One whole exchange through undici's handler callbacks: the answer is gathered into one buffer,
 * with no response stream, body mixin or request wrapper made per call (a monitor makes a thousand
 * of these every few seconds).
 */
class Gather implements Dispatcher.DispatchHandler {
  status = 0;
  headers: HeaderBag = {};
  /** Set once the headers arrived. */
  rateLimit: RateLimitInfo | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private abortFn: ((err: Error) => void) | null = null;
  private settled = false;
  /** Aborted while still queued for a connection: settled at once, dropped when undici gets to it. */
  private readonly onAbort = () => {
    const reason = this.abort.reason ?? new Error('aborted');
    if (this.abortFn) this.abortFn(reason);
    else this.finish(reason, '');
  };

  constructor(
    private readonly ctx: HttpContext,
    private readonly abort: RequestAbort,
    private readonly done: (err: Error | null, text: string) => void,
  ) {
    abort.on('abort', this.onAbort);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
    if (this.settled) abort(this.abort.reason ?? new Error('aborted'));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    this.headers = parseHeaders(rawHeaders) as HeaderBag;
    this.rateLimit = parseRateLimit(this.headers, this.ctx.clock.now());
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  onComplete(): void {
    this.finish(
      null,
      this.chunks.length === 1
        ? this.chunks[0]!.toString('utf8')
        : Buffer.concat(this.chunks, this.size).toString('utf8'),
    );
  }

  onError(err: Error): void {
    this.finish(err, '');
  }

  private finish(err: Error | null, text: string): void {
    if (this.settled) return;
    this.settled = true;
    this.abort.removeListener('abort', this.onAbort);
    this.done(err, text);
  }
}

/** A request whose answer is JSON (or empty). Non-2xx answers throw their mapped error. */
export function requestJson(ctx: HttpContext, spec: RequestSpec): Promise<JsonResponse> {
  return new Promise<JsonResponse>((resolve, reject) => {
    const { abort, headers, body } = prepare(ctx, spec);
    const g = new Gather(ctx, abort, (err, text) => {
      abort.release();
      const rateLimit = g.rateLimit;
      if (rateLimit) ctx.onRateLimit(rateLimit, { method: spec.method, url: spec.url });
      if (err) return reject(mapTransportError(err, abort.cause, ctx.apiKey, rateLimit ?? {}));
      const contentType = headerValue(g.headers, 'content-type') ?? null;
      if (g.status < 200 || g.status >= 300)
        return reject(mapErrorResponse(g.status, text, rateLimit!, ctx.apiKey, contentType));
      resolve({ status: g.status, headers: g.headers, rateLimit: rateLimit!, json: tryJson(text), text, contentType });
    });
    if (abort.aborted) return g.onError(abort.reason ?? new Error('aborted'));
    try {
      const { origin, path } = targetOf(spec.url);
      ctx.dispatcher.dispatch({ origin, path, method: spec.method, headers, body }, g);
    } catch (err) {
      g.onError(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
