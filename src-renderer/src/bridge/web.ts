// The browser bridge: POST /api/<request> with the token in a header, and contract events read from
// GET /api/events with fetch (EventSource cannot send headers; the token never goes in a URL).
// The token comes from location.hash (#token=…), is removed from the URL, and kept in sessionStorage;
// a new link opened in the same tab (a restarted host prints a new token) replaces it at once.
// The event stream reconnects by itself and tells the window's link watcher when it opens or drops.
import { createParser } from 'eventsource-parser';
import {
  REQUEST_NAMES,
  isEventName,
  type Api,
  type EventName,
  type Events,
  type Result,
  type Unsubscribe,
} from '../../../src-shared/contract';

const TOKEN_KEY = 'cc.token';

export interface WebEnv {
  location: { hash: string; pathname: string; search: string; origin: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage: Pick<Storage, 'getItem' | 'setItem'>;
  fetch: typeof fetch;
  setTimeout(fn: () => void, ms: number): unknown;
  /** Calls fn on each hashchange (a link with a new #token=… opened in this tab). */
  onHashChange?(fn: () => void): void;
}

/** What the bridge tells about its connection: the event stream opened or dropped, or the token changed. */
export type LinkSignal = 'stream-open' | 'stream-lost' | 'token-changed';

export interface LinkSignals {
  on(cb: (signal: LinkSignal) => void): Unsubscribe;
}

export interface WebBridge {
  api: Api;
  signals: LinkSignals;
}

/** The event stream tries again this soon after a network failure (the host may be restarting)… */
const STREAM_RETRY_MS = 1000;
/** …and this soon after an HTTP error (e.g. a token the host no longer accepts). */
const STREAM_REFUSED_RETRY_MS = 5000;

/** Reads #token=… once, strips it from the address bar, and remembers it for this tab. */
function takeToken(env: Pick<WebEnv, 'location' | 'history' | 'sessionStorage'>): string | null {
  const params = new URLSearchParams(env.location.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash) {
    env.sessionStorage.setItem(TOKEN_KEY, fromHash);
    params.delete('token');
    const rest = params.toString();
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}${rest ? `#${rest}` : ''}`);
    return fromHash;
  }
  return env.sessionStorage.getItem(TOKEN_KEY);
}

const NO_TOKEN: Result<never> = {
  ok: false,
  error: {
    kind: 'forbidden',
    code: 'NO_TOKEN',
    message: 'Open the full link printed by `channel-companion serve` (it carries the access token).',
  },
};

export function webBridge(env: WebEnv): WebBridge {
  let token = takeToken(env);
  const signalled = new Set<(s: LinkSignal) => void>();
  const signal = (s: LinkSignal): void => {
    for (const cb of [...signalled]) cb(s);
  };
  const headers = (): Record<string, string> => ({
    authorization: `Bearer ${token ?? ''}`,
    'content-type': 'application/json',
  });

  const call = async (name: string, args: unknown): Promise<Result<unknown>> => {
    if (!token) return NO_TOKEN;
    try {
      const res = await env.fetch(`/api/${name}`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify(args ?? {}),
      });
      const body = (await res.json().catch(() => null)) as Result<unknown> | null;
      if (body && typeof body === 'object' && 'ok' in body) return body;
      return {
        ok: false,
        error: {
          kind: 'internal',
          code: `HTTP_${res.status}`,
          message: `The companion answered ${res.status}.`,
          status: res.status,
        },
      };
    } catch {
      return {
        ok: false,
        error: {
          kind: 'network-error',
          code: 'HOST_UNREACHABLE',
          message: 'The companion is not reachable; is it still running?',
        },
      };
    }
  };

  // One shared event stream for every on(); reconnects with a short backoff.
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  let streaming = false;
  let controller: AbortController | null = null;
  const dispatch = (name: string, data: string): void => {
    if (!isEventName(name)) return;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return;
    }
    for (const cb of listeners.get(name) ?? []) cb(payload);
  };
  const openStream = async (): Promise<void> => {
    if (!token) return;
    const mine = new AbortController();
    controller = mine;
    let retryMs = STREAM_RETRY_MS;
    let open = false;
    try {
      const res = await env.fetch('/api/events', {
        headers: { authorization: `Bearer ${token}` },
        signal: mine.signal,
      });
      if (!res.ok || !res.body) {
        retryMs = STREAM_REFUSED_RETRY_MS;
        throw new Error(`events ${res.status}`);
      }
      open = true;
      signal('stream-open');
      const parser = createParser({ onEvent: (e) => dispatch(e.event ?? 'message', e.data) });
      // Decoded in the loop (no TextDecoderStream stage): one chunk's events are dispatched in the
      // task that read it, with no extra stream hop per chunk.
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // fall through to reconnect
    }
    if (open) signal('stream-lost');
    if (streaming && !mine.signal.aborted) env.setTimeout(() => void openStream(), retryMs);
  };
  env.onHashChange?.(() => {
    const next = takeToken(env);
    if (!next || next === token) return;
    token = next;
    signal('token-changed');
    if (streaming) {
      // The stream of the old token ends here; one with the new token starts at once.
      controller?.abort();
      void openStream();
    }
  });
  const total = (): number => [...listeners.values()].reduce((n, s) => n + s.size, 0);

  const api: Record<string, unknown> = {};
  for (const name of REQUEST_NAMES) api[name] = (args?: unknown) => call(name, args);
  api['on'] = <E extends EventName>(event: E, cb: (payload: Events[E]) => void): Unsubscribe => {
    if (!listeners.has(event)) listeners.set(event, new Set());
    const set = listeners.get(event)!;
    const fn = cb as (p: unknown) => void;
    set.add(fn);
    if (!streaming) {
      streaming = true;
      void openStream();
    }
    return () => {
      set.delete(fn);
      if (total() === 0) {
        streaming = false;
        controller?.abort();
      }
    };
  };
  const signals: LinkSignals = {
    on(cb) {
      signalled.add(cb);
      return () => void signalled.delete(cb);
    },
  };
  return { api: api as Api, signals };
}
