// A monitor started again over the same data folder: the incidents open when it stopped stay open
// until a poll shows the agent recovered; an agent that is no longer watched has its incident closed
// as removed, once and without a notice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Monitor } from '../../../../src-main/core/monitor/monitor';
import { AlertPolicy, type IncidentUpdate } from '../../../../src-main/core/monitor/policy';
import type { Alert, Incident } from '../../../../src-main/core/monitor/types';
import { utcLocalTime } from '../../../helpers/local-time';
import { FakeClock } from '../../../helpers/fake-clock';
import { CONNECTED, UNLINKED } from '../../../helpers/session-status';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

/** One run of the monitor over `dataDir`, watching `agents`, each answering as `answers` says. */
function run(clock: FakeClock, dataDir: string, agents: string[], answers: Map<string, SessionStatus>) {
  const monitor = new Monitor({
    targets: () => agents.map((agentId) => ({ teamId: 't1', agentId })),
    readSession: async (_t, a) => answers.get(a)!,
    clock,
    random: () => 0.5,
    localTime: utcLocalTime,
    dataDir,
  });
  const alerts: Alert[] = [];
  const incidents: IncidentUpdate[] = [];
  monitor.on('alert', (a) => alerts.push(a));
  monitor.on('incident', (u) => incidents.push(u));
  return { monitor, alerts, incidents };
}

async function firstRun(clock: FakeClock, agents: string[]) {
  dir = await mkdtemp(join(tmpdir(), 'monitor-restart-'));
  const answers = new Map(agents.map((a) => [a, CONNECTED]));
  const first = run(clock, dir, agents, answers);
  first.monitor.start();
  await clock.advance(0);
  answers.set('a1', UNLINKED);
  await clock.advance(15_000);
  expect(first.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a1']]]);
  const open = first.monitor.incidents();
  expect(open.map((i) => [i.kind, i.agentId])).toEqual([['needs-scan', 'a1']]);
  await first.monitor.stop();
  return { dataDir: dir, answers, incident: open[0]! };
}

describe('Monitor across a restart', () => {
  it('an incident open at the stop is open again at the start, and stays open while the agent still needs a scan', async () => {
    const clock = new FakeClock();
    const { dataDir, answers, incident } = await firstRun(clock, ['a1', 'a2']);
    await clock.advance(60_000);

    const second = run(clock, dataDir, ['a1', 'a2'], answers);
    expect(second.monitor.incidents().map((i) => [i.id, i.kind, i.openedAt, i.resolvedAt])).toEqual([
      [incident.id, 'needs-scan', incident.openedAt, null],
    ]);
    second.monitor.start();
    await clock.advance(0);
    await clock.advance(60_000);
    // Still unlinked: neither "back to normal" nor a second alert for the same unlink.
    expect(second.incidents.filter((u) => u.change === 'resolved')).toEqual([]);
    expect(second.alerts).toEqual([]);
    expect(second.monitor.incidents().map((i) => i.id)).toEqual([incident.id]);

    // Scanned again: the poll that shows it connected closes it, with the recovery notice.
    answers.set('a1', CONNECTED);
    await clock.advance(15_000);
    expect(second.alerts.map((a) => a.kind)).toEqual(['recovered']);
    expect(
      second.incidents.filter((u) => u.change === 'resolved').map((u) => [u.incident.id, u.incident.removed ?? false]),
    ).toEqual([[incident.id, false]]);
    expect(second.monitor.incidents()).toEqual([]);
    await second.monitor.stop();

    // Closed stays closed: a third start finds nothing open.
    const third = run(clock, dataDir, ['a1', 'a2'], answers);
    expect(third.monitor.incidents()).toEqual([]);
    await third.monitor.stop();
  });

  it('an incident of an agent no longer watched closes as removed at the start, once and without a notice', async () => {
    const clock = new FakeClock();
    const { dataDir, answers, incident } = await firstRun(clock, ['a1', 'a2']);

    const second = run(clock, dataDir, ['a2'], answers);
    second.monitor.start();
    await clock.advance(0);
    await clock.advance(60_000);
    expect(second.alerts).toEqual([]);
    expect(second.incidents.map((u) => [u.change, u.incident.id, u.incident.removed])).toEqual([
      ['resolved', incident.id, true],
    ]);
    expect(second.monitor.incidents()).toEqual([]);
    await second.monitor.stop();

    const third = run(clock, dataDir, ['a2'], answers);
    third.monitor.start();
    await clock.advance(0);
    expect(third.incidents).toEqual([]);
    await third.monitor.stop();
  });

  it('an unreadable incidents file starts with none open and is replaced by the next write', async () => {
    const clock = new FakeClock();
    const { dataDir, answers } = await firstRun(clock, ['a1']);
    const { writeFile, readFile } = await import('node:fs/promises');
    await writeFile(join(dataDir, 'open-incidents.json'), '{ torn', 'utf8');
    const second = run(clock, dataDir, ['a1'], answers);
    expect(second.monitor.incidents()).toEqual([]);
    second.monitor.start();
    await clock.advance(0);
    await second.monitor.flush();
    // The first poll sees the unlink again and opens an incident; the file holds it.
    expect(second.monitor.incidents().map((i) => i.kind)).toEqual(['needs-scan']);
    expect(JSON.parse(await readFile(join(dataDir, 'open-incidents.json'), 'utf8'))).toMatchObject({
      incidents: [{ kind: 'needs-scan', agentId: 'a1' }],
    });
    await second.monitor.stop();
  });
});

describe('AlertPolicy.restore: team incidents', () => {
  const T = Date.UTC(2024, 0, 10, 12, 0, 0);
  const teamIncident = (kind: 'unreachable' | 'key-rejected'): Incident => ({
    id: 'old-inc-1',
    teamId: 't1',
    agentId: null,
    agentIds: ['a1', 'a2'],
    kind,
    openedAt: T,
    delivered: true,
    raised: true,
    acknowledgedAt: null,
    resolvedAt: null,
    lastAlertAt: T,
  });
  const change = (agentId: string, to: 'unreachable' | 'key-rejected' | 'connected', at: number) => ({
    teamId: 't1',
    agentId,
    from: 'unknown' as const,
    to,
    at,
  });

  it('the service still unreachable: nothing new; answering again: one recovery notice', () => {
    const policy = new AlertPolicy({ localTime: utcLocalTime });
    policy.restore([teamIncident('unreachable')]);
    const still = policy.ingest(
      [change('a1', 'unreachable', T + 60_000), change('a2', 'unreachable', T + 60_000)],
      T + 60_000,
    );
    expect(still).toEqual({ alerts: [], incidents: [] });
    expect(policy.openIncidents().map((i) => i.id)).toEqual(['old-inc-1']);
    const back = policy.ingest(
      [change('a1', 'connected', T + 90_000), change('a2', 'connected', T + 90_000)],
      T + 90_000,
    );
    expect(back.alerts.map((a) => a.kind)).toEqual(['recovered']);
    expect(back.incidents.map((u) => [u.change, u.incident.id, u.incident.removed])).toEqual([
      ['resolved', 'old-inc-1', undefined],
    ]);
  });

  it('a rejected key whose team is gone closes as removed, without a notice', () => {
    const policy = new AlertPolicy({ localTime: utcLocalTime });
    policy.restore([teamIncident('key-rejected')]);
    expect(policy.forget('t1', 'a1', T + 1000)).toEqual({ alerts: [], incidents: [] });
    const gone = policy.forget('t1', 'a2', T + 1000);
    expect(gone.alerts).toEqual([]);
    expect(gone.incidents.map((u) => [u.change, u.incident.id, u.incident.removed])).toEqual([
      ['resolved', 'old-inc-1', true],
    ]);
  });
});
