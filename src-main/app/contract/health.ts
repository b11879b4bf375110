// health.snapshot, health.history and health.availability over the monitor: every watched agent's
// health ('unknown' until its first poll), an agent's health changes as the monitor's timeline kept
// them, and its availability over 24 h, 7 d and 30 d computed from those changes.
import type { AgentHealthDTO } from '../../../src-shared/contract';
import { availability, type TimelineEntry } from '../../core/monitor';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import { unknownHealth, worstHealth } from '../health';
import { agentHealthDTO, historyEntryDTO } from './dto';
import type { Scope } from './scope';

/** Health of every agent of every team, 'unknown' for those not polled yet. */
export function healthOfAll({ c, now }: Scope): AgentHealthDTO[] {
  const polled = new Map(
    c
      .monitor()
      .snapshot()
      .map((s) => [`${s.teamId}\u0000${s.agentId}`, agentHealthDTO(s)]),
  );
  return c
    .listTeams()
    .flatMap((t) =>
      t.agents.map((a) => polled.get(`${t.id}\u0000${a.agentId}`) ?? unknownHealth(t.id, a.agentId, now())),
    );
}

const HOUR = 3_600_000;
/** The availability windows: 24 h, 7 d, 30 d. */
const AVAILABILITY_WINDOWS_MS = [24 * HOUR, 7 * 24 * HOUR, 30 * 24 * HOUR] as const;

/** An agent's timeline entries (the monitor's, or a hub's in its database), in any order. */
type TimelineOf = (teamId: string, agentId: string) => Promise<TimelineEntry[]>;

/** health.history and health.availability over an agent's timeline entries. */
export function timelineRequests(
  s: Pick<Scope, 'now' | 'requireTeam'>,
  timelineOf: TimelineOf,
): Pick<Implementations, 'health.history' | 'health.availability'> {
  /** The agent's timeline entries of its own team (timelines are kept per agent id; entries carry their team). */
  const entriesOf = async (teamId: string, agentId: string) => {
    const team = s.requireTeam(teamId);
    if (!team.agents.some((a) => a.agentId === agentId))
      throw new AppError('not-found', 'NO_AGENT', `No agent "${agentId}" in team "${team.label}".`);
    return (await timelineOf(team.id, agentId)).filter((e) => e.teamId === team.id);
  };
  return {
    'health.history': async ({ teamId, agentId }) =>
      (await entriesOf(teamId, agentId)).sort((a, b) => b.at - a.at).map(historyEntryDTO),
    'health.availability': async ({ teamId, agentId }) => {
      const entries = await entriesOf(teamId, agentId);
      const at = s.now();
      return { at, windows: AVAILABILITY_WINDOWS_MS.map((w) => availability(entries, at, w)) };
    },
  };
}

export function healthRequests(
  s: Scope,
): Pick<Implementations, 'health.snapshot' | 'health.history' | 'health.availability'> {
  return {
    'health.snapshot': async () => {
      const agents = healthOfAll(s);
      return { at: s.now(), worst: worstHealth(agents.map((a) => a.health)), agents };
    },
    ...timelineRequests(s, (_teamId, agentId) => s.c.monitor().timeline(agentId)),
  };
}
