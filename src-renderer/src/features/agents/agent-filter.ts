// The Agents screen's filters: a health, a team, a label, and words to find in an agent's name, id, team,
// number, health or labels. What they leave is worked out again only when the store's order changes (see
// store/agent-order.ts), not for every poll.
import type { AgentDTO, Health } from '../../../../src-shared/contract';
import { HEALTH_WORDS } from '../../components/health';
import { onOrderChange, type AgentsSlice } from '../../store/agents';

export interface AgentFilter {
  /** Words, each to be found (any case) in the agent's name, id, team, number or health. */
  text: string;
  /** One health, or '' for any. */
  health: Health | '';
  /** One team, or '' for every team. */
  teamId: string;
  /** One label (as kept: lowercase), or '' for any. */
  label: string;
}

export const NO_FILTER: AgentFilter = { text: '', health: '', teamId: '', label: '' };

export function isFiltering(f: AgentFilter): boolean {
  return f.text.trim() !== '' || f.health !== '' || f.teamId !== '' || f.label !== '';
}

function matches(a: AgentDTO, teamLabel: string, f: AgentFilter, words: readonly string[]): boolean {
  if (f.health && a.health.health !== f.health) return false;
  if (f.teamId && a.teamId !== f.teamId) return false;
  // At most 16 short labels an agent: a look through them costs less than a set built per agent.
  if (f.label && !a.labels.includes(f.label)) return false;
  if (words.length === 0) return true;
  const hay = [
    a.label,
    a.agentId,
    teamLabel,
    a.health.phone ?? '',
    HEALTH_WORDS[a.health.health],
    a.health.health,
    a.health.state ?? '',
    ...a.labels,
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

/** Each label the agents have, with how many have it, by label. */
export type LabelCounts = ReadonlyArray<readonly [label: string, count: number]>;

/**
 * A selector of the labels present and their counts, worked out again only when the agents are listed again
 * (a health event replaces its entry in the same record: labels come only with a new list).
 */
export function labelCounts() {
  let agents: AgentsSlice['agents'] | null = null;
  let last: LabelCounts = [];
  return (s: Pick<AgentsSlice, 'agents'>): LabelCounts => {
    if (s.agents === agents) return last;
    agents = s.agents;
    const counts = new Map<string, number>();
    for (const key in s.agents) for (const l of s.agents[key]!.labels) counts.set(l, (counts.get(l) ?? 0) + 1);
    last = [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return last;
  };
}
