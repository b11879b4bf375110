// How the inspector names an agent and its team: the labels people gave them, never internal team
// ids (an agent the app does not know keeps its id; a team it does not know is "another team").
import { useCallback } from 'react';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';

export interface Names {
  agent: string;
  team: string | null;
}

export function useNames(): (teamId: string | null, agentId: string | null) => Names {
  const agents = useApp((s) => s.agents);
  const teams = useApp((s) => s.teams);
  return useCallback(
    (teamId, agentId) => {
      const team = teamId ? (teams.find((t) => t.teamId === teamId)?.label ?? 'another team') : null;
      if (!agentId) return { agent: 'no agent', team };
      const own = teamId ? agents[agentKey(teamId, agentId)] : Object.values(agents).find((a) => a.agentId === agentId);
      return { agent: own?.label || agentId, team };
    },
    [agents, teams],
  );
}

/** "Support bot · Demo team". */
export function nameWords(n: Names): string {
  return n.team ? `${n.agent} · ${n.team}` : n.agent;
}
