// Sessions per agent (pairing.session / pairing.start). Remembers when the QR last changed, to
// estimate the next rotation, and whether a scan was needed before the link came up (to celebrate).
// Decisions use needsScan/qr/connected only, never the state name (docs/service-assumptions.md).
import type { ErrorDTO, SessionDTO } from '../../../src-shared/contract';
import { agentKey, type Slice } from './env';

/** The service rotates the pairing QR every 20 s (docs/service-assumptions.md). */
export const QR_ROTATION_MS = 20_000;

export interface PairingView {
  session: SessionDTO | null;
  /** When the qr string last changed (or first appeared). */
  qrChangedAt: number | null;
  /** A QR was shown in this view (so "no QR + needsScan" later means the pairing expired). */
  sawQr: boolean;
  /** A scan was needed at some point in this view. */
  sawScanNeeded: boolean;
  /** When the link came up after a scan was needed: time to celebrate. */
  linkedAt: number | null;
  /** pairing.start was pressed and its QR has not arrived yet. */
  startedAt: number | null;
  starting: boolean;
  error: ErrorDTO | null;
  checkedAt: number | null;
}

export interface PairingSlice {
  pairing: Record<string, PairingView>;
  startPairing(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  pollPairing(teamId: string, agentId: string): Promise<ErrorDTO | null>;
}

export const emptyPairing = (): PairingView => ({
  session: null,
  qrChangedAt: null,
  sawQr: false,
  sawScanNeeded: false,
  linkedAt: null,
  startedAt: null,
  starting: false,
  error: null,
  checkedAt: null,
});

export function applySession(v: PairingView, session: SessionDTO, now: number): PairingView {
  const qrChanged = session.qr !== null && session.qr !== v.session?.qr;
  const scanNeeded = session.needsScan || session.qr !== null;
  const sawScanNeeded = v.sawScanNeeded || scanNeeded;
  return {
    ...v,
    session,
    qrChangedAt: qrChanged ? now : session.qr === null ? null : v.qrChangedAt,
    sawQr: v.sawQr || session.qr !== null,
    sawScanNeeded,
    linkedAt: v.linkedAt ?? (session.connected && !session.needsScan && v.sawScanNeeded ? now : null),
    startedAt: session.qr !== null || session.connected ? null : v.startedAt,
    error: null,
    checkedAt: now,
  };
}

/** Milliseconds until the QR is expected to rotate, estimated from when it last changed. */
export function nextRotationMs(v: PairingView, now: number): number | null {
  if (v.qrChangedAt === null) return null;
  const age = Math.max(0, now - v.qrChangedAt);
  return QR_ROTATION_MS - (age % QR_ROTATION_MS);
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

export const pairingSlice: Slice<PairingSlice> = ({ set, get, api, env }) => {
  const view = (key: string) => get().pairing[key] ?? emptyPairing();
  const put = (key: string, v: PairingView) => set((s) => ({ pairing: { ...s.pairing, [key]: v } }));
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
      const r = await api['pairing.session']({ teamId, agentId });
      if (!r.ok) {
        put(key, { ...view(key), error: r.error, checkedAt: env.now() });
        return r.error;
      }
      if (r.value && typeof r.value === 'object') put(key, applySession(view(key), r.value, env.now()));
      return null;
    },
  };
};
