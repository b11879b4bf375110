// Exponential backoff: the one rule for "how long before trying again" in the service client's send
// retries, the tunnel forwarder, the monitor poller and the alert webhook sink. Each keeps its own
// numbers as a named policy next to its code; the random draw is injected so tests are exact.
import type { Random } from './ports';

export interface BackoffPolicy {
  /** The wait before the first retry (ms). */
  baseMs: number;
  /** The wait doubles with every retry up to this ceiling (ms). */
  maxMs: number;
  /**
   * Fraction in [0, 1] of the wait taken off at random: the wait lies in [w·(1 − jitter), w], so the
   * doubled value is a ceiling and retries of many callers spread out. 0: exact waits.
   */
  jitter: number;
}

/** `ms` shortened by up to `fraction` of itself: r = 0 keeps it whole, r → 1 takes the full fraction. */
export function jittered(ms: number, fraction: number, r: number): number {
  const f = Math.min(1, Math.max(0, fraction));
  return Math.round(ms * (1 - f * Math.min(1, Math.max(0, r))));
}

/** The wait before retry number `attempt` (1-based): min(maxMs, baseMs·2^(attempt−1)), jittered. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: Random = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return policy.jitter > 0 ? jittered(ceiling, policy.jitter, random()) : Math.round(ceiling);
}

/** Whether `p` is a usable policy (finite, non-negative waits; jitter within [0, 1]). */
export function isBackoffPolicy(p: BackoffPolicy): boolean {
  return (
    [p.baseMs, p.maxMs].every((n) => Number.isFinite(n) && n >= 0) &&
    Number.isFinite(p.jitter) &&
    p.jitter >= 0 &&
    p.jitter <= 1
  );
}
