// The hub's events: what concerns the team (a delivery, a health change, an incident, …) is a row of
// `hub_events` (migration 0003_events), published in the transaction that made it true and announced with
// NOTIFY on commit. Every replica serves the rows in id order; a client's cursor is the last row id it saw,
// valid on any replica.
import { sql } from 'kysely';
import type { HubDatabase } from './database';

/** The NOTIFY channel a commit of new events is announced on (the payload: the new row's id). */
export const HUB_EVENTS_CHANNEL = 'hub_events';

/**
 * Publishers take this transaction-scoped advisory lock before their row takes an id, so ids become visible
 * in commit order: a reader that has seen id N never later finds a committed row below N (no gap skipped).
 */
const PUBLISH_LOCK = 0x6875_6265; // "hube"

/**
 * Records event `name` with `payload` (JSON) and announces it — inside the caller's transaction when `db` is
 * one (the row and its NOTIFY then commit, or vanish, with the caller's work). Publish last in a
 * transaction: the ordering lock is held until it ends. Returns the row id (the event's cursor).
 */
export async function publishHubEvent(
  db: HubDatabase,
  name: string,
  payload: unknown,
  replica: string | null = null,
): Promise<number> {
  const json = JSON.stringify(payload ?? null);
  // One statement: the lock, then the row's id (the insert reads the lock's row first), then the NOTIFY.
  // Outside a transaction it commits by itself and the lock is held only while it runs.
  const { rows } = await sql<{ id: string }>`
    with locked as (select pg_advisory_xact_lock(${PUBLISH_LOCK}) as l),
    e as (
      insert into hub_events (name, payload, replica)
      select ${name}, ${json}::jsonb, ${replica} from locked
      returning id
    )
    select id, pg_notify(${HUB_EVENTS_CHANNEL}, id::text) from e`.execute(db);
  return Number(rows[0]!.id);
}
