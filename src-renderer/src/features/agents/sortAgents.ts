// Agents home ordering and filtering: worst health first (HEALTHS order), then longest in
// that state, then team and label.
import type { AgentDTO, TeamDTO } from '../../../../src-shared/contract';
import { HEALTH_WORDS, healthRank } from '../../components/health';

export function sortWorstFirst(list: AgentDTO[], teams: TeamDTO[]): AgentDTO[] {
  const teamLabel = new Map(teams.map((t) => [t.teamId, t.label]));
  return [...list].sort(
    (a, b) =>
      healthRank(b.health.health) - healthRank(a.health.health) ||
      a.health.since - b.health.since ||
      (teamLabel.get(a.teamId) ?? a.teamId).localeCompare(teamLabel.get(b.teamId) ?? b.teamId) ||
      a.label.localeCompare(b.label),
  );
}

export function matchesFilter(a: AgentDTO, teamLabel: string, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  const hay = [
    a.label,
    a.agentId,
    teamLabel,
    a.health.phone ?? '',
    HEALTH_WORDS[a.health.health],
    a.health.health,
    a.health.state ?? '',
  ]
    .join(' ')
    .toLowerCase();
  return f.split(/\s+/).every((word) => hay.includes(word));
}
