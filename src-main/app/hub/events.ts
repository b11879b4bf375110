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
  const publish = async (trx: HubDatabase): Promise<number> => {
    await sql`select pg_advisory_xact_lock(${PUBLISH_LOCK})`.execute(trx);
    const { rows } = await sql<{ id: string }>`
      with e as (
        insert into hub_events (name, payload, replica) values (${name}, ${json}::jsonb, ${replica}) returning id
      )
      select id, pg_notify(${HUB_EVENTS_CHANNEL}, id::text) from e`.execute(trx);
    return Number(rows[0]!.id);
  };
  return db.isTransaction ? publish(db) : db.transaction().execute(publish);
}
