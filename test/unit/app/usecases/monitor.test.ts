import { describe, expect, it } from 'vitest';
import { alertRules, createAgentMonitor, pollConfig, snoozeAlerts } from '../../../../src-main/app/usecases/monitor';
import { FakeClock } from '../../../helpers/fake-clock';

/** ms epoch of a local wall-clock time (the machine's time zone, as the monitor reads it). */
const local = (y: number, mo: number, d: number, h: number, mi = 0) => new Date(y, mo, d, h, mi, 0, 0).getTime();

function monitorAt(start: number) {
  return createAgentMonitor({
    targets: () => [],
    readSession: async () => Promise.reject(new Error('unused')),
    settings: null,
    teamLabel: (id) => id,
    clock: new FakeClock(start),
  });
}

describe('snoozeAlerts', () => {
  it('"until tomorrow" just after midnight ends at 08:00 the same morning, not a day later', async () => {
    const m = monitorAt(local(2025, 2, 12, 0, 20));
    expect(snoozeAlerts(m, { until: 'tomorrow' })).toBe(local(2025, 2, 12, 8));
    expect(m.status().snoozedUntil).toBe(local(2025, 2, 12, 8));
    await m.stop();
  });

  it('"until tomorrow" in the evening ends at 08:00 the next day; at 08:00 sharp, the next day too', async () => {
    const evening = monitorAt(local(2025, 2, 12, 21, 45));
    expect(snoozeAlerts(evening, { until: 'tomorrow' })).toBe(local(2025, 2, 13, 8));
    const eight = monitorAt(local(2025, 2, 12, 8));
    expect(snoozeAlerts(eight, { until: 'tomorrow' })).toBe(local(2025, 2, 13, 8));
    await Promise.all([evening.stop(), eight.stop()]);
  });

  it('N minutes from now', async () => {
    const start = local(2025, 2, 12, 0, 20);
    const m = monitorAt(start);
    expect(snoozeAlerts(m, { minutes: 30 })).toBe(start + 30 * 60_000);
    await m.stop();
  });
});

describe('settings → monitor', () => {
  const saved = {
    pollIntervalSec: 20,
    fastPollIntervalSec: 3,
    alertRules: {
      reconnectGraceSec: 5,
      repeatDropGraceSec: 90,
      realertMinutes: 30,
      flapCount: 4,
      flapWindowMinutes: 12,
      quietHours: { start: '22:00', end: '07:00' },
    },
  };

  it("the saved intervals, or the run's; the fast one never slower than the normal one", () => {
    expect(pollConfig(saved)).toEqual({ intervalMs: 20_000, fastIntervalMs: 3000, coalesceMs: 250 });
    expect(pollConfig(saved, { intervalMs: 200 })).toEqual({ intervalMs: 200, fastIntervalMs: 200, coalesceMs: 50 });
    expect(pollConfig(null, { fastIntervalMs: 100 })).toEqual({
      intervalMs: 15_000,
      fastIntervalMs: 100,
      coalesceMs: 25,
    });
  });

  it('the saved alert rules, and none without settings', () => {
    expect(alertRules(saved)).toEqual(saved.alertRules);
    expect(alertRules(null)).toEqual({});
    const m = createAgentMonitor({
      targets: () => [],
      readSession: async () => Promise.reject(new Error('unused')),
      settings: saved,
      teamLabel: (id) => id,
      clock: new FakeClock(),
    });
    expect(m.rules()).toMatchObject(saved.alertRules);
    expect(m.pollConfig()).toMatchObject({ intervalMs: 20_000, fastIntervalMs: 3000 });
  });
});
