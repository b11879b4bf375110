// An agent's health history (health.history) merged with the changes seen live (health.changed).
import type { AgentHealthDTO, HealthHistoryEntryDTO } from '../../../src-shared/contract';

const HISTORY_MAX = 500;

const sameEntry = (a: HealthHistoryEntryDTO, b: HealthHistoryEntryDTO): boolean =>
  a.at === b.at && a.health === b.health;

/** Newest first, without duplicates (a live entry and the same change read from the monitor). */
export function mergeHistory(a: HealthHistoryEntryDTO[], b: HealthHistoryEntryDTO[]): HealthHistoryEntryDTO[] {
  const out: HealthHistoryEntryDTO[] = [];
  for (const e of [...a, ...b].sort((x, y) => y.at - x.at)) if (!out.some((o) => sameEntry(o, e))) out.push(e);
  return out.slice(0, HISTORY_MAX);
}

/** The history entry for a health event that changed the health word (null when it did not). */
export function liveHistoryEntry(before: AgentHealthDTO, after: AgentHealthDTO): HealthHistoryEntryDTO | null {
  if (before.health === after.health) return null;
  const e: HealthHistoryEntryDTO = { at: after.since, health: after.health, previous: before.health };
  if (after.state !== null) e.state = after.state;
  if (after.error) e.note = after.error.message;
  return e;
}
