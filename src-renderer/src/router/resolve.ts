// A route may name an agent without its team (e.g. "#/agents/a1" from a tray click): find it.
import type { AgentDTO } from '../../../src-shared/contract';

export function resolveAgent(
  agents: Record<string, AgentDTO>,
  agentId: string,
  teamId: string | null,
): AgentDTO | null {
  const all = Object.values(agents);
  if (teamId) return all.find((a) => a.teamId === teamId && a.agentId === agentId) ?? null;
  const matches = all.filter((a) => a.agentId === agentId);
  return matches.length === 1 ? matches[0]! : null;
}
