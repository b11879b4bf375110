// The window's link to the main side (the browser host, or Electron's main process): whether it
// answers, since when it does not, and when it was last heard. While it does not answer, what the
// window shows is old: agents read as unknown (isStale) and a banner says so (watchLink keeps this
// current; see liveness.ts).
import type { ErrorDTO, PingDTO } from '../../../src-shared/contract';
import type { Slice } from './env';

/** starting: not heard yet; up: answering; down: no answer; refused: it answers but refuses this window (its token). */
type LinkState = 'starting' | 'up' | 'down' | 'refused';

export interface LinkView {
  state: LinkState;
  /** Where the main side runs, for the words of the banner. */
  host: 'desktop' | 'browser';
  /** When it last answered (this window's clock). */
  lastHeardAt: number | null;
  /** Since when it has not answered (down or refused). */
  downSince: number | null;
  /** The main side's start time from its last answer: a new one means it restarted. */
  upSince: number | null;
  /** Why it is down or refused. */
  error: ErrorDTO | null;
  /**
   * When it answered again after not answering and everything shown was read again (null until that
   * happens, and while that reading goes on).
   */
  recoveredAt: number | null;
  /**
   * What is shown is being read again (it answered again, or answers from a new start): not current
   * until that reading is done. null: nothing to read again.
   */
  reloading: null | 'recovered' | 'restarted';
}

export interface LinkSlice {
  link: LinkView;
  setLinkHost(host: LinkView['host']): void;
  /** The main side answered; true when the window must reload its data (it was not answering, or it restarted). */
  linkAnswered(ping: PingDTO): boolean;
  /** A heartbeat failed: down, or refused when the answer was a refusal. */
  linkFailed(error: ErrorDTO): void;
  /** What is shown was read again (`ok`: all of it answered): after a recovery, it is current now. */
  linkReloaded(ok: boolean): void;
}

export const linkSlice: Slice<LinkSlice> = ({ set, get, env }) => ({
  link: {
    state: 'starting',
    host: 'desktop',
    lastHeardAt: null,
    downSince: null,
    upSince: null,
    error: null,
    recoveredAt: null,
    reloading: null,
  },
  setLinkHost: (host) => set((s) => ({ link: { ...s.link, host } })),
  linkAnswered: (ping) => {
    const before = get().link;
    const wasStale = before.state === 'down' || before.state === 'refused';
    const restarted = before.upSince !== null && before.upSince !== ping.upSince;
    const now = env.now();
    // After a recovery nothing is said to be current until everything shown was read again (linkReloaded).
    const reloading = wasStale ? 'recovered' : restarted ? (before.reloading ?? 'restarted') : before.reloading;
    set({
      link: {
        ...before,
        state: 'up',
        lastHeardAt: now,
        downSince: null,
        upSince: ping.upSince,
        error: null,
        recoveredAt: wasStale ? null : before.recoveredAt,
        reloading,
      },
    });
    return wasStale || restarted;
  },
  linkReloaded: (ok) =>
    set((s) => {
      if (!ok || s.link.reloading === null) return {};
      const recovered = s.link.reloading === 'recovered';
      return { link: { ...s.link, reloading: null, recoveredAt: recovered ? env.now() : s.link.recoveredAt } };
    }),
  linkFailed: (error) =>
    set((s) => ({
      link: {
        ...s.link,
        state: error.kind === 'forbidden' ? 'refused' : 'down',
        downSince: s.link.downSince ?? env.now(),
        error,
      },
    })),
});

/** What the window shows is not current: the main side does not answer (or refuses this window). */
export function isStale(s: { link: LinkView }): boolean {
  return s.link.state === 'down' || s.link.state === 'refused';
}
