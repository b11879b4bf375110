// Pairing sessions as the app reads them: the contract's SessionDTO with the pairing's clock, and the
// monitor brought up to date when a read shows what it has not seen yet (a scan, an expiry), so
// the agent list, the tray and the alerts change at once rather than at the next poll.
//
// The service states no times (ASSUMPTION A-PAIRING: the QR changes every 20 s counted from the
// start, and the pairing expires 2 min after it started). PairingClock counts them from what this
// app saw: the moment it asked for the pairing, or else the first read that showed a QR.
import type { SessionStatus } from '../../core/api/types';
import type { PairingTimesDTO, SessionDTO } from '../../../src-shared/contract';
import { sessionDTO } from './dto';

const QR_EVERY_MS = 20_000;
const PAIRING_EXPIRES_MS = 120_000;
/** A start with no QR after this long is forgotten (the service never offered one). */
const START_WAIT_MS = 60_000;

interface Seen {
  startedAt: number;
  startedHere: boolean;
  qr: string;
  /** When this QR was first read. */
  qrSince: number;
}

const key = (teamId: string, agentId: string): string => `${teamId}\u0000${agentId}`;

export class PairingClock {
  private readonly seen = new Map<string, Seen>();
  private readonly starts = new Map<string, number>();

  /** This app is about to ask the service for a pairing (call before the request). */
  begin(teamId: string, agentId: string, at: number): void {
    const k = key(teamId, agentId);
    const s = this.seen.get(k);
    // Asking again while a pairing runs changes nothing at the service: keep its clock.
    if (s && at < s.startedAt + PAIRING_EXPIRES_MS) return;
    this.seen.delete(k);
    this.starts.set(k, at);
  }

  /** Records a read of the session; answers the pairing's times while a QR is on offer. */
  observe(teamId: string, agentId: string, status: Pick<SessionStatus, 'qr'>, at: number): PairingTimesDTO | undefined {
    const k = key(teamId, agentId);
    const started = this.starts.get(k);
    if (started !== undefined && at - started > START_WAIT_MS) this.starts.delete(k);
    if (status.qr === null) {
      this.seen.delete(k);
      return undefined;
    }
    let s = this.seen.get(k);
    // Still a QR after the expiry this clock counted: a new pairing started elsewhere.
    if (s && at >= s.startedAt + PAIRING_EXPIRES_MS) s = undefined;
    if (!s) {
      const here = this.starts.get(k);
      this.starts.delete(k);
      s = { startedAt: here ?? at, startedHere: here !== undefined, qr: status.qr, qrSince: at };
      this.seen.set(k, s);
    } else if (s.qr !== status.qr) {
      s.qr = status.qr;
      s.qrSince = at;
    }
    return {
      startedAt: s.startedAt,
      startedHere: s.startedHere,
      // Counted from the start when this app knows it; otherwise from when the current QR was first read.
      qrAnchorAt: s.startedHere ? s.startedAt : s.qrSince,
      qrEveryMs: QR_EVERY_MS,
      expiresAt: s.startedAt + PAIRING_EXPIRES_MS,
    };
  }
}

/** What the monitor last read of an agent (its snapshot), and the way to make it read again now. */
export interface MonitorView {
  lastRead(teamId: string, agentId: string): { state: string | null; needsScan: boolean; pairing: boolean } | undefined;
  pollSoon(teamId: string, agentId: string): void;
}

export interface PairingReads {
  /** Before asking the service for a pairing. */
  begin(teamId: string, agentId: string): void;
  /** A session read by a request: its DTO with the pairing's times; the monitor catches up when it saw otherwise. */
  read(teamId: string, agentId: string, status: SessionStatus): SessionDTO;
}

export function pairingReads(clock: PairingClock, monitor: MonitorView, now: () => number): PairingReads {
  return {
    begin: (teamId, agentId) => clock.begin(teamId, agentId, now()),
    read(teamId, agentId, status) {
      const dto = sessionDTO(teamId, agentId, status);
      const times = clock.observe(teamId, agentId, status, now());
      if (times) dto.pairing = times;
      const last = monitor.lastRead(teamId, agentId);
      if (
        last &&
        (last.state !== status.state || last.needsScan !== status.needsScan || last.pairing !== (status.qr !== null))
      ) {
        monitor.pollSoon(teamId, agentId);
      }
      return dto;
    },
  };
}
