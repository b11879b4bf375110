import { describe, expect, it } from 'vitest';
import { snoozeUntil } from '../../../src-main/app/snooze';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('snoozeUntil', () => {
  it('N minutes from now', () => {
    expect(snoozeUntil({ minutes: 30 }, NOW)).toBe(NOW + 30 * 60_000);
  });

  it("'tomorrow' is the next day's morning, local time", () => {
    const until = snoozeUntil({ until: 'tomorrow' }, NOW);
    const d = new Date(until);
    expect(d.getHours()).toBe(8);
    expect(d.getMinutes()).toBe(0);
    expect(until).toBeGreaterThan(NOW);
    expect(until - NOW).toBeLessThanOrEqual(48 * 3600_000);
    const today = new Date(NOW);
    expect(d.getDate()).not.toBe(today.getDate());
  });
});
