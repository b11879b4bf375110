import { describe, expect, it } from 'vitest';
import { availability, type AvailabilityRecord } from '../../../../src-main/core/monitor/availability';

const H = 3_600_000;
const NOW = Date.UTC(2024, 5, 30, 12, 0, 0);
const DAY = 24 * H;

/** A fixed timeline: hours before NOW → (from, to). */
const at = (hoursAgo: number, from: AvailabilityRecord['from'], to: AvailabilityRecord['to']): AvailabilityRecord => ({
  at: NOW - hoursAgo * H,
  from,
  to,
});

describe('availability', () => {
  it('counts nothing as observed without a record', () => {
    expect(availability([], NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 0, upMs: 0 });
  });

  it('counts time from the first record only, and the last health up to now', () => {
    // First seen 10 h ago connected, dropped 4 h ago for 1 h, connected since.
    const tl = [at(10, 'unknown', 'connected'), at(4, 'connected', 'reconnecting'), at(3, 'reconnecting', 'connected')];
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 10 * H, upMs: 9 * H });
  });

  it('clips records before the window start to the window', () => {
    const tl = [at(30, 'unknown', 'connected'), at(20, 'connected', 'unreachable'), at(18, 'unreachable', 'connected')];
    // In the last 24 h: connected 24→20 (4 h), unreachable 20→18 (2 h), connected 18→0 (18 h).
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 24 * H, upMs: 22 * H });
  });

  it('does not count the time the monitor was stopped (recorded as unknown)', () => {
    const tl = [
      at(20, 'unknown', 'connected'),
      at(15, 'connected', 'unknown'),
      at(5, 'unknown', 'needs-scan'),
      at(2, 'needs-scan', 'connected'),
    ];
    // Observed: 20→15 connected (5 h), 5→2 needs-scan (3 h), 2→0 connected (2 h).
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 10 * H, upMs: 7 * H });
  });

  it('does not count a gap that ends in a start from unknown (the app stopped without a record)', () => {
    const tl = [at(20, 'unknown', 'connected'), at(12, 'connected', 'reconnecting'), at(6, 'unknown', 'connected')];
    // 20→12 connected (8 h); 12→6 unknown: the app stopped at some point; 6→0 connected (6 h).
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 14 * H, upMs: 14 * H });
  });

  it('takes records in any order and ignores those after now', () => {
    const tl = [
      at(3, 'reconnecting', 'connected'),
      at(-1, 'connected', 'unreachable'),
      at(4, 'unknown', 'reconnecting'),
    ];
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: 4 * H, upMs: 3 * H });
  });

  it('gives each window its own figures (24 h, 7 d, 30 d)', () => {
    const tl = [
      at(10 * 24, 'unknown', 'connected'),
      at(3 * 24, 'connected', 'unreachable'),
      at(2 * 24, 'unreachable', 'connected'),
    ];
    expect(availability(tl, NOW, DAY)).toEqual({ windowMs: DAY, observedMs: DAY, upMs: DAY });
    expect(availability(tl, NOW, 7 * DAY)).toEqual({ windowMs: 7 * DAY, observedMs: 7 * DAY, upMs: 6 * DAY });
    expect(availability(tl, NOW, 30 * DAY)).toEqual({ windowMs: 30 * DAY, observedMs: 10 * DAY, upMs: 9 * DAY });
  });
});
