import { describe, expect, it } from 'vitest';
import { agentHealthDTO } from '../../../../src-main/app/contract/dto';
import { ServerError, KeyRejected } from '../../../../src-main/core/api/errors';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Monitor } from '../../../../src-main/core/monitor/monitor';
import type { AlertSink } from '../../../../src-main/core/monitor/sinks';
import type { Alert } from '../../../../src-main/core/monitor/types';
import { FakeClock } from '../../../helpers/fake-clock';
import { CONNECTED, UNLINKED } from '../../../helpers/session-status';
import { utcLocalTime } from '../../../helpers/local-time';

const WEIRD: SessionStatus = {
  connected: true,
  linked: true,
  state: 'migrating',
  needsScan: false,
  phone: '15550100001',
  qr: null,
};

/** Collects what the monitor delivers to its sinks. */
class MemoryAlertSink implements AlertSink {
  readonly alerts: Alert[] = [];
  async deliver(alert: Alert): Promise<void> {
    this.alerts.push(alert);
  }
}

function setup(agents = ['a1', 'a2']) {
  const clock = new FakeClock();
  const answers = new Map<string, () => Promise<SessionStatus>>(agents.map((a) => [a, async () => CONNECTED]));
  const sink = new MemoryAlertSink();
  const monitor = new Monitor({
    targets: () => agents.map((agentId) => ({ teamId: 't1', agentId })),
    readSession: (_t, a) => answers.get(a)!(),
    clock,
    random: () => 0.5,
    localTime: utcLocalTime,
    sinks: [sink, { deliver: async () => Promise.reject(new Error('sink down')) }],
  });
  const alerts: Alert[] = [];
  monitor.on('alert', (a) => alerts.push(a));
  return { clock, monitor, answers, alerts, sink };
}

describe('Monitor', () => {
  it('a single 500 keeps the last known health; three in a row make the team unreachable, alerted once', async () => {
    const h = setup(['a1']);
    h.monitor.start();
    await h.clock.advance(0);
    expect(h.monitor.snapshot()[0]).toMatchObject({ health: 'connected', state: 'connected', phone: '15550100001' });
    h.answers.set('a1', async () => {
      throw new ServerError({ status: 500 });
    });
    await h.clock.advance(15_000);
    expect(h.monitor.snapshot()[0]).toMatchObject({
      health: 'connected',
      consecutiveFailures: 1,
      lastError: { kind: 'server-error' },
    });
    expect(h.alerts).toEqual([]);
    await h.clock.advance(15_000); // backoff 5 s, 10 s → failures 2 and 3
    expect(h.monitor.snapshot()[0]!.health).toBe('unreachable');
    expect(h.alerts.map((a) => a.kind)).toEqual(['unreachable']);
    await h.clock.advance(10 * 60_000);
    expect(h.alerts.map((a) => a.kind)).toEqual(['unreachable']);
    h.answers.set('a1', async () => CONNECTED);
    await h.clock.advance(130_000);
    expect(h.alerts.map((a) => a.kind)).toEqual(['unreachable', 'recovered']);
    expect(h.sink.alerts.map((a) => a.kind)).toEqual(['unreachable', 'recovered']);
    await h.monitor.stop();
  });

  it('an unreachable agent keeps its last known health (the contract says it beside unreachable)', async () => {
    const h = setup(['a1', 'a2']);
    h.answers.set('a2', async () => UNLINKED);
    h.monitor.start();
    await h.clock.advance(0);
    expect(h.monitor.snapshot().map((s) => [s.health, s.lastKnown])).toEqual([
      ['connected', 'connected'],
      ['needs-scan', 'needs-scan'],
    ]);
    for (const a of ['a1', 'a2'])
      h.answers.set(a, async () => {
        throw new ServerError({ status: 500 });
      });
    await h.clock.advance(60_000);
    const snaps = h.monitor.snapshot();
    expect(snaps.map((s) => [s.health, s.lastKnown])).toEqual([
      ['unreachable', 'connected'],
      ['unreachable', 'needs-scan'],
    ]);
    expect(agentHealthDTO(snaps[1]!)).toMatchObject({
      health: 'unreachable',
      lastKnown: 'needs-scan',
      needsScan: true,
    });
    expect(agentHealthDTO(snaps[0]!)).toMatchObject({ health: 'unreachable', lastKnown: 'connected' });
    // Not unreachable: the health itself, with nothing beside it.
    h.answers.set('a1', async () => CONNECTED);
    await h.clock.advance(130_000);
    expect(agentHealthDTO(h.monitor.snapshot()[0]!).lastKnown).toBeUndefined();
    await h.monitor.stop();
  });

  it('agents changing in the same poll cycle → one grouped alert; re-alerts run on the clock; acknowledge stops them', async () => {
    const h = setup();
    h.monitor.start();
    await h.clock.advance(0);
    h.answers.set('a1', async () => UNLINKED);
    h.answers.set('a2', async () => UNLINKED);
    await h.clock.advance(15_000);
    expect(h.alerts.map((a) => [a.kind, a.agentIds.join()])).toEqual([['grouped', 'a1,a2']]);
    await h.clock.advance(15 * 60_000);
    expect(h.alerts.map((a) => a.kind)).toEqual(['grouped', 'grouped']);
    expect(h.alerts[1]!.parts!.map((p) => p.kind)).toEqual(['realert', 'realert']);
    expect(h.monitor.acknowledge({ agentId: 'a1' })).toBe(1);
    await h.clock.advance(15 * 60_000);
    expect(h.alerts.slice(2).map((a) => [a.kind, a.agentIds.join()])).toEqual([['realert', 'a2']]);
    expect(h.monitor.acknowledgeAll()).toBe(1);
    expect(h.monitor.incidents()).toHaveLength(2);
    await h.monitor.stop();
  });

  it('snooze presets, quiet hours and status pass through', async () => {
    const h = setup(['a1']);
    h.monitor.start();
    await h.clock.advance(0);
    const until = h.monitor.snoozeFor('short');
    expect(until).toBe(h.clock.now() + 15 * 60_000);
    expect(h.monitor.snoozeFor('tomorrow')).toBe(Date.UTC(2024, 0, 11, 8, 0));
    expect(h.monitor.status().snoozedUntil).toBe(Date.UTC(2024, 0, 11, 8, 0));
    h.answers.set('a1', async () => UNLINKED);
    await h.clock.advance(15_000);
    expect(h.alerts).toEqual([]);
    expect(h.monitor.incidents().map((i) => i.kind)).toEqual(['needs-scan']);
    h.monitor.snooze(null);
    h.monitor.setQuietHours({ start: '12:00', end: '13:00' });
    expect(h.monitor.status()).toMatchObject({
      snoozedUntil: null,
      quietNow: true,
      quietHours: { start: '12:00', end: '13:00' },
    });
    await h.clock.advance(60 * 60_000);
    expect(h.alerts.map((a) => a.kind)).toEqual(['still-down']);
    await h.monitor.stop();
  });

  it('an unknown state is kept verbatim; a rejected key is one key-rejected alert', async () => {
    const h = setup(['a1']);
    h.answers.set('a1', async () => WEIRD);
    h.monitor.start();
    await h.clock.advance(0);
    expect(h.monitor.snapshot()[0]).toMatchObject({ health: 'connected', state: 'migrating' });
    h.answers.set('a1', async () => {
      throw new KeyRejected();
    });
    await h.clock.advance(5 * 60_000);
    expect(h.monitor.snapshot()[0]!.health).toBe('key-rejected');
    expect(h.alerts.map((a) => a.kind)).toEqual(['key-rejected']);
    await h.monitor.flush();
    expect((await h.monitor.timeline('a1')).map((e) => e.to)).toEqual(['connected', 'key-rejected']);
    await h.monitor.stop();
  });

  it("stopping records unknown in each polled agent's timeline, so the time it does not watch is not counted", async () => {
    const h = setup(['a1']);
    h.monitor.start();
    await h.clock.advance(0);
    await h.clock.advance(60_000);
    const stoppedAt = h.clock.now();
    await h.monitor.stop();
    const entries = await h.monitor.timeline('a1');
    expect(entries.map((e) => [e.from, e.to])).toEqual([
      ['unknown', 'connected'],
      ['connected', 'unknown'],
    ]);
    expect(entries[1]).toMatchObject({ at: stoppedAt, teamId: 't1', state: null });
  });
});
