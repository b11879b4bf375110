// The window's heartbeat: app.ping every 1.5 s (every second while there is no answer); no answer
// within 2.5 s, or a failed call, marks the link down, so a host that died or hangs is said within
// about 4 s. The bridge's own signals (the event stream dropped, a new token) check at once. When
// the main side answers again (or answers from a new start), the window reloads everything it shows
// (reloadAll: teams, agents, incidents, messages, unread counts, the tunnel…), and only once all of
// it answered does it say what is shown is current; the events it may have missed are covered by
// that reload. A reload that did not fully answer is tried again at the next heartbeat.
import type { Api, ErrorDTO, PingDTO, Result, Unsubscribe } from '../../../src-shared/contract';
import type { LinkSignal } from '../bridge/web';
import type { AppStore } from './index';
import type { LinkView } from './link';

export interface LinkWatchOptions {
  host: LinkView['host'];
  /** The bridge's signals, when it has any (the web bridge's event stream). */
  signals?: { on(cb: (s: LinkSignal) => void): Unsubscribe } | null;
  /** Between heartbeats while answering. Default 1500. */
  everyMs?: number;
  /** Between heartbeats while not answering. Default 1000. */
  retryMs?: number;
  /** A heartbeat not answered within this counts as no answer. Default 2500. */
  timeoutMs?: number;
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
}

export interface LinkWatch {
  /** Checks now (e.g. when the window becomes visible again). */
  checkNow(): void;
  stop(): void;
}

const defaultTimers = {
  setTimeout: (fn: () => void, ms: number): unknown => setTimeout(fn, ms),
  clearTimeout: (h: unknown): void => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export function watchLink(store: AppStore, api: Api, opts: LinkWatchOptions): LinkWatch {
  const everyMs = opts.everyMs ?? 1500;
  const retryMs = opts.retryMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 2500;
  const timers = opts.timers ?? defaultTimers;
  const s = () => store.getState();
  s().setLinkHost(opts.host);

  let stopped = false;
  let timer: unknown = null;
  let checking = false;
  let checkAgain = false;

  // Reloads are coalesced: one at a time, and one more if asked for meanwhile.
  let reloading = false;
  let reloadAgain = false;
  const reload = async (): Promise<void> => {
    if (reloading) {
      reloadAgain = true;
      return;
    }
    reloading = true;
    try {
      let ok = false;
      do {
        reloadAgain = false;
        ok = (await s().reloadAll()) === null;
      } while (reloadAgain && !stopped);
      if (!stopped) s().linkReloaded(ok);
    } finally {
      reloading = false;
    }
  };

  const noAnswer: ErrorDTO = { kind: 'timeout', code: 'NO_ANSWER', message: `No answer within ${timeoutMs / 1000} s.` };
  /** The ping's answer, or no answer after timeoutMs (a late answer is dropped). */
  const ping = (): Promise<Result<PingDTO>> =>
    new Promise((resolve) => {
      const t = timers.setTimeout(() => resolve({ ok: false, error: noAnswer }), timeoutMs);
      const settle = (r: Result<PingDTO>): void => {
        timers.clearTimeout(t);
        resolve(r);
      };
      api['app.ping']().then(settle, (e: unknown) =>
        settle({
          ok: false,
          error: { kind: 'internal', code: 'PING_FAILED', message: e instanceof Error ? e.message : String(e) },
        }),
      );
    });

  const schedule = (): void => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = stopped ? null : timers.setTimeout(check, s().link.state === 'up' ? everyMs : retryMs);
  };

  async function check(): Promise<void> {
    if (stopped) return;
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    const r = await ping();
    checking = false;
    if (stopped) return;
    if (r.ok) {
      // Also while a reload after a recovery is still owed (the last one did not fully answer).
      if (s().linkAnswered(r.value) || (s().link.reloading !== null && !reloading)) void reload();
    } else {
      s().linkFailed(r.error);
    }
    if (checkAgain) {
      checkAgain = false;
      void check();
    } else {
      schedule();
    }
  }

  let lostOnce = false;
  const off =
    opts.signals?.on((signal) => {
      // A stream that opens again may have missed events: reload (the first open is the first load).
      if (signal === 'stream-open' && lostOnce) void reload();
      if (signal === 'stream-lost') lostOnce = true;
      if (signal !== 'stream-open') void check();
    }) ?? null;

  void check();
  return {
    checkNow: () => void check(),
    stop() {
      stopped = true;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      off?.();
    },
  };
}
