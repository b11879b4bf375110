// One POST to the local app. The transport is a port so the forwarder can be tested on a fake clock.
//
// Lanes (ordered pipelining): a request that names a `lane` (the forwarder uses the agent id) goes
// over that lane's own keep-alive connection, and requests of one lane are written to that single
// socket in the order they were sent. HTTP/1.1 answers pipelined requests in order, and the local
// app's server reads them in that order. The forwarder keeps several requests of a lane in flight
// only while the app answers well (see forwarder.ts for what happens when it stops).
//
// undici, when a pipelined connection closes under running requests, fails the head and re-sends
// the others on a new connection — that could let a later delivery overtake an earlier one that is
// about to be retried. So the first error on a lane marks it broken (synchronously, in the error
// callback): nothing more is written on it (a request reaching the socket afterwards is aborted
// before a byte is written), and the lane's client is destroyed on the next microtask — always before
// a new TCP connection could be made — so every request still queued or running on it fails too and
// stays pending in the forwarder. The next request of the lane opens a fresh connection.
// (An app that answers `connection: close` makes undici re-send the rest of the window itself, in the
// same order, on a new connection: no overtaking, at most a duplicate — at-least-once as everywhere.)
import type { Socket } from 'node:net';
import { Agent, buildConnector, Client, type Dispatcher } from 'undici';
import { ChurnSet } from '../churn';
import type { Clock } from '../ports';
import { socketWords, type Subject } from '../socket-words';
import { isHttpUrl } from '../url';
import { RESPONSE_BODY_LIMIT } from './types';

interface ForwardRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Aborted on time-out or stop. */
  readonly signal: AbortSignal;
  /** Requests of one lane share one ordered connection (see above); none: any pooled connection. */
  lane?: string;
  /** The same abort as `signal`, without an EventTarget (the built-in transport uses this). */
  cancel?: Cancel;
}

/**
 * A one-shot abort without the cost of an AbortController per request: listeners are plain
 * functions, and an AbortSignal is made only when someone asks for it.
 */
export class Cancel {
  reason: Error | null = null;
  private ac: AbortController | null = null;
  private fns: Array<(reason: Error) => void> | null = null;

  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.reason) this.ac.abort(this.reason);
    }
    return this.ac.signal;
  }

  /** Calls fn once on abort (not when already aborted: check `reason` first). */
  onAbort(fn: (reason: Error) => void): void {
    if (this.fns) this.fns.push(fn);
    else this.fns = [fn];
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.ac?.abort(reason);
    const fns = this.fns;
    this.fns = null;
    if (fns) for (const fn of fns) fn(reason);
  }
}

/** Aborts every attempt still running when the forwarder stops. */
export class Stopper {
  stopped: Error | null = null;
  private readonly live = new ChurnSet<Cancel>();

  add(c: Cancel): void {
    if (this.stopped) c.abort(this.stopped);
    else this.live.add(c);
  }

  delete(c: Cancel): void {
    this.live.delete(c);
  }

  stop(reason: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    for (const c of this.live.values()) c.abort(reason);
    this.live.clear();
  }
}

interface ForwardResponse {
  status: number;
  /** At most the first 4 KiB, utf8. */
  body: string;
}

/**
 * Resolves with the answer; rejects when there is none (refused, reset, aborted). `pipelining`:
 * how many requests of one lane it may carry at once in order (absent or 1: one at a time).
 */
export type Transport = ((req: ForwardRequest) => Promise<ForwardResponse>) & { pipelining?: number };

export interface UndiciTransport {
  transport: Transport;
  close(): Promise<void>;
}

export interface UndiciTransportOptions {
  /** Requests of one lane in flight at once on its connection (default 8; 1 disables pipelining). */
  pipelining?: number;
}

const DEFAULT_PIPELINING = 8;
const DRAIN_LIMIT = 1024 * 1024;
const KEEP_ALIVE_MS = 4_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** Collects the status and the first 4 KiB of the answer; drops the rest (up to 1 MiB). */
class Collector {
  status = 0;
  private chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  add(chunk: Buffer): boolean {
    this.seen += chunk.length;
    if (this.kept < RESPONSE_BODY_LIMIT) {
      const part =
        chunk.length <= RESPONSE_BODY_LIMIT - this.kept ? chunk : chunk.subarray(0, RESPONSE_BODY_LIMIT - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
    }
    return this.seen <= DRAIN_LIMIT;
  }

  result(): ForwardResponse {
    const body =
      this.chunks.length === 1
        ? this.chunks[0]!.toString('utf8')
        : Buffer.concat(this.chunks, this.kept).toString('utf8');
    return { status: this.status, body };
  }
}

interface Lane {
  client: Client;
  /** The lane's connection once made (see gather()). */
  socket: Socket | null;
  /** Corked until its requests are written (see gather()). */
  corked: boolean;
  /** Requests dispatched on it and not yet settled. */
  running: number;
  broken: boolean;
  /** Marks the lane broken (nothing more is written on it) and destroys its client. */
  breakIt(err: Error): void;
}

const NO_BREAK = (): void => undefined;

/**
 * Requests sent on a lane in one go (the forwarder fills a window at once) leave in one write: the
 * socket is corked before the first and uncorked once undici has written them all. On a
 * connection with requests running undici writes at once, so the uncork follows the current tick;
 * on one that was idle it writes only on the event loop's check phase, so the uncork is queued
 * after undici's own immediate. The order is the order of the writes. Returns the uncork to
 * schedule, or null (already gathering).
 */
function gather(lane: Lane): (() => void) | null {
  const socket = lane.socket;
  if (lane.corked || socket === null || socket.destroyed) return null;
  lane.corked = true;
  socket.cork();
  return () => {
    lane.corked = false;
    socket.uncork();
  };
}

/**
 * One request through a dispatcher, with undici's plain handler callbacks: no response stream, no
 * header parsing (only the status and the first 4 KiB of the body are kept), few allocations.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly out = new Collector();
  private abortFn: ((err: Error) => void) | null = null;
  private settled = false;
  private readonly signal: AbortSignal | null;
  private readonly onSignal: (() => void) | null;

  constructor(
    private readonly req: ForwardRequest,
    private readonly lane: Lane | null,
    private readonly breakLane: (err: Error) => void,
    private readonly resolve: (r: ForwardResponse) => void,
    private readonly reject: (err: Error) => void,
  ) {
    if (lane) lane.running++;
    const cancel = req.cancel;
    if (cancel) {
      this.signal = null;
      this.onSignal = null;
      cancel.onAbort((reason) => this.aborted(reason));
    } else {
      this.signal = req.signal;
      this.onSignal = () => this.aborted(this.signal!.reason);
      this.signal.addEventListener('abort', this.onSignal, { once: true });
    }
  }

  private aborted(given: unknown): void {
    const reason = given instanceof Error ? given : new Error('aborted');
    // A lane's connection goes with its aborted request (its answer can no longer be read in order).
    if (this.lane) this.breakLane(reason);
    if (this.abortFn) this.abortFn(reason);
    else this.finish(reason);
  }

  private finish(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    if (this.lane) this.lane.running--;
    if (this.onSignal) this.signal!.removeEventListener('abort', this.onSignal);
    if (err) this.reject(err);
    else {
      this.out.status = this.status;
      this.resolve(this.out.result());
    }
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
    if (this.lane?.broken) abort(new Error('the connection to the local app broke before this request was written'));
    else if (this.settled) abort(new Error('aborted'));
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (!this.out.add(chunk)) {
      const err = new Error('the local app answered more than 1 MiB');
      if (this.lane) this.breakLane(err);
      this.abortFn?.(err);
    }
    return true;
  }

  onComplete(): void {
    this.finish(null);
  }

  onError(err: Error): void {
    if (this.lane) this.breakLane(err);
    this.finish(err);
  }
}

function dispatchOnce(
  d: Dispatcher,
  target: Target,
  req: ForwardRequest,
  lane: Lane | null,
  breakLane: (err: Error) => void,
): Promise<ForwardResponse> {
  return new Promise<ForwardResponse>((resolve, reject) => {
    const early = req.cancel ? req.cancel.reason : req.signal.aborted ? req.signal.reason : null;
    if (early) return reject(early instanceof Error ? early : new Error('aborted'));
    const handler = new Exchange(req, lane, breakLane, resolve, reject);
    const headers =
      target.authorization === null ? req.headers : { ...req.headers, authorization: target.authorization };
    const opts: Dispatcher.DispatchOptions = {
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers,
      body: req.body,
    };
    // undici pipelines only requests marked idempotent and non-blocking (a POST is neither by
    // default); the lane itself guards the order (see the top of this file).
    if (lane) {
      opts.idempotent = true;
      opts.blocking = false;
    }
    try {
      d.dispatch(opts, handler);
    } catch (err) {
      handler.onError(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

interface Target {
  origin: string;
  path: string;
  http: boolean;
  /** `Basic …` from the URL's user and password (the origin leaves them out), or null. */
  authorization: string | null;
}

function basicAuthorization(u: URL): string | null {
  if (u.username === '' && u.password === '') return null;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return `Basic ${Buffer.from(`${decode(u.username)}:${decode(u.password)}`).toString('base64')}`;
}

/** Parsed forward URLs (a handful of distinct ones, parsed once each). */
class TargetCache {
  private readonly map = new Map<string, Target>();

  get(url: string): Target {
    let t = this.map.get(url);
    if (!t) {
      const u = new URL(url);
      t = {
        origin: u.origin,
        path: `${u.pathname}${u.search}`,
        http: isHttpUrl(u),
        authorization: basicAuthorization(u),
      };
      if (this.map.size >= 256) this.map.clear();
      this.map.set(url, t);
    }
    return t;
  }
}

export function createUndiciTransport(dispatcher?: Dispatcher, opts: UndiciTransportOptions = {}): UndiciTransport {
  const own = dispatcher
    ? null
    : new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, connections: 16, connect: { timeout: CONNECT_TIMEOUT_MS } });
  const shared = dispatcher ?? own!;
  // An injected dispatcher is used as it is (no lanes, one request at a time per agent).
  const depth = dispatcher ? 1 : Math.max(1, Math.floor(opts.pipelining ?? DEFAULT_PIPELINING));
  /** Origin → lane name → lane (two look-ups, no key string built per request). */
  const lanes = new Map<string, Map<string, Lane>>();
  let closed = false;

  const connector = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  const newLane = (origin: string): Lane => {
    const lane: Lane = {
      client: new Client(origin, {
        pipelining: depth,
        keepAliveTimeout: KEEP_ALIVE_MS,
        connect: (o, cb) =>
          connector(o, (...args) => {
            lane.socket = args[1];
            cb(...args);
          }),
      }),
      socket: null,
      corked: false,
      running: 0,
      broken: false,
      breakIt: (err) => {
        if (lane.broken) return;
        lane.broken = true;
        for (const byName of lanes.values()) for (const [k, l] of byName) if (l === lane) byName.delete(k);
        // Not synchronously: undici may be inside its own socket-close handling right now.
        queueMicrotask(() => void lane.client.destroy(err).catch(() => undefined));
      },
    };
    return lane;
  };

  const targets = new TargetCache();
  const transport: Transport = (req) => {
    let target: Target;
    try {
      target = targets.get(req.url);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    // An injected dispatcher is used as it is; no lane: any pooled connection.
    if (req.lane === undefined || closed || dispatcher || !target.http)
      return dispatchOnce(shared, target, req, null, NO_BREAK);
    let byName = lanes.get(target.origin);
    if (!byName) {
      byName = new Map();
      lanes.set(target.origin, byName);
    }
    let lane = byName.get(req.lane);
    if (!lane) {
      lane = newLane(target.origin);
      byName.set(req.lane, lane);
    }
    const idle = lane.running === 0;
    const uncork = gather(lane);
    const answer = dispatchOnce(lane.client, target, req, lane, lane.breakIt);
    if (uncork) {
      if (idle) setImmediate(uncork);
      else process.nextTick(uncork);
    }
    return answer;
  };
  transport.pipelining = depth;

  return {
    transport,
    close: async () => {
      closed = true;
      const all = [...lanes.values()].flatMap((byName) => [...byName.values()]);
      lanes.clear();
      await Promise.all(all.map((l) => l.client.close().catch(() => undefined)));
      await own?.close().catch(() => undefined);
    },
  };
}

export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}

const LOCAL_APP: Subject = { name: 'the local app', possessive: "the local app's" };

/** Why a forward got no answer, in words (the attempt's error, shown in the inspector and by the CLI). */
function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
    const said = typeof code === 'string' ? socketWords(code, LOCAL_APP) : undefined;
    if (!said) return err.message;
    return said.hint !== undefined ? `${said.words} (${said.hint})` : said.words;
  }
  return String(err);
}

/** A request of postOnce: its AbortSignal is made only when a transport asks for it. */
class PostRequest implements ForwardRequest {
  lane?: string;

  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    readonly cancel: Cancel,
  ) {}

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

/** POSTs once with a timeout on the injected clock; never throws. */
export async function postOnce(
  transport: Transport,
  clock: Clock,
  req: {
    url: string;
    headers: Record<string, string>;
    body: Buffer;
    timeoutMs: number;
    signal?: AbortSignal;
    stopper?: Stopper;
    lane?: string;
  },
): Promise<AttemptOutcome> {
  const started = clock.now();
  const cancel = new Cancel();
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    cancel.abort(new Error('timeout'));
  }, req.timeoutMs);
  const signal = req.signal;
  const onStop = signal ? () => cancel.abort(new Error('stopped')) : null;
  if (onStop) signal!.addEventListener('abort', onStop, { once: true });
  req.stopper?.add(cancel);
  try {
    const fr = new PostRequest(req.url, req.headers, req.body, cancel);
    if (req.lane !== undefined) fr.lane = req.lane;
    const res = await transport(fr);
    const ok = res.status >= 200 && res.status <= 299;
    return {
      status: res.status,
      error: ok ? null : `HTTP ${res.status}`,
      durationMs: clock.now() - started,
      responseBody: res.body,
    };
  } catch (err) {
    const error = timedOut ? `no answer within ${req.timeoutMs} ms` : describe(err);
    return { status: null, error, durationMs: clock.now() - started, responseBody: null };
  } finally {
    clock.clearTimeout(timer);
    if (onStop) signal!.removeEventListener('abort', onStop);
    req.stopper?.delete(cancel);
  }
}
