// A client of a companion: the contract's requests and events, whichever way the companion is reached — over
// its local endpoint (another process owns the data folder), over HTTP with a token (a browser host), or in
// this process (the command started the companion itself). Every command of the CLI talks to the companion
// through this one interface, so what it prints is what the screens show.
import { Agent, request as httpRequest, type Dispatcher } from 'undici';
import { createParser } from 'eventsource-parser';
import {
  isEventName,
  type AnyEvent,
  type ArgsOf,
  type ErrorDTO,
  type EventName,
  type Events,
  type RequestName,
  type Result,
  type ResultOf,
} from '../../src-shared/contract';
import { AppError } from './errors';
import { backoffDelay, type BackoffPolicy } from './backoff';
import type { Handlers } from './handlers';
import type { ContractEvents } from './contract';

/** A request the companion answered with an error: the contract's ErrorDTO, as an Error. */
export class ContractError extends AppError {
  constructor(readonly dto: ErrorDTO) {
    super(dto.kind, dto.code, dto.message, dto.field);
    this.name = 'ContractError';
  }
}

/** The companion could not be reached (it stopped, or its socket does not answer). */
class CompanionGoneError extends AppError {
  constructor(message: string) {
    super('network-error', 'COMPANION_GONE', message);
    this.name = 'CompanionGoneError';
  }
}

export interface ContractClient {
  /** Asks the companion; its error answers are thrown as ContractError. */
  request<K extends RequestName>(name: K, args: ArgsOf<K>): Promise<ResultOf<K>>;
  /** Listens to one event (the stream opens on the first listener); returns the unsubscribe. */
  on<E extends EventName>(name: E, fn: (payload: Events[E]) => void): () => void;
  /** Resolves once events are flowing (every event the companion publishes after this is seen). */
  listening(): Promise<void>;
  /** The event stream broke (the companion stopped): called once. */
  onClose(fn: (why: string) => void): () => void;
  close(): Promise<void>;
}

function unwrap<T>(r: Result<T>): T {
  if (r.ok) return r.value;
  throw new ContractError(r.error);
}

type Listeners = Map<EventName, Set<(p: unknown) => void>>;

function dispatch(listeners: Listeners, e: AnyEvent): void {
  for (const fn of listeners.get(e.name) ?? []) fn(e.payload);
}

function addListener(listeners: Listeners, name: EventName, fn: (p: unknown) => void): () => void {
  let set = listeners.get(name);
  if (!set) listeners.set(name, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** A client of a companion running in this process. */
export function localClient(handlers: Handlers, events: ContractEvents): ContractClient {
  const listeners: Listeners = new Map();
  const closers = new Set<(why: string) => void>();
  let off: (() => void) | null = null;
  return {
    async request(name, args) {
      const h = handlers[name] as (raw: unknown) => Promise<Result<never>>;
      return unwrap(await h(args));
    },
    on(name, fn) {
      off ??= events.onAny((e) => dispatch(listeners, e));
      return addListener(listeners, name, fn as (p: unknown) => void);
    },
    async listening() {
      off ??= events.onAny((e) => dispatch(listeners, e));
    },
    onClose(fn) {
      closers.add(fn);
      return () => closers.delete(fn);
    },
    async close() {
      off?.();
      off = null;
      listeners.clear();
    },
  };
}

export interface RemoteTarget {
  /** A Unix socket or named pipe (the local endpoint) … */
  socketPath?: string;
  /** … or an origin such as http://127.0.0.1:8080 (a browser host, a hub). */
  origin?: string;
  /** Sent as Authorization: Bearer (browser hosts, hubs); never logged. */
  token?: string;
  /** Per request (ms); default 60 s. */
  timeoutMs?: number;
  /**
   * A stream whose events carry ids (a hub's) is opened again after it drops, from the last id seen, for up
   * to this long before onClose (ms; default 60 s). A stream without ids (the local endpoint, a browser
   * host) ends at once, as before.
   */
  resumeForMs?: number;
}

/** The waits between attempts to open a dropped event stream again. */
const RESUME: BackoffPolicy = { baseMs: 250, maxMs: 5_000, jitter: 0.2 };

/** The companion refused the event stream (the token, the role): no point asking again. */
class StreamRefused extends Error {}

/** A client of a companion in another process, over HTTP (its local endpoint's socket, or a URL). */
export function remoteClient(target: RemoteTarget): ContractClient {
  const dispatcher: Dispatcher = new Agent({
    ...(target.socketPath ? { connect: { socketPath: target.socketPath } } : {}),
    headersTimeout: target.timeoutMs ?? 60_000,
    bodyTimeout: 0,
  });
  const base = target.origin ?? 'http://companion';
  const auth: Record<string, string> = target.token ? { authorization: `Bearer ${target.token}` } : {};
  const listeners: Listeners = new Map();
  const closers = new Set<(why: string) => void>();
  let stream: AbortController | null = null;
  let closed = false;

  const gone = (e: unknown): CompanionGoneError =>
    new CompanionGoneError(
      `The companion does not answer (${e instanceof Error ? e.message : String(e)}): it may have stopped.`,
    );

  let ended = false;
  const end = (why: string): void => {
    if (closed || ended) return;
    ended = true;
    for (const fn of closers) fn(why);
  };

  /** The id of the last event the stream carried: where it resumes (null: the stream has no ids). */
  let lastId: string | null = null;

  /** One attempt to open the event stream: its response once the headers came back with 200. */
  async function connect(): Promise<Dispatcher.ResponseData> {
    const ac = new AbortController();
    stream = ac;
    let res: Dispatcher.ResponseData;
    try {
      res = await httpRequest(`${base}/api/events`, {
        method: 'GET',
        headers: lastId !== null ? { ...auth, 'last-event-id': lastId } : auth,
        dispatcher,
        signal: ac.signal,
      });
    } catch (e) {
      throw gone(e);
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      const why = `the companion refused its events (HTTP ${res.statusCode})`;
      throw res.statusCode === 401 || res.statusCode === 403 ? new StreamRefused(why) : new CompanionGoneError(why);
    }
    return res;
  }

  /** Opens the event stream; resolves once its headers came back, then reads it in the background. */
  async function openStream(): Promise<void> {
    let res: Dispatcher.ResponseData;
    try {
      res = await connect();
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      end(why);
      throw e instanceof StreamRefused ? new CompanionGoneError(why) : e;
    }
    void readStream(res);
  }

  /** The stream dropped: opened again from the last id, with backoff, until resumeForMs has passed. */
  async function resume(why: string): Promise<void> {
    const until = Date.now() + (target.resumeForMs ?? 60_000);
    for (let attempt = 1; !closed; attempt++) {
      await new Promise((r) => setTimeout(r, backoffDelay(RESUME, attempt)));
      if (closed) return;
      try {
        const res = await connect();
        void readStream(res);
        return;
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
        if (e instanceof StreamRefused || Date.now() >= until) break;
      }
    }
    end(why);
  }

  async function readStream(res: Dispatcher.ResponseData): Promise<void> {
    const parser = createParser({
      onEvent(ev) {
        if (ev.id !== undefined) lastId = ev.id;
        const name = ev.event ?? '';
        if (!isEventName(name)) return;
        let payload: unknown;
        try {
          payload = JSON.parse(ev.data);
        } catch {
          return;
        }
        dispatch(listeners, { name, payload } as AnyEvent);
      },
    });
    let why = 'the companion stopped';
    try {
      for await (const chunk of res.body) parser.feed((chunk as Buffer).toString('utf8'));
    } catch (e) {
      why = gone(e).message;
    }
    if (closed) return;
    // A stream with ids (a hub's) resumes where it stopped, on whichever replica answers the origin.
    if (lastId !== null && !target.socketPath) void resume(why);
    else end(why);
  }

  let streamReady: Promise<void> | null = null;
  const listen = (): Promise<void> => (streamReady ??= openStream());

  return {
    async request(name, args) {
      let res: Dispatcher.ResponseData;
      try {
        res = await httpRequest(`${base}/api/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body: JSON.stringify(args ?? {}),
          dispatcher,
        });
      } catch (e) {
        throw gone(e);
      }
      const text = await res.body.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new CompanionGoneError(`The companion answered HTTP ${res.statusCode} with something that is not JSON.`);
      }
      if (typeof body === 'object' && body !== null && 'ok' in body)
        return unwrap(body as Result<ResultOf<typeof name>>);
      throw new CompanionGoneError(`The companion answered HTTP ${res.statusCode} without a result.`);
    },
    on(name, fn) {
      listen().catch(() => undefined);
      return addListener(listeners, name, fn as (p: unknown) => void);
    },
    listening: listen,
    onClose(fn) {
      closers.add(fn);
      return () => closers.delete(fn);
    },
    async close() {
      closed = true;
      stream?.abort();
      listeners.clear();
      await dispatcher.close().catch(() => undefined);
    },
  };
}
