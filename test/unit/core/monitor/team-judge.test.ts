// Team-wide incidents with a TeamJudge (a hub's replicas share a team's agents): the judge counts the agents
// polled elsewhere, a monitor that does not judge raises none and leaves its unreachable agents to the team's
// incident while one is open elsewhere, and an agent not seen yet neither opens nor closes an outage.
import { describe, expect, it } from 'vitest';
import type { Health } from '../../../../src-main/core/monitor/health';
import { AlertPolicy } from '../../../../src-main/core/monitor/policy';
import type { HealthChange, TeamJudge, TeamMemberHealth } from '../../../../src-main/core/monitor/types';
import { utcLocalTime } from '../../../helpers/local-time';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
const MIN = 60_000;

function setup(judges: boolean) {
  const elsewhere: TeamMemberHealth[] = [];
  const judge: TeamJudge & { down: boolean } = {
    down: false,
    judges: () => judges,
    elsewhere: () => elsewhere,
    downElsewhere() {
      return this.down;
    },
  };
  const policy = new AlertPolicy({ localTime: utcLocalTime, teamJudge: judge });
  const seen = new Map<string, Health>();
  const change = (agentId: string, to: Health, at: number): HealthChange => {
    const from = seen.get(agentId) ?? 'unknown';
    seen.set(agentId, to);
    return { teamId: 't1', agentId, from, to, at, lastGoodAt: T0 };
  };
  const teamWide = () => policy.openIncidents().filter((i) => i.agentId === null);
  return { policy, judge, elsewhere, change, teamWide };
}

describe('team-wide incidents with a TeamJudge', () => {
  it('the judge opens an outage only when the agents polled elsewhere are down too, and closes it when one answers', () => {
    const h = setup(true);
    h.elsewhere.push({ agentId: 'b', health: 'connected', downSince: null });
    h.policy.ingest([h.change('a', 'unreachable', T0)], T0);
    expect(h.teamWide()).toEqual([]);
    h.elsewhere[0] = { agentId: 'b', health: 'unreachable', downSince: T0 - 5_000 };
    const out = h.policy.judgeTeams(['t1'], T0 + 1_000);
    expect(h.teamWide()).toEqual([expect.objectContaining({ kind: 'unreachable', agentIds: ['a', 'b'] })]);
    expect(h.teamWide()[0]!.openedAt).toBe(T0 - 5_000);
    expect(out.alerts.filter((a) => a.kind === 'unreachable')).toHaveLength(1);
    // b taken over by another watcher, not seen there yet: the outage stands.
    h.elsewhere[0] = { agentId: 'b', health: 'unknown', downSince: null };
    h.policy.judgeTeams(['t1'], T0 + 2_000);
    expect(h.teamWide()).toHaveLength(1);
    h.elsewhere[0] = { agentId: 'b', health: 'connected', downSince: null };
    h.policy.judgeTeams(['t1'], T0 + 3_000);
    expect(h.teamWide()).toEqual([]);
  });

  it('the key rejected for an agent polled elsewhere opens the team incident at the judge', () => {
    const h = setup(true);
    h.policy.ingest([h.change('a', 'connected', T0)], T0);
    h.elsewhere.push({ agentId: 'b', health: 'key-rejected', downSince: null });
    h.policy.judgeTeams(['t1'], T0 + 1_000);
    expect(h.teamWide()).toEqual([expect.objectContaining({ kind: 'key-rejected' })]);
  });

  it('a monitor that does not judge raises no team incident, and no agent one while an outage is open elsewhere', () => {
    const h = setup(false);
    const out = h.policy.ingest([h.change('a', 'unreachable', T0), h.change('c', 'key-rejected', T0)], T0);
    expect(h.teamWide()).toEqual([]);
    expect(out.alerts).toEqual([]);
    h.judge.down = true;
    h.policy.tick(T0 + 5 * MIN);
    expect(h.policy.openIncidents()).toEqual([]);
    // The outage over: a still unreachable agent is alerted alone after its delay.
    h.judge.down = false;
    h.policy.tick(T0 + 6 * MIN);
    expect(h.policy.openIncidents()).toEqual([expect.objectContaining({ agentId: 'a', kind: 'unreachable' })]);
    // An outage judged elsewhere covers it: resolved here.
    h.judge.down = true;
    h.policy.judgeTeams(['t1'], T0 + 7 * MIN);
    expect(h.policy.openIncidents()).toEqual([]);
  });
});
