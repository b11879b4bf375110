// The on-call alert policy, rule by rule, with its numbers: the monitor against the emulator over
// real loopback HTTP, one fake clock driving both (test/helpers/stepped-clock.ts). Default rules
// (reconnect grace 0, a drop over after 30 s connected, flapping at 3 drops in 10 min, unreachable
// after 2 failed polls) unless a test says otherwise.
import { describe, expect, it } from 'vitest';
import { type Alert } from '../../src-main/core/monitor';
import { type MonitorOptions } from '../../src-main/core/monitor/monitor';
import { formatDuration } from '../../src-main/core/monitor/time';
import { steppedRig, trackHttp } from '../helpers/stepped-clock';
import { monitorRig, type SeedAgents } from '../helpers/monitor-rig';

const KEY = 'acceptance-monitor-key-1';
const TEAM = 'team-oncall';
const START = Date.UTC(2024, 4, 6, 9, 0, 0);
const S = 1000;
const MIN = 60_000;

trackHttp();
const rig = monitorRig();

/** The rig, started and through its first polls. */
async function setup(agents: SeedAgents, intervalMs: number, extra: Partial<MonitorOptions> = {}) {
  const h = await steppedRig(rig, {
    start: START,
    key: KEY,
    teamId: TEAM,
    agents,
    tmpPrefix: 'monitor-oncall-',
    seeds: { emulator: 11, monitor: 5 },
    intervalMs,
    monitor: { idPrefix: 'on-', teamLabel: () => 'On-call team', ...extra },
  });
  const clock = h.clock;
  h.monitor.start();
  await clock.runTo(0);
  const of = (agentId: string) => h.alerts.filter((a) => a.agentIds.includes(agentId));
  const opened = (agentId: string | null) =>
    h.incidents.filter((u) => u.change === 'opened' && u.incident.agentId === agentId);
  /** Moves to just before the agent's next poll (a cycle may take it a little early), so a change now is seen at once. */
  const beforeNextPoll = async (agentId: string) => {
    const last = h.polls.filter((p) => p.agentId === agentId).at(-1)!;
    await clock.runTo(last.at + last.nextPollInMs - START - 1100);
    expect(h.polls.filter((p) => p.agentId === agentId).at(-1)).toBe(last);
  };
  return { ...h, clock, of, opened, beforeNextPoll };
}

const kinds = (alerts: Alert[]) => alerts.map((a) => a.kind);

describe('on-call alert policy, rule by rule (emulator + monitor on one fake clock)', () => {
  it('flapping: six drops in half a minute give one notification before flapping is declared, then silence until stable, then one "stable again"', async () => {
    const h = await setup(
      [
        { agentId: 'flappy', state: 'connected', phone: '15550100021' },
        { agentId: 'steady', state: 'connected', phone: '15550100022' },
      ],
      15_000,
    );
    await h.beforeNextPoll('flappy');

    // Six 3-s drops, one every 5 s: 30 s.
    const burstStart = h.clock.elapsed();
    for (let i = 0; i < 6; i++) {
      await h.emu.control.drop('flappy', { seconds: 3 });
      await h.clock.runFor(5 * S);
    }
    const seenDrops = h.health.filter((e) => e.agentId === 'flappy' && e.health === 'reconnecting').length;
    expect(seenDrops).toBeGreaterThanOrEqual(3);
    // One notification ("reconnecting", at once: no grace), then "flapping", then nothing.
    expect(kinds(h.of('flappy'))).toEqual(['reconnecting', 'flapping']);
    expect(h.of('flappy')[1]!.at - START - burstStart).toBeLessThanOrEqual(30 * S);
    expect(h.of('flappy')[1]!.title).toBe('flappy (+15550100021) is flapping');
    // All of it is one incident, now flapping.
    expect(h.opened('flappy')).toHaveLength(1);
    expect(h.monitor.incidents().map((i) => [i.agentId, i.kind])).toEqual([['flappy', 'flapping']]);

    // Later drops of the flapping agent, every 90 s (20 s each, so every one is seen): silence.
    const before = h.health.length;
    for (let i = 0; i < 5; i++) {
      await h.clock.runFor(70 * S);
      await h.emu.control.drop('flappy', { seconds: 20 });
      await h.clock.runFor(20 * S);
    }
    expect(h.health.slice(before).filter((e) => e.agentId === 'flappy' && e.health === 'reconnecting')).toHaveLength(5);
    expect(kinds(h.of('flappy'))).toEqual(['reconnecting', 'flapping']);
    expect(h.opened('flappy')).toHaveLength(1);

    // Stable again once connected for a whole flap window (10 min): one notice, and only one.
    await h.clock.runUntil('stable again', () => h.of('flappy').length === 3, 11 * MIN, 5 * S);
    const stable = h.of('flappy')[2]!;
    const lastBack = h.health.filter((e) => e.agentId === 'flappy' && e.health === 'connected').at(-1)!.since;
    expect(stable).toMatchObject({ kind: 'recovered', urgent: false, title: 'flappy (+15550100021) is stable again' });
    expect(stable.at - lastBack).toBe(10 * MIN);
    await h.clock.runFor(20 * MIN);
    expect(kinds(h.of('flappy'))).toEqual(['reconnecting', 'flapping', 'recovered']);
    expect(h.monitor.incidents()).toEqual([]);
    expect(h.of('steady')).toEqual([]);
  });

  it('a reconnect shorter than the grace period never notifies and opens no incident; a longer one alerts once the grace has passed', async () => {
    const h = await setup(
      [
        { agentId: 'blip', state: 'connected', phone: '15550100023' },
        { agentId: 'long', state: 'connected', phone: '15550100024' },
      ],
      15_000,
      { rules: { reconnectGraceSec: 10 } },
    );
    await h.beforeNextPoll('blip');
    await h.emu.control.drop('blip', { seconds: 4 });
    await h.clock.runFor(2 * MIN);
    expect(h.health.filter((e) => e.agentId === 'blip').map((e) => e.health)).toEqual([
      'connected',
      'reconnecting',
      'connected',
    ]);
    expect(h.alerts).toEqual([]);
    expect(h.incidents).toEqual([]);

    await h.beforeNextPoll('long');
    await h.emu.control.drop('long', { seconds: 40 });
    await h.clock.runFor(5 * MIN);
    expect(kinds(h.alerts)).toEqual(['reconnecting', 'recovered']);
    // The grace counts from when the drop was seen (its length, from the last good poll).
    const seen = h.health.filter((e) => e.agentId === 'long' && e.health === 'reconnecting')[0]!.since;
    expect(h.alerts[0]!.at - seen).toBeGreaterThanOrEqual(10 * S);
    expect(h.alerts[0]!.at - seen).toBeLessThanOrEqual(10 * S + 2200);
  });

  it('a number dropping for 15 s every 90 s: the first drop notifies (and its recovery), short repeats do not, the third drop declares flapping', async () => {
    const h = await setup([{ agentId: 'slowflap', state: 'connected', phone: '15550100025' }], 15_000);
    await h.beforeNextPoll('slowflap');
    for (let i = 0; i < 6; i++) {
      await h.emu.control.drop('slowflap', { seconds: 15 });
      await h.clock.runFor(90 * S);
    }
    expect(h.health.filter((e) => e.health === 'reconnecting')).toHaveLength(6);
    expect(kinds(h.alerts)).toEqual(['reconnecting', 'recovered', 'flapping']);
    expect(h.alerts[2]!.at - h.alerts[0]!.at).toBeGreaterThanOrEqual(180 * S - 2 * 2200);
    expect(h.alerts[2]!.at - h.alerts[0]!.at).toBeLessThanOrEqual(180 * S + 15 * S);
    expect(h.opened('slowflap').map((u) => u.incident.kind)).toEqual(['reconnecting', 'flapping']);
  });

  it('a team-wide outage is one incident; states known before it are kept, only changes seen after it alert', async () => {
    const h = await setup(
      [
        { agentId: 'ok', state: 'connected', phone: '15550100031' },
        { agentId: 'gone', state: 'connected', phone: '15550100032' },
        { agentId: 'slow', state: 'connected', phone: '15550100033' },
        { agentId: 'hidden', state: 'connected', phone: '15550100034' },
      ],
      5000,
    );
    await h.emu.control.unlink('gone');
    await h.emu.control.drop('slow', { seconds: 3600 });
    await h.clock.runFor(10 * S);
    expect(h.alerts.flatMap((a) => (a.parts ?? [a]).map((p) => [p.kind, p.agentIds.join()]))).toEqual([
      ['needs-scan', 'gone'],
      ['reconnecting', 'slow'],
    ]);
    const known = h.monitor
      .incidents()
      .map((i) => i.id)
      .sort();
    const alertsBefore = h.alerts.length;
    const incidentsBefore = h.incidents.length;

    // Two minutes of 500s for every call of the team; meanwhile 'hidden' is unlinked.
    h.emu.control.addFault({ kind: '500', probability: 1, durationMs: 2 * MIN });
    await h.clock.runFor(30 * S);
    await h.emu.control.unlink('hidden');
    await h.clock.runFor(2 * MIN);
    await h.clock.runFor(30 * S);

    const during = h.alerts.slice(alertsBefore);
    const flat = during.flatMap((a) => a.parts ?? [a]);
    // One team alert, its recovery notice, and the one real change: 'hidden' was unlinked meanwhile.
    expect(flat.map((p) => `${p.kind} ${[...p.agentIds].sort().join()}`).sort()).toEqual([
      'needs-scan hidden',
      'recovered gone,hidden,ok,slow',
      'unreachable gone,hidden,ok,slow',
    ]);
    expect(during[0]!.title).toBe('Service unreachable for team On-call team');
    expect(flat.find((p) => p.kind === 'recovered')!.title).toMatch(
      /^Service reachable again for team On-call team after 2 min/,
    );
    // 'gone' (unlinked and alerted before) was not alerted again; 'slow' is still the same incident.
    expect(flat.filter((p) => p.agentIds.length === 1 && ['gone', 'slow'].includes(p.agentIds[0]!))).toEqual([]);
    const opened = h.incidents.slice(incidentsBefore).filter((u) => u.change === 'opened');
    expect(opened.map((u) => [u.incident.kind, u.incident.agentId])).toEqual([
      ['unreachable', null],
      ['needs-scan', 'hidden'],
    ]);
    expect(
      h.monitor
        .incidents()
        .filter((i) => known.includes(i.id))
        .map((i) => i.id)
        .sort(),
    ).toEqual(known);
    // The outage itself changed no agent's known state.
    expect(h.monitor.snapshot().map((s) => [s.agentId, s.health])).toEqual([
      ['ok', 'connected'],
      ['gone', 'needs-scan'],
      ['slow', 'reconnecting'],
      ['hidden', 'needs-scan'],
    ]);
  });

  it('unreachable within two intervals of the first failure, and back within one interval of the service answering (at a 2 s interval)', async () => {
    const ids = ['u1', 'u2', 'u3'];
    const h = await setup(
      ids.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555010004${i}` })),
      2000,
    );
    await h.clock.runTo(10 * S);
    const outageAt = h.clock.elapsed();
    h.emu.control.addFault({ kind: '500', probability: 1, durationMs: 90 * S });
    const pollsBefore = h.polls.length;
    await h.clock.runUntil('unreachable alert', () => h.alerts.length > 0, 10 * S, 100);
    const firstFailure = h.polls.slice(pollsBefore).find((p) => p.error !== undefined)!.at;
    const down = h.alerts[0]!;
    expect(down).toMatchObject({ kind: 'unreachable', urgent: true });
    expect(down.at - firstFailure).toBeLessThanOrEqual(2 * 2000);
    expect(firstFailure - START - outageAt).toBeLessThanOrEqual(2000);

    // 90 s down: the backoff grows, but one agent is still probed each interval.
    await h.clock.runTo(outageAt + 90 * S - 1);
    const outagePolls = h.polls.slice(pollsBefore);
    expect(outagePolls.length).toBeLessThan(3 * 45); // fewer than every agent every interval
    const answeredAt = START + outageAt + 90 * S; // the fault ends here
    await h.clock.runUntil('recovered', () => h.alerts.length > 1, 10 * S, 100);
    const back = h.alerts[1]!;
    expect(back.kind).toBe('recovered');
    expect(back.at - answeredAt).toBeLessThanOrEqual(2000);
    expect(ids.map(h.healthOf)).toEqual(['connected', 'connected', 'connected']);
    // Before: 16–18 s to notice (three failures, 5 s and 10 s backoff) and 14–17 s to notice recovery.
  });

  it('an incident starts at the poll that saw the drop, never before it: a 20 s drop seen late is as long as it was seen', async () => {
    const h = await setup([{ agentId: 'late', state: 'connected', phone: '15550100051' }], 15_000);
    const lastGood = h.polls.at(-1)!;
    await h.clock.runTo(lastGood.at - START + 100); // just after a good poll: the drop is seen up to 15 s late
    const droppedAt = h.clock.now();
    await h.emu.control.drop('late', { seconds: 20 });
    await h.clock.runFor(2 * MIN);
    expect(kinds(h.alerts)).toEqual(['reconnecting', 'recovered']);
    const seenAt = h.alerts[0]!.at;
    expect(seenAt - droppedAt).toBeGreaterThan(12 * S); // seen late
    // "Opened N s ago" never counts from before the drop: the incident starts when the drop was seen.
    const [opened] = h.opened('late');
    expect(opened!.incident.openedAt).toBe(seenAt);
    const back = h.health.find((e) => e.health === 'connected' && e.previous === 'reconnecting')!.since;
    const resolved = h.incidents.find((u) => u.change === 'resolved')!.incident;
    expect(resolved).toMatchObject({ openedAt: seenAt, endedAt: back });
    const length = back - seenAt;
    expect(length).toBeLessThanOrEqual(droppedAt + 20 * S + 2200 - seenAt);
    expect(h.alerts[1]!.title).toBe(`late (+15550100051) is back to connected after ${formatDuration(length)}`);
    expect(h.monitor.incidents()).toEqual([]);
  });

  it('one event, one incident: two numbers unlinked together give one grouped alert whose parts keep their own words', async () => {
    const h = await setup(
      [
        { agentId: 'x1', state: 'connected', phone: '15550100061' },
        { agentId: 'x2', state: 'connected', phone: '15550100062' },
      ],
      15_000,
    );
    await h.emu.control.unlink('x1');
    await h.emu.control.unlink('x2');
    await h.clock.runFor(20 * S);
    expect(h.alerts).toHaveLength(1);
    expect(h.alerts[0]).toMatchObject({ kind: 'grouped', urgent: true, teamLabel: 'On-call team' });
    expect(h.alerts[0]!.parts!.map((p) => [p.title, p.incidentId])).toEqual([
      ['x1 (+15550100061) needs a QR scan again', h.opened('x1')[0]!.incident.id],
      ['x2 (+15550100062) needs a QR scan again', h.opened('x2')[0]!.incident.id],
    ]);
    expect(h.incidents.filter((u) => u.change === 'opened')).toHaveLength(2);
  });
});
