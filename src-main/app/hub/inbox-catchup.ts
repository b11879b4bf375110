// The hub's inbox follows its committed deliveries. A replica commits a delivery to hub_deliveries before its 2xx
// (deliveries.ts) and writes the inbox just after, from its own `delivery` event: a replica that dies between the
// two leaves a message the service will not send again in hub_deliveries only. So every replica, at its start
// and then every CATCH_UP_EVERY_MS, takes into the inbox the committed, authentic message.received deliveries not
// in it (nor deleted from it): at start those of the retention period, then those of the last CATCH_UP_WINDOW_MS
// (a receiver stamps a delivery before it commits it). A delivery whose own replica is still writing it may be
// taken by two: the inbox's insert does nothing for a message it holds (hub_messages' (agent_id, key)).
import { sql } from 'kysely';
import type { Logger } from '../../core/ports';
import type { StoredDelivery } from '../../core/tunnel';
import type { Companion } from '../companion/types';
import type { HubDatabase } from './database';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often a replica looks for committed deliveries missing from the inbox. */
const CATCH_UP_EVERY_MS = 30_000;
/** How far back a periodic look reaches (a look at start reaches back over the retention period). */
const CATCH_UP_WINDOW_MS = 10 * 60_000;
/** How old a delivery must be before a look takes it (its own replica writes it within this, when alive). */
const SETTLE_MS = 5_000;
/** Deliveries read per query. */
const PAGE = 500;

interface InboxCatchUp {
  close(): void;
}

/** Starts the catch-up: at once over the retention period, then every CATCH_UP_EVERY_MS. */
export function startInboxCatchUp(db: HubDatabase, companion: Companion, logger: Logger): InboxCatchUp {
  const messages = companion.messages;
  /** Deliveries received in [since, until) missing from the inbox, taken into it; answers how many were. */
  const run = async (since: number, until: number): Promise<number> => {
    let taken = 0;
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const cursor: { at: Date; id: string } | null = after;
      const { rows }: { rows: { id: string; received_at: Date; delivery: unknown }[] } = await sql<{
        id: string;
        received_at: Date;
        delivery: unknown;
      }>`
        select d.id, d.received_at, d.delivery from hub_deliveries d
        where d.event = 'message.received' and (d.delivery->'verdict'->>'ok')::boolean
          and d.received_at >= ${new Date(since)} and d.received_at < ${new Date(until)}
          ${cursor === null ? sql`` : sql`and (d.received_at, d.id) > (${cursor.at}, ${cursor.id})`}
          and not exists (select 1 from hub_messages m where m.agent_id = d.agent_id and m.key = d.key)
          and not exists (select 1 from hub_message_forgotten f where f.agent_id = d.agent_id and f.key = d.key)
        order by d.received_at, d.id
        limit ${PAGE}`.execute(db);
      for (const r of rows) messages.takeDelivery(r.delivery as StoredDelivery);
      taken += rows.length;
      await messages.flush();
      if (rows.length < PAGE) return taken;
      const lastRow: { id: string; received_at: Date } = rows[rows.length - 1]!;
      after = { at: lastRow.received_at, id: lastRow.id };
    }
  };
  const look = (since: number): void => {
    const now = companion.clock.now();
    void run(since, now - SETTLE_MS).then(
      (n) => {
        if (n > 0) logger.info('hub: committed deliveries taken into the inbox', { deliveries: n });
      },
      (err: unknown) =>
        logger.warn('hub: the inbox could not catch up with the deliveries (tried again later)', {
          error: err instanceof Error ? err.message : String(err),
        }),
    );
  };
  // Once the inbox has read its retention (and its own catch-up of this data folder's log) at start.
  void messages.ready.then(() => look(companion.clock.now() - messages.retentionDays() * DAY_MS));
  const timer = setInterval(() => look(companion.clock.now() - CATCH_UP_WINDOW_MS), CATCH_UP_EVERY_MS);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
    },
  };
}
