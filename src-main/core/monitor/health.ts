// Health of one agent's channel link, decided from the fields the service defines (needsScan,
// linked, connected — docs/service-api.md §3.3: decide from needsScan, not from connected) and from
// the meaning of an error. A single failed poll is never a health change: HealthTracker keeps the
// last known health and only calls an agent 'unreachable' after consecutive failures.
import { Aborted, NotFound, KeyRejected, isServiceError, type ServiceErrorDTO } from '../api/errors';
import type { SessionStatus } from '../api/types';
import type { Health } from '../../../src-shared/vocabulary';

export { HEALTHS, type Health } from '../../../src-shared/vocabulary';

/** Health from one poll: a session status, or the error of the poll. */
function deriveHealth(input: { status?: SessionStatus; error?: unknown }): Health {
  const s = input.status;
  if (s) {
    // ASSUMPTION A-PAIRING / A-UNLINKED: both unlinked and pairing carry needsScan:true.
    if (s.needsScan) return 'needs-scan';
    if (s.connected) return 'connected';
    // ASSUMPTION A-RECONNECTING: linked, not connected, nothing to scan.
    if (s.linked) return 'reconnecting';
    return 'unknown';
  }
  if (input.error === undefined) return 'unknown';
  const e = input.error;
  if (e instanceof KeyRejected) return 'key-rejected'; // ASSUMPTION A-AUTH
  if (e instanceof NotFound) return 'not-found'; // ASSUMPTION A-NOT-FOUND
  if (e instanceof Aborted) return 'unknown';
  // Rate limit, 5xx, network, timeout, and anything unexpected: the service could not answer.
  return 'unreachable';
}

/** The health a session status tells of (what a successful poll decides). */
export function healthOfStatus(status: SessionStatus): Health {
  return deriveHealth({ status });
}

/** Errors that say nothing about the agent (they only count towards 'unreachable'). */
export function isTransientError(error: unknown): boolean {
  return deriveHealth({ error }) === 'unreachable';
}

/** A plain, key-free description of a poll error (for timelines, snapshots, diagnostics). */
export function errorToDTO(error: unknown): ServiceErrorDTO {
  if (isServiceError(error)) return error.toDTO();
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'network-error', code: 'UNEXPECTED', message: redactSecrets(message), rateLimit: {} };
}

/** Masks anything that looks like a bearer token or key in free text. */
export function redactSecrets(text: string): string {
  return text
    .replace(/(bearer\s+)[^\s"',;]+/gi, '$1[redacted]')
    .replace(/((?:api[_-]?key|authorization|secret|token)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi, '$1[redacted]');
}

export interface FailureThreshold {
  /** Consecutive failed polls after which the agent is 'unreachable'. */
  failures: number;
  /** …or at least two consecutive failures spanning this many seconds. */
  seconds: number;
}

const DEFAULT_FAILURE_THRESHOLD: FailureThreshold = { failures: 2, seconds: 30 };

export interface HealthReading {
  health: Health;
  /** The service's `state` from the last successful poll, verbatim (ASSUMPTION A-STATE). */
  state: string | null;
  phone: string | null;
  /** A pairing QR is on offer right now. */
  pairing: boolean;
  /** ms epoch of the last health change. */
  since: number;
  consecutiveFailures: number;
  lastStatus: SessionStatus | null;
}

export interface Observation {
  reading: HealthReading;
  /** Health changed with this poll. */
  changed: boolean;
  /** `state` (or pairing) changed while health did not. */
  stateChanged: boolean;
  previous: Health;
  /** ms epoch of the last successful poll before this one (null: none): the last good poll. */
  lastGoodAt: number | null;
}

/** Per-agent health with the failure policy: one 429/500 keeps the last known health. */
export class HealthTracker {
  private firstFailureAt: number | null = null;
  /** The last poll the service answered with a session status. */
  private answeredAt: number | null = null;
  private reading: HealthReading;

  constructor(
    private threshold: FailureThreshold = DEFAULT_FAILURE_THRESHOLD,
    now = 0,
  ) {
    this.reading = {
      health: 'unknown',
      state: null,
      phone: null,
      pairing: false,
      since: now,
      consecutiveFailures: 0,
      lastStatus: null,
    };
  }

  setThreshold(t: FailureThreshold): void {
    this.threshold = t;
  }

  current(): HealthReading {
    return { ...this.reading };
  }

  /** One poll's outcome. The reading in the observation is the tracker's own (read it, do not keep it: current() copies). */
  observe(input: { status?: SessionStatus; error?: unknown }, now: number): Observation {
    const r = this.reading;
    const previous = r.health;
    const lastGoodAt = this.answeredAt;
    const prevState = r.state;
    const prevPairing = r.pairing;
    let health: Health = previous;
    if (input.status) {
      this.answeredAt = now;
      this.firstFailureAt = null;
      const s = input.status;
      health = deriveHealth(input);
      r.state = s.state;
      r.phone = s.phone;
      r.pairing = s.needsScan && s.qr !== null;
      r.consecutiveFailures = 0;
      r.lastStatus = s;
    } else if (input.error !== undefined) {
      const derived = deriveHealth(input);
      // Aborted: says nothing at all.
      if (derived === 'unknown') return { reading: r, changed: false, stateChanged: false, previous, lastGoodAt };
      if (derived === 'unreachable') {
        this.firstFailureAt ??= now;
        const failures = r.consecutiveFailures + 1;
        r.consecutiveFailures = failures;
        const spanSec = (now - this.firstFailureAt) / 1000;
        const over = failures >= this.threshold.failures || (failures >= 2 && spanSec >= this.threshold.seconds);
        if (over) health = 'unreachable';
      } else {
        // key-rejected / not-found are definite answers from the service.
        this.firstFailureAt = null;
        r.consecutiveFailures = 0;
        health = derived;
      }
    }
    const changed = health !== previous;
    r.health = health;
    if (changed) r.since = now;
    const stateChanged = !changed && (r.state !== prevState || r.pairing !== prevPairing);
    return { reading: r, changed, stateChanged, previous, lastGoodAt };
  }
}
