// The Agents screen's order, kept in the store so a poll does not sort the whole list again: worst
// health first (HEALTHS is ordered best → worst), then longest in that state, then team and label.
// A health event that changes the health word or its `since` moves that one agent (a binary search
// in the order as it stands); one that changes only what the row shows (checkedAt, the last error)
// keeps the order as it is, the same array.
import type { AgentDTO, Health, TeamDTO } from '../../../src-shared/contract';
import { HEALTHS } from '../../../src-shared/contract';

type Agents = Readonly<Record<string, AgentDTO>>;
type TeamLabels = ReadonlyMap<string, string>;

/** More events in one batch than this re-sort the whole order (cheaper than as many moves). */
const RESORT_ABOVE = 64;

const rank = (h: Health): number => HEALTHS.indexOf(h);

function teamLabels(teams: readonly TeamDTO[]): TeamLabels {
  return new Map(teams.map((t) => [t.teamId, t.label]));
}

function compare(a: AgentDTO, b: AgentDTO, labels: TeamLabels): number {
  return (
    rank(b.health.health) - rank(a.health.health) ||
    a.health.since - b.health.since ||
    (labels.get(a.teamId) ?? a.teamId).localeCompare(labels.get(b.teamId) ?? b.teamId) ||
    a.label.localeCompare(b.label)
  );
}

/** Every agent's key, worst health first. */
export function sortedKeys(agents: Agents, teams: readonly TeamDTO[]): string[] {
  const labels = teamLabels(teams);
  return Object.keys(agents).sort((a, b) => compare(agents[a]!, agents[b]!, labels));
}

/** Whether a change of an agent's health moves it in the order. */
export function movesInOrder(before: AgentDTO['health'], after: AgentDTO['health']): boolean {
  return before.health !== after.health || before.since !== after.since;
}

/**
 * The order with `moved` (keys of agents whose health word or since changed, already in `agents`)
 * each put where it now belongs; a new array. Many at once: sorted afresh.
 */
export function reorder(
  order: readonly string[],
  moved: ReadonlySet<string>,
  agents: Agents,
  teams: readonly TeamDTO[],
) {
  if (moved.size > RESORT_ABOVE) return sortedKeys(agents, teams);
  const labels = teamLabels(teams);
  const next = order.filter((k) => !moved.has(k));
  for (const key of moved) {
    const a = agents[key]!;
    let lo = 0;
    let hi = next.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(agents[next[mid]!]!, a, labels) <= 0) lo = mid + 1;
      else hi = mid;
    }
    next.splice(lo, 0, key);
  }
  return next;
}
