// Sessions per agent (pairing.session / pairing.start), and whether a scan was needed before the
// link came up (to celebrate). The countdowns come from the session's pairing times, which the main
// side keeps (so they are right whenever the screen opens). Cancel stops waiting here only: the
// service has no way to cancel a pairing. Decisions use needsScan/qr/connected only, never the
// state name (docs/service-assumptions.md).
import type { ErrorDTO, PairingTimesDTO, SessionDTO } from '../../../src-shared/contract';
import { agentHref } from '../router/routes';
import { agentKey, type Slice } from './env';
import { agentName, type NoticeInput } from './notices';

export interface PairingView {
  session: SessionDTO | null;
  /** A QR was shown in this view (so "no QR + needsScan" later means the pairing expired). */
  sawQr: boolean;
  /** A scan was needed at some point in this view. */
  sawScanNeeded: boolean;
  /** When the link came up after a scan was needed: time to celebrate. */
  linkedAt: number | null;
  /** pairing.start was pressed and its QR has not arrived yet. */
  startedAt: number | null;
  starting: boolean;
  /** The last read or start failed (cleared by the next success). */
  error: ErrorDTO | null;
  /** When the service last answered with the session (null: never in this window). */
  readAt: number | null;
  /** A pairing.session read is in flight. */
  asking: boolean;
}

export interface PairingSlice {
  pairing: Record<string, PairingView>;
  startPairing(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  pollPairing(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  /** Stops waiting for the scan and goes back to the agent, saying until when the code stays valid. */
  cancelPairing(teamId: string, agentId: string, agentLabel: string): void;
}

export const emptyPairing = (): PairingView => ({
  session: null,
  sawQr: false,
  sawScanNeeded: false,
  linkedAt: null,
  startedAt: null,
  starting: false,
  error: null,
  readAt: null,
  asking: false,
});

/** The view once the service answered with `session` at `now`. */
function applySession(v: PairingView, session: SessionDTO, now: number): PairingView {
  const scanNeeded = session.needsScan || session.qr !== null;
  const sawScanNeeded = v.sawScanNeeded || scanNeeded;
  return {
    ...v,
    session,
    sawQr: v.sawQr || session.qr !== null,
    sawScanNeeded,
    linkedAt: v.linkedAt ?? (session.connected && !session.needsScan && v.sawScanNeeded ? now : null),
    startedAt: session.qr !== null || session.connected ? null : v.startedAt,
    error: null,
    readAt: now,
  };
}

export interface PairingCountdown {
  /** Until the QR changes; null when the pairing expires first (this is the last code). */
  nextQrMs: number | null;
  /** Until the pairing expires (0 once it is due). */
  expiresInMs: number;
  expiresAt: number;
  /** The pairing's whole length, as counted. */
  totalMs: number;
  /** False: started elsewhere, so it may expire sooner than counted. */
  exact: boolean;
}

/** The countdowns of a pairing in progress, from the main side's times (null without them). */
export function pairingCountdown(times: PairingTimesDTO | undefined, now: number): PairingCountdown | null {
  if (!times) return null;
  const every = times.qrEveryMs;
  const totalMs = times.expiresAt - times.startedAt;
  const next = every > 0 ? every - (Math.max(0, now - times.qrAnchorAt) % every) : null;
  // Clamped to the whole length: a clock read a moment before the start must not count more.
  const expiresInMs = Math.min(totalMs, Math.max(0, times.expiresAt - now));
  return {
    nextQrMs: next !== null && next < expiresInMs ? next : null,
    expiresInMs,
    expiresAt: times.expiresAt,
    totalMs,
    exact: times.startedHere,
  };
}

export type PairingPhase = 'loading' | 'qr' | 'preparing' | 'expired' | 'needs-scan' | 'linked' | 'recovering';

/** What the pairing screen shows, from needsScan/qr/connected only. */
export function pairingPhase(v: PairingView): PairingPhase {
  const s = v.session;
  if (!s) return 'loading';
  if (s.qr) return 'qr';
  if (s.needsScan) {
    if (v.startedAt !== null || v.starting) return 'preparing';
    return v.sawQr ? 'expired' : 'needs-scan';
  }
  return s.connected ? 'linked' : 'recovering';
}

type Reads = { pushNotice(n: NoticeInput): string; setRoute(route: string): void };

export const pairingSlice: Slice<PairingSlice, Reads> = ({ set, get, api, env }) => {
  const view = (key: string) => get().pairing[key] ?? emptyPairing();
  const put = (key: string, v: PairingView) => set((s) => ({ pairing: { ...s.pairing, [key]: v } }));
  /** pairing.session reads in flight, per agent. */
  const reads = new Map<string, number>();
  return {
    pairing: {},
    startPairing: async (teamId, agentId) => {
      const key = agentKey(teamId, agentId);
      put(key, { ...view(key), starting: true, error: null, linkedAt: null, sawQr: false, startedAt: env.now() });
      const r = await api['pairing.start']({ teamId, agentId });
      if (!r.ok) {
        put(key, { ...view(key), starting: false, startedAt: null, error: r.error });
        return r.error;
      }
      put(key, applySession({ ...view(key), starting: false, sawScanNeeded: true }, r.value, env.now()));
      return null;
    },
    pollPairing: async (teamId, agentId) => {
      const key = agentKey(teamId, agentId);
      reads.set(key, (reads.get(key) ?? 0) + 1);
      put(key, { ...view(key), asking: true });
      const r = await api['pairing.session']({ teamId, agentId });
      const left = (reads.get(key) ?? 1) - 1;
      if (left > 0) reads.set(key, left);
      else reads.delete(key);
      const v = { ...view(key), asking: left > 0 };
      if (!r.ok) {
        put(key, { ...v, error: r.error });
        return r.error;
      }
      put(key, r.value && typeof r.value === 'object' ? applySession(v, r.value, env.now()) : v);
      return null;
    },
    cancelPairing: (teamId, agentId, agentLabel) => {
      const key = agentKey(teamId, agentId);
      const v = view(key);
      put(key, { ...v, starting: false, startedAt: null });
      const times = v.session?.qr ? v.session.pairing : undefined;
      const until = times ? ` until ${new Date(times.expiresAt).toLocaleTimeString()}` : ' until it expires';
      get().pushNotice({
        tone: 'info',
        title: `Stopped waiting for the scan of ${agentName(agentLabel, agentId)}`,
        body: `The service has no way to cancel a pairing: the code stays valid${until}, and a phone can still link the number until then.`,
        route: agentHref(teamId, agentId, 'pairing'),
      });
      get().setRoute(agentHref(teamId, agentId));
    },
  };
};
