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
  /** When it answered again after not answering (null until that happens). */
  recoveredAt: number | null;
}

export interface LinkSlice {
  link: LinkView;
  setLinkHost(host: LinkView['host']): void;
  /** The main side answered; true when the window must reload its data (it was not answering, or it restarted). */
  linkAnswered(ping: PingDTO): boolean;
  /** A heartbeat failed: down, or refused when the answer was a refusal. */
  linkFailed(error: ErrorDTO): void;
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
  },
  setLinkHost: (host) => set((s) => ({ link: { ...s.link, host } })),
  linkAnswered: (ping) => {
    const before = get().link;
    const wasStale = before.state === 'down' || before.state === 'refused';
    const now = env.now();
    set({
      link: {
        ...before,
        state: 'up',
        lastHeardAt: now,
        downSince: null,
        upSince: ping.upSince,
        error: null,
        recoveredAt: wasStale ? now : before.recoveredAt,
      },
    });
    return wasStale || (before.upSince !== null && before.upSince !== ping.upSince);
  },
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
