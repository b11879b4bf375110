// The Agents screen's order, kept in the store so a poll does not sort the whole list again: worst
// health first (HEALTHS is ordered best → worst), then longest in that state, then team and label.
// A health event that changes the health word or its `since` moves that one agent (a binary search
// in the order as it stands; a batch of them is sorted and merged in, never the whole order sorted
// again); one that changes only what the row shows (checkedAt, the last error) keeps the order as it
// is, the same array.
import type { AgentDTO, Health, TeamDTO } from '../../../src-shared/contract';
import { HEALTHS } from '../../../src-shared/contract';

type Agents = Readonly<Record<string, AgentDTO>>;
type TeamLabels = ReadonlyMap<string, string>;

const rank = (h: Health): number => HEALTHS.indexOf(h);

/** String.prototype.localeCompare's order, without building a collator per call. */
const collate = new Intl.Collator().compare;

function teamLabels(teams: readonly TeamDTO[]): TeamLabels {
  return new Map(teams.map((t) => [t.teamId, t.label]));
}

function compare(a: AgentDTO, b: AgentDTO, labels: TeamLabels): number {
  return (
    rank(b.health.health) - rank(a.health.health) ||
    a.health.since - b.health.since ||
    collate(labels.get(a.teamId) ?? a.teamId, labels.get(b.teamId) ?? b.teamId) ||
    collate(a.label, b.label)
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
 * each put where it now belongs; a new array. The moved ones are sorted among themselves, each placed
 * by a binary search after the one before it, and the rest copied between them in slices.
 */
export function reorder(
  order: readonly string[],
  moved: ReadonlySet<string>,
  agents: Agents,
  teams: readonly TeamDTO[],
) {
  const labels = teamLabels(teams);
  const rest = order.filter((k) => !moved.has(k));
  const incoming = [...moved].sort((a, b) => compare(agents[a]!, agents[b]!, labels));
  const next: string[] = [];
  let from = 0;
  for (const key of incoming) {
    const a = agents[key]!;
    let lo = from;
    let hi = rest.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(agents[rest[mid]!]!, a, labels) <= 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = from; i < lo; i++) next.push(rest[i]!);
    next.push(key);
    from = lo;
  }
  for (let i = from; i < rest.length; i++) next.push(rest[i]!);
  return next;
}
