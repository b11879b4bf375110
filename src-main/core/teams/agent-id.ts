// The one agent id rule (src-shared/limits) as a schema, and the one way to find an agent by what a
// person typed: its id exactly (ids are path segments of the service's URLs, where case counts), else
// its label in any case (labels are ours, and a team's labels are told apart without case).
import { z } from 'zod';
import { AGENT_ID_PATTERN, AGENT_ID_RULE } from '../../../src-shared/limits';

export const agentIdSchema = z.string().trim().regex(AGENT_ID_PATTERN, AGENT_ID_RULE);

/** The agent `wanted` names: the one with that id, else the first whose label matches in any case. */
export function findAgent<A extends { agentId: string; label: string }>(
  agents: readonly A[],
  wanted: string,
): A | undefined {
  const byId = agents.find((a) => a.agentId === wanted);
  if (byId) return byId;
  const label = wanted.toLowerCase();
  return agents.find((a) => a.label.toLowerCase() === label);
}
