import { describe, expect, it } from 'vitest';
import type { Health } from '../../../../src-main/core/monitor/health';
import { AlertPolicy } from '../../../../src-main/core/monitor/policy';
import { text } from '../../../../src-main/core/monitor/policy-text';
import { incidentDurationMs, type AlertRules, type HealthChange } from '../../../../src-main/core/monitor/types';
import { utcLocalTime } from '../../../helpers/local-time';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0); // 12:00 UTC
const S = 1000;
const MIN = 60_000;

/** A policy on a fake clock, fed health changes the way the monitor does. */
function setup(rules: Partial<AlertRules> = {}, agents = ['a1']) {
  const policy = new AlertPolicy({ rules, localTime: utcLocalTime });
  let now = T0;
  const health = new Map<string, Health>();
  const alerts: ReturnType<AlertPolicy['tick']>['alerts'] = [];
  const change = (agentId: string, to: Health, extra: Partial<HealthChange> = {}, teamId = 't1'): HealthChange => {
    const from = health.get(agentId) ?? 'unknown';
    health.set(agentId, to);
    return { teamId, agentId, from, to, at: now, ...extra };
  };
  const h = {
    policy,
    alerts,
    get now() {
      return now;
    },
    /** One poll cycle in which the given agents changed. */
    cycle(...changes: Array<[string, Health] | [string, Health, Partial<HealthChange>]>) {
      const out = policy.ingest(
        changes.map(([id, to, extra]) => change(id, to, extra)),
        now,
      );
      alerts.push(...out.alerts);
      return out.alerts;
    },
    /** Moves the clock, ticking the policy whenever it asked to wake up (as the monitor does). */
    advance(ms: number) {
      const end = now + ms;
      const got = [];
      for (;;) {
        const wake = policy.nextWakeAt(now);
        if (wake === null || wake > end) break;
        now = Math.max(now, wake);
        const out = policy.tick(now);
        got.push(...out.alerts);
        if (wake === now && out.alerts.length === 0 && policy.nextWakeAt(now) === now) break;
      }
      now = end;
      const out = policy.tick(now);
      got.push(...out.alerts);
      alerts.push(...got);
      return got;
    },
    kinds: () => alerts.map((a) => a.kind),
  };
  for (const id of agents) h.cycle([id, 'connected']);
  return h;
}

describe('AlertPolicy: needs-scan (unlink)', () => {
  it('alerts at once, urgently, when a linked agent is unlinked', () => {
    const h = setup();
    const got = h.cycle(['a1', 'needs-scan']);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ kind: 'needs-scan', urgent: true, teamId: 't1', agentIds: ['a1'], at: T0 });
    expect(got[0]!.title).toBe('a1 needs a QR scan again');
    expect(got[0]!.incidentId).toBeTruthy();
  });

  it('re-alerts every 15 min until acknowledged', () => {
    const h = setup();
    const [first] = h.cycle(['a1', 'needs-scan']);
    expect(h.advance(15 * MIN - S)).toEqual([]);
    const r1 = h.advance(S);
    expect(r1.map((a) => a.kind)).toEqual(['realert']);
    expect(r1[0]!.urgent).toBe(true);
    expect(r1[0]!.incidentId).toBe(first!.incidentId);
    expect(h.advance(15 * MIN).map((a) => a.kind)).toEqual(['realert']);
    const { count } = h.policy.acknowledge(first!.incidentId!, h.now);
    expect(count).toBe(1);
    expect(h.advance(60 * MIN)).toEqual([]);
  });

  it('re-alerts until recovered, then one recovery notice', () => {
    const h = setup();
    h.cycle(['a1', 'needs-scan']);
    h.advance(20 * MIN);
    const got = h.cycle(['a1', 'connected']);
    expect(got.map((a) => a.kind)).toEqual(['recovered']);
    expect(got[0]!.title).toContain('after 20 min');
    expect(h.advance(60 * MIN)).toEqual([]);
    expect(h.kinds()).toEqual(['needs-scan', 'realert', 'recovered']);
  });

  it('acknowledging by agent stops re-alerts; the recovery notice still closes the incident', () => {
    const h = setup();
    h.cycle(['a1', 'needs-scan']);
    expect(h.policy.acknowledge({ agentId: 'a1' }, h.now).count).toBe(1);
    expect(h.advance(30 * MIN)).toEqual([]);
    expect(h.cycle(['a1', 'connected']).map((a) => a.kind)).toEqual(['recovered']);
  });

  it('a pairing already under way at the first poll is tracked but not alerted; pairing done is silent', () => {
    const h = setup({}, []);
    expect(h.cycle(['p1', 'needs-scan', { pairing: true }])).toEqual([]);
    expect(h.policy.openIncidents().map((i) => i.kind)).toEqual(['needs-scan']);
    expect(h.advance(30 * MIN)).toEqual([]);
    expect(h.cycle(['p1', 'connected'])).toEqual([]);
    expect(h.policy.openIncidents()).toEqual([]);
  });

  it('an agent unlinked at the first poll alerts (configurable)', () => {
    expect(
      setup({}, [])
        .cycle(['u1', 'needs-scan'])
        .map((a) => a.kind),
    ).toEqual(['needs-scan']);
    expect(setup({ alertOnInitialNeedsScan: false }, []).cycle(['u1', 'needs-scan'])).toEqual([]);
  });

  it('reconnecting then unlinked escalates to one urgent needs-scan alert', () => {
    const h = setup();
    h.cycle(['a1', 'reconnecting']);
    const got = h.cycle(['a1', 'needs-scan']);
    expect(got.map((a) => [a.kind, a.urgent])).toEqual([['needs-scan', true]]);
    expect(h.policy.openIncidents()).toHaveLength(1);
  });

  it('the same health reported twice raises nothing twice', () => {
    const h = setup();
    h.cycle(['a1', 'needs-scan']);
    expect(
      h.policy.ingest([{ teamId: 't1', agentId: 'a1', from: 'needs-scan', to: 'needs-scan', at: h.now }], h.now).alerts,
    ).toEqual([]);
  });
});

describe('AlertPolicy: reconnecting and recovery', () => {
  it('one alert per drop with no grace; the recovery notice once it has stayed connected 30 s, with the length of the drop', () => {
    const h = setup();
    expect(h.cycle(['a1', 'reconnecting']).map((a) => [a.kind, a.urgent])).toEqual([['reconnecting', false]]);
    expect(h.advance(42 * S)).toEqual([]);
    expect(h.cycle(['a1', 'connected'])).toEqual([]);
    expect(h.policy.openIncidents().map((i) => i.kind)).toEqual(['reconnecting']);
    expect(h.advance(30 * S - 1)).toEqual([]);
    const got = h.advance(1);
    expect(got.map((a) => a.kind)).toEqual(['recovered']);
    expect(got[0]!.title).toContain('back to connected after 42 s');
    expect(h.kinds()).toEqual(['reconnecting', 'recovered']);
    expect(h.policy.openIncidents()).toEqual([]);
  });

  it('an incident runs from the poll that saw the drop to the one that saw it back: one length, in its title too', () => {
    const h = setup();
    // The last poll that found it connected was 13 s before the one that found it reconnecting: the
    // drop happened somewhere in between, so the incident starts when it was seen, never before the drop.
    const seen = h.now;
    const out = h.policy.ingest(
      [{ teamId: 't1', agentId: 'a1', from: 'connected', to: 'reconnecting', at: seen, lastGoodAt: seen - 13 * S }],
      h.now,
    );
    expect(out.incidents.map((u) => [u.change, u.incident.openedAt])).toEqual([['opened', seen]]);
    h.advance(40 * S);
    const back = h.now;
    h.policy.ingest([{ teamId: 't1', agentId: 'a1', from: 'reconnecting', to: 'connected', at: back }], h.now);
    // It closes once the agent has stayed connected 30 s; its end is when it was seen back.
    const closed = h.policy.tick(back + 30 * S);
    expect(closed.alerts.map((a) => a.title)).toEqual(['a1 is back to connected after 40 s']);
    const resolved = closed.incidents.find((u) => u.change === 'resolved')!.incident;
    expect(resolved).toMatchObject({ openedAt: seen, endedAt: back, resolvedAt: back + 30 * S });
    expect(incidentDurationMs(resolved)).toBe(40 * S);
  });

  it('a new drop before the agent stayed connected continues the same incident: no new alert, no recovery notice', () => {
    const h = setup();
    const [first] = h.cycle(['a1', 'reconnecting']);
    h.advance(5 * S);
    h.cycle(['a1', 'connected']);
    h.advance(20 * S);
    expect(h.cycle(['a1', 'reconnecting'])).toEqual([]);
    expect(h.policy.openIncidents().map((i) => i.id)).toEqual([first!.incidentId]);
    h.advance(5 * S);
    h.cycle(['a1', 'connected']);
    expect(h.advance(30 * S).map((a) => [a.kind, a.incidentId])).toEqual([['recovered', first!.incidentId]]);
    expect(h.kinds()).toEqual(['reconnecting', 'recovered']);
  });

  it('recovering within the grace period raises nothing at all, and opens no incident', () => {
    const h = setup({ reconnectGraceSec: 30 });
    const out = h.policy.ingest(
      [{ teamId: 't1', agentId: 'a1', from: 'connected', to: 'reconnecting', at: h.now }],
      h.now,
    );
    expect(out).toEqual({ alerts: [], incidents: [] });
    expect(h.advance(29 * S)).toEqual([]);
    h.policy.ingest([{ teamId: 't1', agentId: 'a1', from: 'reconnecting', to: 'connected', at: h.now }], h.now);
    expect(h.advance(10 * MIN)).toEqual([]);
    expect(h.policy.openIncidents()).toEqual([]);
  });

  it('after the grace period, one alert, then one recovery notice', () => {
    const h = setup({ reconnectGraceSec: 30 });
    h.cycle(['a1', 'reconnecting']);
    expect(h.advance(30 * S).map((a) => a.kind)).toEqual(['reconnecting']);
    expect(h.advance(5 * MIN)).toEqual([]);
    expect(h.cycle(['a1', 'connected'])).toEqual([]);
    expect(h.advance(30 * S)[0]!.title).toContain('after 5 min 30 s');
  });

  it('reconnecting is never re-alerted', () => {
    const h = setup();
    h.cycle(['a1', 'reconnecting']);
    expect(h.advance(3 * 60 * MIN)).toEqual([]);
  });
});

describe('AlertPolicy: flapping', () => {
  it('six drops in half a minute: one notification before flapping is declared, then silence until stable, then one "stable again"', () => {
    const h = setup();
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push(...h.cycle(['a1', 'reconnecting']).map((a) => a.kind));
      seen.push(...h.advance(2 * S).map((a) => a.kind));
      seen.push(...h.cycle(['a1', 'connected']).map((a) => a.kind));
      seen.push(...h.advance(3 * S).map((a) => a.kind));
    }
    expect(seen).toEqual(['reconnecting', 'flapping']);
    expect(h.policy.isFlapping('t1', 'a1')).toBe(true);
    // One incident all along, now flapping.
    expect(h.policy.openIncidents().map((i) => i.kind)).toEqual(['flapping']);
    // Later drops every 90 s: nothing.
    for (let i = 0; i < 5; i++) {
      expect(h.advance(85 * S)).toEqual([]);
      expect(h.cycle(['a1', 'reconnecting'])).toEqual([]);
      expect(h.advance(5 * S)).toEqual([]);
      expect(h.cycle(['a1', 'connected'])).toEqual([]);
    }
    // Stable again once connected for a whole flap window (10 min): one notice.
    expect(h.advance(10 * MIN - S)).toEqual([]);
    const settled = h.advance(S);
    expect(settled.map((a) => a.kind)).toEqual(['recovered']);
    expect(settled[0]!.title).toBe('a1 is stable again');
    expect(h.policy.isFlapping('t1', 'a1')).toBe(false);
    expect(h.kinds()).toEqual(['reconnecting', 'flapping', 'recovered']);
    // Back to normal: the next drop alerts again.
    expect(h.cycle(['a1', 'reconnecting']).map((a) => a.kind)).toEqual(['reconnecting']);
  });

  it('drops shorter than the grace period still count: flapping is the first notification; a needs-scan during flapping still alerts', () => {
    const h = setup({ reconnectGraceSec: 60, flapCount: 3, flapWindowMinutes: 10 });
    h.cycle(['a1', 'reconnecting']);
    h.advance(5 * S);
    h.cycle(['a1', 'connected']);
    h.cycle(['a1', 'reconnecting']);
    h.advance(5 * S);
    h.cycle(['a1', 'connected']);
    expect(h.alerts).toEqual([]);
    expect(h.policy.openIncidents()).toEqual([]);
    expect(h.cycle(['a1', 'reconnecting']).map((a) => a.kind)).toEqual(['flapping']);
    expect(h.cycle(['a1', 'needs-scan']).map((a) => [a.kind, a.urgent])).toEqual([['needs-scan', true]]);
    expect(h.policy.openIncidents().map((i) => i.kind)).toEqual(['needs-scan']);
  });

  it('drops spread wider than the window do not flap, and each alerts', () => {
    const h = setup();
    for (let i = 0; i < 4; i++) {
      h.cycle(['a1', 'reconnecting']);
      h.advance(10 * S);
      h.cycle(['a1', 'connected']);
      h.advance(11 * MIN);
    }
    expect(h.kinds().filter((k) => k === 'flapping')).toEqual([]);
    expect(h.kinds().filter((k) => k === 'reconnecting')).toHaveLength(4);
  });

  it('a repeat drop within the flap window alerts only if it lasts 60 s (repeatDropGraceSec)', () => {
    const h = setup();
    h.cycle(['a1', 'reconnecting']);
    h.advance(10 * S);
    h.cycle(['a1', 'connected']);
    h.advance(5 * MIN);
    expect(h.kinds()).toEqual(['reconnecting', 'recovered']);
    // A short repeat: nothing at all.
    expect(h.cycle(['a1', 'reconnecting'])).toEqual([]);
    expect(h.advance(59 * S)).toEqual([]);
    h.cycle(['a1', 'connected']);
    expect(h.advance(5 * MIN)).toEqual([]);
    expect(h.policy.openIncidents()).toEqual([]);
    // After the window, a drop is news again (the two before have aged out).
    h.advance(10 * MIN);
    expect(h.cycle(['a1', 'reconnecting']).map((a) => a.kind)).toEqual(['reconnecting']);
    h.cycle(['a1', 'connected']);
    h.advance(MIN);
    // A long repeat is an outage, not a flap: it alerts once it has lasted 60 s.
    expect(h.cycle(['a1', 'reconnecting'])).toEqual([]);
    expect(h.advance(60 * S).map((a) => a.kind)).toEqual(['reconnecting']);
  });

  it('a repeat drop longer than the graces as set always alerts: the larger of the reconnect and the repeat grace, nothing hidden', () => {
    for (const [rules, wait] of [
      [{ reconnectGraceSec: 0, repeatDropGraceSec: 20 }, 20],
      [{ reconnectGraceSec: 30, repeatDropGraceSec: 20 }, 30],
      [{ reconnectGraceSec: 0, repeatDropGraceSec: 0 }, 0],
    ] as const) {
      const h = setup(rules);
      h.cycle(['a1', 'reconnecting']);
      h.advance(40 * S);
      h.cycle(['a1', 'connected']);
      h.advance(5 * MIN);
      expect(h.kinds(), JSON.stringify(rules)).toEqual(['reconnecting', 'recovered']);
      const at = h.cycle(['a1', 'reconnecting']).map((a) => a.kind);
      if (wait > 0) {
        expect(at).toEqual([]);
        expect(h.advance(wait * S - 1)).toEqual([]);
        expect(
          h.advance(1).map((a) => a.kind),
          JSON.stringify(rules),
        ).toEqual(['reconnecting']);
      } else expect(at).toEqual(['reconnecting']);
    }
  });
});

describe('AlertPolicy: grouping, team-wide problems', () => {
  it('several agents changing in one cycle → one alert per kind, a grouped one listing its agents', () => {
    const h = setup({}, ['a1', 'a2', 'a3']);
    const got = h.cycle(['a1', 'needs-scan'], ['a2', 'reconnecting'], ['a3', 'reconnecting']);
    expect(got.map((a) => [a.kind, a.urgent, a.agentIds])).toEqual([
      ['needs-scan', true, ['a1']],
      ['grouped', false, ['a2', 'a3']],
    ]);
    expect(got[0]!.title).toBe('a1 needs a QR scan again');
    expect(got[1]!.title).toBe('2 agents are reconnecting');
    expect(got[1]!.parts!.map((p) => p.kind)).toEqual(['reconnecting', 'reconnecting']);
    expect(got[1]!.body).toContain('a2 is reconnecting');
    // Each part keeps its own words.
    expect(got[1]!.parts!.map((p) => p.title)).toEqual(['a2 is reconnecting', 'a3 is reconnecting']);
    // Recoveries together are grouped too; the needs-scan one keeps re-alerting.
    expect(h.cycle(['a2', 'connected'], ['a3', 'connected'])).toEqual([]);
    const back = h.advance(30 * S);
    expect(back.map((a) => [a.kind, a.title])).toEqual([['grouped', '2 agents are back to normal']]);
    expect(back[0]!.urgent).toBe(false);
  });

  it('whole team unreachable → ONE alert for the team, and one notice when it answers again', () => {
    const h = setup({}, ['a1', 'a2', 'a3']);
    // Agents cross the failure threshold in different cycles.
    expect(h.cycle(['a1', 'unreachable'])).toEqual([]);
    expect(h.cycle(['a2', 'unreachable'])).toEqual([]);
    const got = h.cycle(['a3', 'unreachable']);
    expect(got.map((a) => [a.kind, a.urgent, a.agentIds])).toEqual([['unreachable', true, ['a1', 'a2', 'a3']]]);
    expect(got[0]!.title).toContain('team t1');
    expect(h.advance(2 * 60 * MIN)).toEqual([]);
    const back = h.cycle(['a1', 'connected'], ['a2', 'connected'], ['a3', 'connected']);
    expect(back.map((a) => a.kind)).toEqual(['recovered']);
    expect(h.kinds()).toEqual(['unreachable', 'recovered']);
  });

  it('one agent unreachable while the team answers: alerted once after a delay, not urgent', () => {
    const h = setup({ agentUnreachableDelaySec: 60 }, ['a1', 'a2']);
    expect(h.cycle(['a1', 'unreachable'])).toEqual([]);
    const got = h.advance(60 * S);
    expect(got.map((a) => [a.kind, a.urgent, a.agentIds])).toEqual([['unreachable', false, ['a1']]]);
    expect(h.advance(60 * MIN)).toEqual([]);
    expect(h.cycle(['a1', 'connected']).map((a) => a.kind)).toEqual(['recovered']);
  });

  it('a short blip of one agent recovering before the delay raises nothing', () => {
    const h = setup({}, ['a1', 'a2']);
    h.cycle(['a1', 'unreachable']);
    h.advance(20 * S);
    expect(h.cycle(['a1', 'connected'])).toEqual([]);
  });

  it('an unreachable service keeps the last known needs-scan (no new alert, no false recovery)', () => {
    const h = setup({}, ['a1']);
    h.cycle(['a1', 'needs-scan']);
    const got = h.cycle(['a1', 'unreachable']);
    expect(got.map((a) => a.kind)).toEqual(['unreachable']); // team-wide (the team has one agent)
    expect(
      h.policy
        .openIncidents()
        .map((i) => i.kind)
        .sort(),
    ).toEqual(['needs-scan', 'unreachable']);
  });

  it('a team-wide outage is ONE incident; what it hid is judged against the last state the service reported', () => {
    const h = setup({}, ['a1', 'a2', 'a3']);
    h.cycle(['a2', 'needs-scan']);
    h.cycle(['a3', 'reconnecting']);
    expect(h.kinds()).toEqual(['needs-scan', 'reconnecting']);
    const before = new Set(h.policy.openIncidents().map((i) => i.id));
    const down = h.policy.ingest(
      ['a1', 'a2', 'a3'].map((agentId) => ({
        teamId: 't1',
        agentId,
        from: 'connected' as Health,
        to: 'unreachable' as Health,
        at: h.now,
      })),
      h.now,
    );
    expect(down.incidents.map((u) => [u.change, u.incident.kind, u.incident.agentId])).toEqual([
      ['opened', 'unreachable', null],
    ]);
    expect(down.alerts.map((a) => a.kind)).toEqual(['unreachable']);
    h.advance(5 * MIN);
    // Back: a1 still connected, a2 still unlinked, a3 still reconnecting, and nothing of that is news.
    const back = h.policy.ingest(
      [
        { teamId: 't1', agentId: 'a1', from: 'unreachable', to: 'connected', at: h.now },
        { teamId: 't1', agentId: 'a2', from: 'unreachable', to: 'needs-scan', at: h.now },
        { teamId: 't1', agentId: 'a3', from: 'unreachable', to: 'reconnecting', at: h.now },
      ],
      h.now,
    );
    expect(back.alerts.map((a) => a.kind)).toEqual(['recovered']);
    expect(back.alerts[0]!.title).toBe('Service reachable again for team t1 after 5 min');
    expect(new Set(h.policy.openIncidents().map((i) => i.id))).toEqual(before);
    // A real change seen after it alerts as usual.
    const changed = h.policy.ingest(
      [{ teamId: 't1', agentId: 'a1', from: 'connected', to: 'needs-scan', at: h.now }],
      h.now,
    );
    expect(changed.alerts.map((a) => [a.kind, a.agentIds])).toEqual([['needs-scan', ['a1']]]);
  });

  it('a change hidden by the outage alerts once the service answers', () => {
    const h = setup({}, ['a1']);
    h.cycle(['a1', 'unreachable']);
    expect(h.cycle(['a1', 'needs-scan']).map((a) => a.kind)).toEqual(['needs-scan', 'recovered']);
  });

  it('an agent alerted alone as "cannot be checked" is folded into the team incident when the rest follow', () => {
    const h = setup({ agentUnreachableDelaySec: 60 }, ['a1', 'a2']);
    h.cycle(['a1', 'unreachable']);
    expect(h.advance(60 * S).map((a) => a.kind)).toEqual(['unreachable']);
    const out = h.policy.ingest(
      [{ teamId: 't1', agentId: 'a2', from: 'connected', to: 'unreachable', at: h.now }],
      h.now,
    );
    expect(out.incidents.map((u) => [u.change, u.incident.agentId])).toEqual([
      ['opened', null],
      ['resolved', 'a1'],
    ]);
    expect(h.policy.openIncidents().map((i) => i.agentId)).toEqual([null]);
  });

  it('alerts name the team by its label', () => {
    const policy = new AlertPolicy({ localTime: utcLocalTime, teamLabel: (id) => (id === 't1' ? 'Support desk' : id) });
    policy.ingest([{ teamId: 't1', agentId: 'a1', from: 'unknown', to: 'connected', at: T0 }], T0);
    const out = policy.ingest([{ teamId: 't1', agentId: 'a1', from: 'connected', to: 'unreachable', at: T0 }], T0);
    expect(out.alerts.map((a) => [a.teamId, a.teamLabel, a.title])).toEqual([
      ['t1', 'Support desk', 'Service unreachable for team Support desk'],
    ]);
    expect(out.alerts[0]!.body).toBe('No poll has succeeded for 1 agent: a1. Its last known state is kept.');
  });

  it('a team-wide outage counts its agents in words, one or many', () => {
    expect(text.teamUnreachable('Ops', ['a1', 'a2']).body).toBe(
      'No poll has succeeded for 2 agents: a1, a2. Their last known state is kept.',
    );
  });

  it('key-rejected → one alert per team, once, however many agents and polls', () => {
    const h = setup({}, ['a1', 'a2']);
    const got = h.cycle(['a1', 'key-rejected'], ['a2', 'key-rejected']);
    expect(got.map((a) => [a.kind, a.urgent])).toEqual([['key-rejected', true]]);
    expect(h.advance(3 * 60 * MIN)).toEqual([]);
    expect(h.cycle(['a1', 'connected'])).toEqual([]); // a2 still rejected
    expect(h.cycle(['a2', 'connected']).map((a) => a.kind)).toEqual(['recovered']);
  });

  it('groups per team: two teams changing in one cycle give one alert each', () => {
    const policy = new AlertPolicy({ localTime: utcLocalTime });
    policy.ingest(
      [
        { teamId: 'x', agentId: 'a', from: 'unknown', to: 'connected', at: T0 },
        { teamId: 'y', agentId: 'b', from: 'unknown', to: 'connected', at: T0 },
      ],
      T0,
    );
    const out = policy.ingest(
      [
        { teamId: 'x', agentId: 'a', from: 'connected', to: 'reconnecting', at: T0 },
        { teamId: 'y', agentId: 'b', from: 'connected', to: 'reconnecting', at: T0 },
      ],
      T0,
    );
    expect(out.alerts.map((a) => [a.teamId, a.kind])).toEqual([
      ['x', 'reconnecting'],
      ['y', 'reconnecting'],
    ]);
  });
});

describe('AlertPolicy: acknowledge, snooze, quiet hours', () => {
  it('acknowledgeAll acknowledges every open incident once', () => {
    const h = setup({}, ['a1', 'a2']);
    h.cycle(['a1', 'needs-scan'], ['a2', 'needs-scan']);
    expect(h.policy.acknowledgeAll(h.now).count).toBe(2);
    expect(h.policy.acknowledgeAll(h.now).count).toBe(0);
    expect(h.advance(60 * MIN)).toEqual([]);
  });

  it('snooze suppresses alerts but incidents are still tracked; re-alerts resume after it', () => {
    const h = setup();
    h.policy.snooze(h.now + 60 * MIN, h.now);
    expect(h.cycle(['a1', 'needs-scan'])).toEqual([]);
    expect(h.policy.openIncidents().map((i) => i.kind)).toEqual(['needs-scan']);
    expect(h.advance(59 * MIN)).toEqual([]);
    // The re-alert schedule continues: at 60 min the snooze is over.
    expect(h.advance(MIN).map((a) => a.kind)).toEqual(['realert']);
  });

  it('a snoozed reconnecting incident that recovers gives no recovery notice', () => {
    const h = setup();
    h.policy.snooze(h.now + 15 * MIN, h.now);
    h.cycle(['a1', 'reconnecting']);
    h.advance(20 * MIN);
    expect(h.cycle(['a1', 'connected'])).toEqual([]);
  });

  it('unsnooze (null) lets alerts through again', () => {
    const h = setup();
    h.policy.snooze(h.now + 60 * MIN, h.now);
    h.policy.snooze(null, h.now);
    expect(h.policy.snoozedUntilAt(h.now)).toBeNull();
    expect(h.cycle(['a1', 'reconnecting'])).toHaveLength(1);
  });

  it('quiet hours hold alerts, then ONE still-down summary of what is still open', () => {
    const h = setup({ quietHours: { start: '12:00', end: '13:00' } }, ['a1', 'a2', 'a3']);
    expect(h.policy.isQuiet(h.now)).toBe(true);
    expect(h.cycle(['a1', 'needs-scan'])).toEqual([]);
    h.advance(5 * MIN);
    expect(h.cycle(['a2', 'reconnecting'])).toEqual([]);
    h.advance(5 * MIN);
    expect(h.cycle(['a3', 'reconnecting'])).toEqual([]);
    h.advance(MIN);
    expect(h.cycle(['a3', 'connected'])).toEqual([]); // recovered during quiet hours: not in the summary
    const got = h.advance(60 * MIN);
    expect(got.map((a) => a.kind)).toEqual(['still-down']);
    expect(got[0]!.at).toBe(Date.UTC(2024, 0, 10, 13, 0, 0));
    expect(got[0]!.agentIds.sort()).toEqual(['a1', 'a2']);
    expect(got[0]!.urgent).toBe(true);
    expect(got[0]!.title).toBe('Still down after quiet hours: 2 incidents');
    expect(got[0]!.body).toContain('a1: needs a QR scan for');
    expect(got[0]!.body).toContain('a2: reconnecting for');
    // After the summary, things are alerted normally again, and the summary is not repeated.
    expect(h.cycle(['a2', 'connected'])).toEqual([]);
    expect(h.advance(30 * S).map((a) => a.kind)).toEqual(['recovered']);
    expect(h.advance(60 * MIN).map((a) => a.kind)).toEqual(['realert', 'realert', 'realert', 'realert']);
  });

  it('quiet hours with everything recovered end with nothing', () => {
    const h = setup({ quietHours: { start: '11:30', end: '12:30' } });
    h.cycle(['a1', 'reconnecting']);
    h.advance(MIN);
    h.cycle(['a1', 'connected']);
    expect(h.advance(2 * 60 * MIN)).toEqual([]);
  });

  it('quiet hours spanning midnight', () => {
    const p = new AlertPolicy({ rules: { quietHours: { start: '22:00', end: '07:00' } }, localTime: utcLocalTime });
    expect(p.isQuiet(Date.UTC(2024, 0, 10, 23, 0))).toBe(true);
    expect(p.isQuiet(Date.UTC(2024, 0, 10, 6, 59))).toBe(true);
    expect(p.isQuiet(Date.UTC(2024, 0, 10, 7, 0))).toBe(false);
    expect(p.isQuiet(Date.UTC(2024, 0, 10, 21, 59))).toBe(false);
    expect(p.nextWakeAt(Date.UTC(2024, 0, 10, 23, 0))).toBe(Date.UTC(2024, 0, 11, 7, 0));
  });

  it('acknowledged incidents are left out of the still-down summary', () => {
    const h = setup({ quietHours: { start: '12:00', end: '12:30' } });
    h.cycle(['a1', 'needs-scan']);
    h.policy.acknowledgeAll(h.now);
    expect(h.advance(31 * MIN)).toEqual([]);
  });

  it('setRules applies at once (e.g. a shorter re-alert period)', () => {
    const h = setup();
    h.cycle(['a1', 'needs-scan']);
    h.advance(5 * MIN);
    const out = h.policy.setRules({ realertMinutes: 5 }, h.now);
    expect(out.alerts.map((a) => a.kind)).toEqual(['realert']);
  });
});

describe('AlertPolicy: incidents', () => {
  it('reports incident updates opened → resolved, and forget() closes silently', () => {
    const h = setup({}, ['a1', 'a2']);
    const out = h.policy.ingest(
      [{ teamId: 't1', agentId: 'a1', from: 'connected', to: 'reconnecting', at: h.now }],
      h.now,
    );
    expect(out.incidents.map((u) => [u.change, u.incident.kind])).toEqual([['opened', 'reconnecting']]);
    const f = h.policy.forget('t1', 'a1', h.now);
    expect(f.alerts).toEqual([]);
    expect(f.incidents.map((u) => u.change)).toEqual(['resolved']);
    expect(h.policy.openIncidents()).toEqual([]);
  });
});
