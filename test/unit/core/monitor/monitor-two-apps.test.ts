// Two monitors on one data folder (two apps): one keeps the files and its app posts the alerts, the
// other only watches until it takes over (takeOverFiles). What the first one never posted, and what
// it left open that the second one sees recovered, is answered for the team's channels then. An
// incident acknowledged in either one is acknowledged in both.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Monitor } from '../../../../src-main/core/monitor/monitor';
import { AlertPolicy } from '../../../../src-main/core/monitor/policy';
import type { Alert, Incident } from '../../../../src-main/core/monitor/types';
import { utcLocalTime } from '../../../helpers/local-time';
import { FakeClock } from '../../../helpers/fake-clock';
import { CONNECTED, UNLINKED } from '../../../helpers/session-status';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

/** One app's monitor over `dataDir`, watching a1 and a2 as `answers` says; it keeps the files while `keeps` says so. */
function app(
  clock: FakeClock,
  dataDir: string,
  answers: Record<string, SessionStatus>,
  keeps: () => boolean,
  idPrefix?: string,
) {
  const monitor = new Monitor({
    ...(idPrefix !== undefined ? { idPrefix } : {}),
    targets: () => ['a1', 'a2'].map((agentId) => ({ teamId: 't1', agentId })),
    readSession: async (_t, a) => answers[a]!,
    clock,
    random: () => 0.5,
    localTime: utcLocalTime,
    dataDir,
    keepsFiles: keeps,
  });
  const alerts: Alert[] = [];
  monitor.on('alert', (a) => alerts.push(a));
  return { monitor, alerts };
}

/**
 * Two apps on one data folder, each answered as its `answers` say, both polled once: the first keeps
 * the files; the second does from the moment takeOver() is called.
 */
async function startBoth(answers: { first: Record<string, SessionStatus>; second: Record<string, SessionStatus> }) {
  const clock = new FakeClock();
  dir = await mkdtemp(join(tmpdir(), 'monitor-two-apps-'));
  let secondKeeps = false;
  const first = app(clock, dir, answers.first, () => true);
  const second = app(clock, dir, answers.second, () => secondKeeps);
  first.monitor.start();
  second.monitor.start();
  await clock.advance(0);
  await clock.advance(15_000);
  await first.monitor.flush();
  return { clock, dataDir: dir, first, second, takeOver: () => (secondKeeps = true) };
}

/**
 * The first app sees a2 unlinked (a1 connected); the second one, which does not keep the files, sees
 * a1 unlinked and a2 connected: the first app posted a2's alert and never saw a1's trouble.
 */
async function twoApps() {
  const both = await startBoth({ first: { a1: CONNECTED, a2: UNLINKED }, second: { a1: UNLINKED, a2: CONNECTED } });
  expect(both.first.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a2']]]);
  // The second app's own windows and desktop were told of a1.
  expect(both.second.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a1']]]);
  return both;
}

describe('Monitor.takeOverFiles: what the team was not told', () => {
  it('answers the incidents the app that posted never had, and those it left open that are recovered here', async () => {
    const { clock, dataDir, first, second, takeOver } = await twoApps();
    const a1 = second.monitor.incidents().find((i) => i.agentId === 'a1')!;
    const a2 = first.monitor.incidents().find((i) => i.agentId === 'a2')!;
    // The first app dies: it neither resolves a2 nor writes anything more.
    await clock.advance(60_000);
    takeOver();
    const handover = await second.monitor.takeOverFiles();

    expect(handover.unposted.map((i) => i.id)).toEqual([a1.id]);
    expect(handover.recovered.map((i) => i.id)).toEqual([a2.id]);
    expect(handover.alerts.map((a) => [a.kind, a.agentIds, a.title, a.body])).toEqual([
      [
        'still-down',
        ['a1'],
        'Still down when this app took over posting the alerts: 1 incident',
        '- a1: needs a QR scan for 1 min 15 s',
      ],
      [
        'recovered',
        ['a2'],
        'Back to normal when this app took over posting the alerts: 1 incident',
        '- a2: connected now (needs a QR scan, opened 1 min 15 s ago)',
      ],
    ]);
    expect(handover.alerts[0]!.urgent).toBe(true);
    // The file is this app's now: a1 open, a2 not.
    const file = JSON.parse(await readFile(join(dataDir, 'open-incidents.json'), 'utf8')) as {
      incidents: Array<{ agentId: string }>;
    };
    expect(file.incidents.map((i) => i.agentId)).toEqual(['a1']);
    // Its windows are not told again: the handover alerts are not the monitor's alerts.
    expect(second.alerts).toHaveLength(1);
    await second.monitor.stop();
    await first.monitor.stop();
  });

  it('answers nothing for an incident both apps had open', async () => {
    const answers = { a1: UNLINKED, a2: CONNECTED };
    const { first, second, takeOver } = await startBoth({ first: answers, second: answers });
    takeOver();
    const handover = await second.monitor.takeOverFiles();
    expect(handover).toEqual({ unposted: [], recovered: [], alerts: [] });
    await second.monitor.stop();
    await first.monitor.stop();
  });

  it("takes the incident groups of the file's incidents about the same outages, so Alertmanager hears the same labels", async () => {
    const clock = new FakeClock();
    dir = await mkdtemp(join(tmpdir(), 'monitor-two-apps-'));
    let secondKeeps = false;
    const answers = { a1: UNLINKED, a2: UNLINKED };
    const first = app(clock, dir, answers, () => true, 'one-');
    const second = app(clock, dir, answers, () => secondKeeps, 'two-');
    first.monitor.start();
    second.monitor.start();
    await clock.advance(0);
    await first.monitor.flush();
    const groupsOf = (m: Monitor) => m.incidents().map((i) => [i.agentId, i.group]);
    const firsts = groupsOf(first.monitor);
    expect(firsts.map(([, g]) => g)).toEqual(['one-grp-2', 'one-grp-2']);
    expect(groupsOf(second.monitor).map(([, g]) => g)).toEqual(['two-grp-2', 'two-grp-2']);
    const updated: string[] = [];
    second.monitor.on('incident', (u) => updated.push(`${u.change} ${u.incident.group}`));
    secondKeeps = true;
    await second.monitor.takeOverFiles();
    expect(groupsOf(second.monitor)).toEqual(firsts);
    expect(updated).toEqual(['updated one-grp-2', 'updated one-grp-2']);
    await second.monitor.stop();
    await first.monitor.stop();
  });

  it('while snoozed, answers the incidents and no alert (the snooze ends with its own summary)', async () => {
    const { second, takeOver } = await twoApps();
    second.monitor.snoozeFor('short');
    takeOver();
    const handover = await second.monitor.takeOverFiles();
    expect(handover.unposted.map((i) => i.agentId)).toEqual(['a1']);
    expect(handover.recovered.map((i) => i.agentId)).toEqual(['a2']);
    expect(handover.alerts).toEqual([]);
    await second.monitor.stop();
  });
});

describe('AlertPolicy.handoverAlerts', () => {
  it('gives no "back to normal" for an incident the team was never told of', () => {
    const policy = new AlertPolicy({ localTime: utcLocalTime });
    const now = Date.UTC(2024, 0, 10, 12, 0, 0);
    const incident = (delivered: boolean): Incident => ({
      id: delivered ? 'told' : 'held',
      teamId: 't1',
      agentId: delivered ? 'a1' : 'a2',
      agentIds: [delivered ? 'a1' : 'a2'],
      kind: 'reconnecting',
      openedAt: now - 60_000,
      delivered,
      raised: true,
      acknowledgedAt: null,
      resolvedAt: null,
      lastAlertAt: null,
    });
    const alerts = policy.handoverAlerts([], [incident(true), incident(false)], now);
    expect(alerts.map((a) => [a.kind, a.agentIds, a.body])).toEqual([
      ['recovered', ['a1'], '- a1: connected now (reconnecting, opened 1 min ago)'],
    ]);
    expect(policy.handoverAlerts([], [incident(false)], now)).toEqual([]);
  });
});

describe('an acknowledgement made in one app', () => {
  /** Both apps see a1 unlinked; answers the incidents each opened. */
  async function bothSeeA1() {
    const answers = { a1: UNLINKED, a2: CONNECTED };
    const { clock, first, second } = await startBoth({ first: answers, second: answers });
    const [theirs] = second.monitor.incidents();
    expect([first.monitor.incidents()[0]?.agentId, theirs?.agentId]).toEqual(['a1', 'a1']);
    return { clock, answers, first, second, theirs: theirs! };
  }

  it("in the app that does not post acknowledges the posting one's incident: its reminders stop", async () => {
    const { clock, first, second, theirs } = await bothSeeA1();
    expect(second.monitor.acknowledge(theirs.id)).toBe(1);
    await second.monitor.flush();
    // The posting app reads it within 2 s.
    await clock.advance(15_000);
    await first.monitor.flush();
    expect(first.monitor.incidents()[0]!.acknowledgedAt).not.toBeNull();
    const before = first.alerts.length;
    await clock.advance(30 * 60_000);
    expect(first.alerts.slice(before).filter((a) => a.kind === 'realert')).toEqual([]);
    await second.monitor.stop();
    await first.monitor.stop();
  });

  it('in the posting app shows in the other one, and does not acknowledge a later outage', async () => {
    const { clock, answers, first, second } = await bothSeeA1();
    expect(first.monitor.acknowledgeAll()).toBe(1);
    await first.monitor.flush();
    await clock.advance(15_000);
    await second.monitor.flush();
    expect(second.monitor.incidents()[0]!.acknowledgedAt).not.toBeNull();

    // Linked again, then unlinked once more minutes later: a new outage, open in both, acknowledged in neither.
    answers.a1 = CONNECTED;
    await clock.advance(5 * 60_000);
    expect(first.monitor.incidents()).toEqual([]);
    answers.a1 = UNLINKED;
    await clock.advance(15_000);
    await clock.advance(15_000);
    expect(first.monitor.incidents().map((i) => [i.agentId, i.acknowledgedAt])).toEqual([['a1', null]]);
    expect(second.monitor.incidents().map((i) => [i.agentId, i.acknowledgedAt])).toEqual([['a1', null]]);
    await second.monitor.stop();
    await first.monitor.stop();
  });
});

describe('a snooze set in one app', () => {
  it('silences the posting app too, and ended in either app it ends in both', async () => {
    const answers = { a1: CONNECTED, a2: CONNECTED };
    const { clock, first, second } = await startBoth({ first: answers, second: answers });
    const told: Array<number | null> = [];
    first.monitor.on('snooze', (s) => told.push(s.until));

    const until = second.monitor.snoozeFor('short');
    await second.monitor.flush();
    await clock.advance(15_000);
    await first.monitor.flush();
    expect(first.monitor.status().snoozedUntil).toBe(until);
    expect(told).toEqual([until]);

    // Snoozed: the posting app raises no alert for a drop.
    const before = first.alerts.length;
    answers.a1 = UNLINKED;
    await clock.advance(15_000);
    await clock.advance(15_000);
    expect(first.monitor.incidents().map((i) => i.agentId)).toEqual(['a1']);
    expect(first.alerts.slice(before)).toEqual([]);

    first.monitor.snooze(null);
    await first.monitor.flush();
    await clock.advance(15_000);
    await second.monitor.flush();
    expect(second.monitor.status().snoozedUntil).toBeNull();
    expect(told).toEqual([until, null]);
    await second.monitor.stop();
    await first.monitor.stop();
  });

  it('holds in an app started while it lasts, and not once it ended', async () => {
    const answers = { a1: CONNECTED, a2: CONNECTED };
    const { clock, dataDir, first, second } = await startBoth({ first: answers, second: answers });
    const until = first.monitor.snoozeFor('long');
    await first.monitor.flush();
    const third = app(clock, dataDir, answers, () => false);
    expect(third.monitor.status().snoozedUntil).toBe(until);

    first.monitor.snooze(null);
    await first.monitor.flush();
    expect(app(clock, dataDir, answers, () => false).monitor.status().snoozedUntil).toBeNull();
    await second.monitor.stop();
    await first.monitor.stop();
  });
});
