// Two monitors on one data folder (two apps): one keeps the files and its app posts the alerts, the
// other only watches until it takes over (takeOverFiles). What the first one never posted, and what
// it left open that the second one sees recovered, is answered for the team's channels then.
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

const CONNECTED: SessionStatus = {
  connected: true,
  linked: true,
  state: 'connected',
  needsScan: false,
  phone: '15550100001',
  qr: null,
};
const UNLINKED: SessionStatus = {
  connected: false,
  linked: false,
  state: 'unlinked',
  needsScan: true,
  phone: null,
  qr: null,
};

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

/** One app's monitor over `dataDir`, watching a1 and a2 as `answers` says; it keeps the files while `keeps` says so. */
function app(clock: FakeClock, dataDir: string, answers: Record<string, SessionStatus>, keeps: () => boolean) {
  const monitor = new Monitor({
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
 * The first app sees a2 unlinked (a1 connected); the second one, which does not keep the files, sees
 * a1 unlinked and a2 connected: the first app posted a2's alert and never saw a1's trouble.
 */
async function twoApps() {
  const clock = new FakeClock();
  dir = await mkdtemp(join(tmpdir(), 'monitor-handover-'));
  let secondKeeps = false;
  const first = app(clock, dir, { a1: CONNECTED, a2: UNLINKED }, () => true);
  const second = app(clock, dir, { a1: UNLINKED, a2: CONNECTED }, () => secondKeeps);
  first.monitor.start();
  second.monitor.start();
  await clock.advance(0);
  await clock.advance(15_000);
  await first.monitor.flush();
  expect(first.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a2']]]);
  // The second app's own windows and desktop were told of a1.
  expect(second.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a1']]]);
  return { clock, dataDir: dir, first, second, takeOver: () => (secondKeeps = true) };
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
        '- a1: unlinked for 1 min 15 s',
      ],
      [
        'recovered',
        ['a2'],
        'Back to normal when this app took over posting the alerts: 1 incident',
        '- a2: unlinked 1 min 15 s ago, connected now',
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
    const clock = new FakeClock();
    dir = await mkdtemp(join(tmpdir(), 'monitor-handover-'));
    let keeps = false;
    const first = app(clock, dir, { a1: UNLINKED, a2: CONNECTED }, () => true);
    const second = app(clock, dir, { a1: UNLINKED, a2: CONNECTED }, () => keeps);
    first.monitor.start();
    second.monitor.start();
    await clock.advance(0);
    await clock.advance(15_000);
    await first.monitor.flush();
    keeps = true;
    const handover = await second.monitor.takeOverFiles();
    expect(handover).toEqual({ unposted: [], recovered: [], alerts: [] });
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
      ['recovered', ['a1'], '- a1: reconnecting 1 min ago, connected now'],
    ]);
    expect(policy.handoverAlerts([], [incident(false)], now)).toEqual([]);
  });
});
