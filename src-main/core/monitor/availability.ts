// An agent's availability over a window, from its timeline: the share of the observed time it was
// connected. The health in force between two records is the earlier record's `to`. Not observed
// (counted neither up nor down): the time before the first record, the time while the health was
// 'unknown' (the monitor records 'unknown' when it stops), and the gap before a record that starts
// from 'unknown' after a known health (the app stopped without saying so: when is not known).
import type { Health } from './health';

export interface AvailabilityRecord {
  at: number;
  from: Health;
  to: Health;
}

export interface Availability {
  /** Length of the window, ms. */
  windowMs: number;
  /** Time within the window with a known health, ms. */
  observedMs: number;
  /** Time within the window the agent was connected, ms. */
  upMs: number;
}

/** Availability over [now - windowMs, now]; `records` in any order. */
export function availability(records: readonly AvailabilityRecord[], now: number, windowMs: number): Availability {
  const start = now - windowMs;
  const sorted = [...records].filter((r) => r.at <= now).sort((a, b) => a.at - b.at);
  let observedMs = 0;
  let upMs = 0;
  for (const [i, r] of sorted.entries()) {
    const next = sorted[i + 1];
    if (r.to === 'unknown') continue;
    // A known health followed by a record from 'unknown': the app stopped somewhere in between.
    if (next && next.from === 'unknown') continue;
    const from = Math.max(r.at, start);
    const to = next ? next.at : now;
    if (to <= from) continue;
    observedMs += to - from;
    if (r.to === 'connected') upMs += to - from;
  }
  return { windowMs, observedMs, upMs };
}
