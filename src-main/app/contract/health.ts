// health.snapshot and health.history over the monitor: every watched agent's health ('unknown'
// until its first poll), and an agent's health changes as the monitor's timeline kept them.
import type { AgentHealthDTO } from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import { unknownHealth, worstHealth } from '../health';
import { agentHealthDTO, historyEntryDTO } from './dto';
import type { Scope } from './scope';

/** Health of every agent of every team, 'unknown' for those not polled yet. */
export function healthOfAll({ c, now }: Scope): AgentHealthDTO[] {
  const polled = new Map(c.monitor().snapshot().map((s) => [`${s.teamId}\u0000${s.agentId}`, agentHealthDTO(s)]));
  return c.listTeams().flatMap((t) => t.agents.map((a) => polled.get(`${t.id}\u0000${a.agentId}`) ?? unknownHealth(t.id, a.agentId, now())));
}

export function healthRequests(s: Scope): Pick<Implementations, 'health.snapshot' | 'health.history'> {
  return {
    'health.snapshot': async () => {
      const agents = healthOfAll(s);
      return { at: s.now(), worst: worstHealth(agents.map((a) => a.health)), agents };
    },
    'health.history': async ({ teamId, agentId }) => {
      const team = s.requireTeam(teamId);
      if (!team.agents.some((a) => a.agentId === agentId)) throw new AppError('not-found', 'NO_AGENT', `No agent "${agentId}" in team "${team.label}".`);
      // Timelines are kept per agent id; entries carry their team, so another team's agent of the same id is left out.
      const entries = await s.c.monitor().timeline(agentId);
      return entries
        .filter((e) => e.teamId === team.id)
        .sort((a, b) => b.at - a.at)
        .map(historyEntryDTO);
    },
  };
}
