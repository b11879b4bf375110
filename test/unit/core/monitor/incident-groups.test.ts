// Incident groups on a fake clock: incidents of one team and kind raised together (one poll round,
// or within the group window) are told of in ONE alert ("20 agents need a QR scan"), while each
// agent keeps its own incident, acknowledged on its own.
import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { Monitor } from '../../../../src-main/core/monitor/monitor';
import { AlertPolicy, type IncidentUpdate } from '../../../../src-main/core/monitor/policy';
import type { Alert, HealthChange } from '../../../../src-main/core/monitor/types';
import type { Health } from '../../../../src-main/core/monitor/health';
import { FakeClock } from '../../../helpers/fake-clock';
import { utcLocalTime } from '../../../helpers/local-time';
import { CONNECTED, UNLINKED } from '../../../helpers/session-status';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
const S = 1000;
const MIN = 60_000;
/** The policy's group window (10 s; docs/oncall.md). */
const INCIDENT_GROUP_WINDOW_MS = 10_000;
const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `a${from + i}`);

function policySetup(agents: string[]) {
  const policy = new AlertPolicy({ localTime: utcLocalTime });
  const health = new Map<string, Health>();
  const change = (agentId: string, to: Health, at: number): HealthChange => {
    const from = health.get(agentId) ?? 'unknown';
    health.set(agentId, to);
    return { teamId: 't1', agentId, from, to, at };
  };
  const round = (list: Array<[string, Health]>, at: number) =>
    policy.ingest(
      list.map(([a, to]) => change(a, to, at)),
      at,
    );
  round(
    agents.map((a) => [a, 'connected']),
    T0,
  );
  return { policy, round };
}

describe('AlertPolicy: incident groups', () => {
  it('20 agents unlinked in one poll round → ONE alert "20 agents need a QR scan", 20 incidents of one group', () => {
    const h = policySetup(ids(20));
    const out = h.round(
      ids(20).map((a) => [a, 'needs-scan']),
      T0 + 15 * S,
    );
    expect(out.alerts).toHaveLength(1);
    const [alert] = out.alerts;
    expect(alert).toMatchObject({ kind: 'grouped', urgent: true, title: '20 agents need a QR scan' });
    expect(alert!.agentIds).toEqual(ids(20));
    expect(alert!.parts!.map((p) => p.title)).toEqual(ids(20).map((a) => `${a} needs a QR scan again`));
    // The body lists the first ten, then says how many more.
    expect(alert!.body.split('\n')).toEqual([
      ...ids(10).map((a) => `- Urgent: ${a} needs a QR scan again`),
      '- … and 10 more',
    ]);
    const opened = out.incidents.filter((u) => u.change === 'opened').map((u) => u.incident);
    expect(opened).toHaveLength(20);
    expect(new Set(opened.map((i) => i.id)).size).toBe(20);
    expect(new Set(opened.map((i) => i.group))).toEqual(new Set([alert!.group]));
    expect(alert!.group).toBeTruthy();
    expect(alert!.parts!.map((p) => p.incidentId)).toEqual(opened.map((i) => i.id));
  });

  it('each agent is still acknowledged on its own: one acknowledgement leaves the other 19 open and reminded', () => {
    const h = policySetup(ids(20));
    h.round(
      ids(20).map((a) => [a, 'needs-scan']),
      T0,
    );
    const first = h.policy.openIncidents().find((i) => i.agentId === 'a1')!;
    const { count } = h.policy.acknowledge(first.id, T0 + MIN);
    expect(count).toBe(1);
    const open = h.policy.openIncidents();
    expect(open.filter((i) => i.acknowledgedAt === null)).toHaveLength(19);
    // The reminder 15 min on is one alert for the 19 still unacknowledged, in the group's words.
    const reminder = h.policy.tick(T0 + 15 * MIN).alerts;
    expect(reminder.map((a) => [a.kind, a.title, a.agentIds.length])).toEqual([
      ['grouped', '19 agents still need a QR scan', 19],
    ]);
    expect(reminder[0]!.group).toBe(first.group);
  });

  it('two kinds at once → two groups, two alerts', () => {
    const h = policySetup(ids(6));
    const out = h.round(
      [
        ['a1', 'needs-scan'],
        ['a2', 'reconnecting'],
        ['a3', 'needs-scan'],
        ['a4', 'reconnecting'],
        ['a5', 'needs-scan'],
      ],
      T0,
    );
    expect(out.alerts.map((a) => [a.title, a.agentIds])).toEqual([
      ['3 agents need a QR scan', ['a1', 'a3', 'a5']],
      ['2 agents are reconnecting', ['a2', 'a4']],
    ]);
    expect(out.alerts[0]!.group).not.toBe(out.alerts[1]!.group);
    const groups = new Map(h.policy.openIncidents().map((i) => [i.agentId, i.group]));
    expect(groups.get('a1')).toBe(out.alerts[0]!.group);
    expect(groups.get('a2')).toBe(out.alerts[1]!.group);
  });

  it("a group of one reads as today: the agent's own alert", () => {
    const h = policySetup(ids(2));
    const out = h.round([['a1', 'needs-scan']], T0);
    expect(out.alerts.map((a) => [a.kind, a.title, a.agentIds])).toEqual([
      ['needs-scan', 'a1 needs a QR scan again', ['a1']],
    ]);
    expect(out.alerts[0]!.parts).toBeUndefined();
  });

  it('a later round within the window joins the group (its alert counts the whole group); past it, a new group', () => {
    const h = policySetup(ids(25));
    const first = h.round(
      ids(12).map((a) => [a, 'needs-scan']),
      T0,
    ).alerts;
    expect(first.map((a) => a.title)).toEqual(['12 agents need a QR scan']);
    const joined = h.round(
      ids(8, 13).map((a) => [a, 'needs-scan']),
      T0 + INCIDENT_GROUP_WINDOW_MS,
    ).alerts;
    expect(joined.map((a) => [a.kind, a.title, a.agentIds.length, a.group])).toEqual([
      ['grouped', '20 agents need a QR scan', 8, first[0]!.group],
    ]);
    expect(joined[0]!.body.split('\n')[0]).toBe('8 more since the first alert:');
    // One more within the window: still the group's, still counted with it.
    const one = h.round([['a21', 'needs-scan']], T0 + INCIDENT_GROUP_WINDOW_MS).alerts;
    expect(one.map((a) => [a.kind, a.title, a.group])).toEqual([
      ['grouped', '21 agents need a QR scan', first[0]!.group],
    ]);
    // Past the window: a new group, and a lone one reads as today.
    const later = h.round([['a22', 'needs-scan']], T0 + INCIDENT_GROUP_WINDOW_MS + 1).alerts;
    expect(later.map((a) => [a.kind, a.title])).toEqual([['needs-scan', 'a22 needs a QR scan again']]);
    expect(later[0]!.group).not.toBe(first[0]!.group);
  });

  it('recoveries of a group together are one notice', () => {
    const h = policySetup(ids(5));
    h.round(
      ids(5).map((a) => [a, 'needs-scan']),
      T0,
    );
    const back = h.round(
      ids(5).map((a) => [a, 'connected']),
      T0 + MIN,
    ).alerts;
    expect(back.map((a) => [a.kind, a.title, a.urgent])).toEqual([['grouped', '5 agents are back to normal', false]]);
  });
});

describe('Monitor: a poll round of 20 unlinked agents', () => {
  it('gives 1 alert to the sinks and 20 incidents, each acknowledged on its own', async () => {
    const clock = new FakeClock(T0);
    const agents = ids(20);
    const answers = new Map<string, SessionStatus>(agents.map((a) => [a, CONNECTED]));
    const delivered: Alert[] = [];
    const monitor = new Monitor({
      targets: () => agents.map((agentId) => ({ teamId: 't1', agentId })),
      readSession: async (_t, a) => answers.get(a)!,
      clock,
      random: () => 0.5,
      localTime: utcLocalTime,
      sinks: [{ deliver: async (a) => void delivered.push(a) }],
    });
    const updates: IncidentUpdate[] = [];
    monitor.on('incident', (u) => updates.push(u));
    monitor.start();
    await clock.advance(0);
    for (const a of agents) answers.set(a, UNLINKED);
    await clock.advance(15 * S);
    await monitor.flush();
    expect(delivered.map((a) => [a.kind, a.title])).toEqual([['grouped', '20 agents need a QR scan']]);
    expect(updates.filter((u) => u.change === 'opened')).toHaveLength(20);
    const open = monitor.incidents();
    expect(open).toHaveLength(20);
    expect(new Set(open.map((i) => i.group)).size).toBe(1);
    expect(monitor.acknowledge(open[0]!.id)).toBe(1);
    expect(monitor.incidents().filter((i) => i.acknowledgedAt === null)).toHaveLength(19);
    await monitor.stop();
  });
});
