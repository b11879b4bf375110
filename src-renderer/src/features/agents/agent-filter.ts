// The Agents screen's filters: a health, a team, and words to find in an agent's name, id, team,
// number or health. What they leave is worked out again only when the store's order changes (see
// store/agent-order.ts), not for every poll.
import type { AgentDTO, Health } from '../../../../src-shared/contract';
import { HEALTH_WORDS } from '../../components/health';
import { onOrderChange } from '../../store/agents';

export interface AgentFilter {
  /** Words, each to be found (any case) in the agent's name, id, team, number or health. */
  text: string;
  /** One health, or '' for any. */
  health: Health | '';
  /** One team, or '' for every team. */
  teamId: string;
}

export const NO_FILTER: AgentFilter = { text: '', health: '', teamId: '' };

export function isFiltering(f: AgentFilter): boolean {
  return f.text.trim() !== '' || f.health !== '' || f.teamId !== '';
}

function matches(a: AgentDTO, teamLabel: string, f: AgentFilter, words: readonly string[]): boolean {
  if (f.health && a.health.health !== f.health) return false;
  if (f.teamId && a.teamId !== f.teamId) return false;
  if (words.length === 0) return true;
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
  return words.every((word) => hay.includes(word));
}

/** A selector of the keys the filter leaves, worst health first (the store's order itself when nothing is filtered). */
export function shownKeys(f: AgentFilter) {
  const words = f.text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  return onOrderChange((s) => {
    if (!isFiltering(f)) return s.agentOrder;
    const teamLabel = new Map(s.teams.map((t) => [t.teamId, t.label]));
    return s.agentOrder.filter((k) => {
      const a = s.agents[k];
      return a !== undefined && matches(a, teamLabel.get(a.teamId) ?? a.teamId, f, words);
    });
  });
}
