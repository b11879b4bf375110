// The hub's deliveries in Postgres (migration 0004_deliveries). Every replica's receiver commits each delivery it
// accepts to hub_deliveries before it answers 2xx (the companion's commitDelivery port, core/tunnel/ingest.ts):
// one row per agent and duplicate key (the service's message.id), so `INSERT … ON CONFLICT DO NOTHING` decides
// new or repeat across replicas, and the delivery's `tunnel.delivery` event is published in the same
// statement (events.ts). Deliveries that arrive together share one statement and one commit (group commit,
// below), each still answered by its own row; the statement runs on a connection of the ingest's own, prepared
// once (own-connection.ts). While the database is away the commit throws: the receiver
// answers 503 with Retry-After and acknowledges nothing (the service retries). The replica's own tunnel log
// stays its working cache, appended without waiting for an fdatasync (the database is the durable store).
// tunnel.deliveries / tunnel.delivery / tunnel.export / tunnel.replay read the rows, so every replica shows every
// delivery; replays (hub_delivery_replays) are kept with the member who asked for them (webhook
// registrations: registrations.ts).
import { sql } from 'kysely';
import type { DeliveryCommit, DeliveryDetail, ForwardAttempt, StoredDelivery } from '../../core/tunnel';
import { toCurl, toFixture } from '../../core/tunnel/export';
import { DEFAULT_TUNNEL_NAME } from '../../core/tunnel/headers';
import type { Companion } from '../companion/types';
import {
  deliveryDetailDTO,
  deliveryRequestDTO,
  deliverySummaryDTO,
  exportDTO,
  forwardDTO,
  lastForwardStatus,
  serviceIdOf,
} from '../contract/tunnel';
import { AppError } from '../errors';
import { createHandlers, type Handlers, type Implementations } from '../handlers';
import { actingMember } from './acting';
import { HubDatabaseError, type HubDatabase } from './database';
import { publishingCtes } from './events';
import { ownConnection } from './own-connection';

/** Postgres text (and jsonb) holds no NUL character: an authentic body may, so each is kept as U+FFFD. */
const noNul = (v: string): string => (v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v);
const jsonWithoutNul = (v: unknown): string => {
  const json = JSON.stringify(v);
  // JSON writes a NUL as \u0000: only then the slower way.
  return json.includes('\\u0000')
    ? JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? noNul(x) : x))
    : json;
};
const nullable = (v: string | null): string | null => (v === null ? null : noNul(v));

/** A database failure in words that name no URL or password. */
function databaseFailure(what: string, err: unknown): HubDatabaseError {
  const why = err instanceof Error ? err.message : String(err);
  return new HubDatabaseError(`the hub's database ${what} (${why})`);
}

/** A delivery waiting for its commit. */
interface Waiting {
  d: StoredDelivery;
  /** Its JSON.stringify (as the receiver built it for its log too). */
  json: string;
  key: string;
  teamId: string | null;
}

/** Deliveries committed in one transaction at most. */
const MAX_BATCH = 256;
/** …and their bodies' bytes at most (base64), so one statement stays of a sensible size; a larger one goes alone. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Group commit: the deliveries that arrive while a transaction runs wait and go together in the next one (one
 * statement for their rows and their events, one flush of the database's log), each answered only once that
 * transaction has committed, as 'stored' or 'duplicate' by its own row. When a transaction of several
 * fails, each is tried again alone, so a delivery the database refuses fails no other; `failure` words what
 * each rejects with. A group holds MAX_BATCH items and MAX_BATCH_BYTES (by `bytesOf`) at most.
 */
function groupCommit<T, R>(
  together: (batch: readonly T[]) => Promise<R[]>,
  failure: (err: unknown) => Error,
  bytesOf: (item: T) => number,
): (item: T) => Promise<R> {
  let waiting: { item: T; resolve(r: R): void; reject(e: Error): void }[] = [];
  let running = false;
  const run = async (): Promise<void> => {
    running = true;
    while (waiting.length > 0) {
      let count = 0;
      for (let bytes = 0; count < waiting.length && count < MAX_BATCH; count++) {
        bytes += bytesOf(waiting[count]!.item);
        if (count > 0 && bytes > MAX_BATCH_BYTES) break;
      }
      const batch = waiting.slice(0, count);
      waiting = waiting.slice(count);
      try {
        const out = await together(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(out[i]!));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(failure(err));
        else
          await Promise.all(
            batch.map((w) =>
              together([w.item]).then(
                ([r]) => w.resolve(r!),
                (e: unknown) => w.reject(failure(e)),
              ),
            ),
          );
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!running) void run();
    });
}

type DeliveryRequests = 'tunnel.deliveries' | 'tunnel.delivery' | 'tunnel.export' | 'tunnel.replay';

interface HubDeliveries {
  /** The receiver's durable commit (CompanionOptions.commitDelivery). */
  readonly commit: DeliveryCommit;
  /** Closes the ingest's own connection (at the replica's stop, once no delivery is received). */
  close(): Promise<void>;
  /** The companion the replica runs: its teams name a delivery's team, its tunnel sends replays. */
  attach(companion: Companion): void;
  /** The requests the hub answers from Postgres, over the companion's implementations. */
  handlers(implementations: Implementations): Pick<Handlers, DeliveryRequests>;
  /** A delivery as stored, by our id or else the service's (NO_DELIVERY when the hub has none). */
  find(id: string): Promise<StoredDelivery>;
}

/** A body up to 4 KiB (as base64) goes with its delivery's event (DeliverySummaryDTO.request). */
const EVENT_BODY_BASE64 = Math.ceil(4096 / 3) * 4;

/**
 * The hub's deliveries on `db`; given the database's `url`, the ingest commits on a connection of its own
 * (own-connection.ts), else on the pool's.
 */
export function hubDeliveries(db: HubDatabase, replica: string, url?: string): HubDeliveries {
  let companion: Companion | null = null;
  const ingest = ownConnection(db, url);
  const teamOf = (agentId: string): string | null => companion?.teamOfAgent(agentId) ?? null;
  const need = (): Companion => {
    if (companion === null) throw new AppError('internal', 'HUB_STARTING', 'The hub is still starting; try again.');
    return companion;
  };

  // The group's statement, compiled once (its text and every parameter but the rows' JSON stay the same): the rows
  // inserted in key order (two replicas' statements holding the same keys wait for each other in one order, never in
  // a cycle; of one key, the first to come is kept), then the events of the new ones in the order the deliveries
  // came, the lock taken once the rows are in.
  const ROWS = '\u0000rows';
  const statement = sql<{ delivery_id: string }>`
      with input as (
        select x.* from jsonb_to_recordset(${ROWS}::jsonb) as x(
          ord int, delivery_id text, agent_id text, team_id text, key text, service_id text, event text,
          sender text, verdict text, simulated boolean, received_at timestamptz, delivery jsonb, summary jsonb)
      ),
      stored as (
        insert into hub_deliveries (delivery_id, agent_id, team_id, key, service_id, event, sender, verdict,
          simulated, received_at, replica, delivery)
        select delivery_id, agent_id, team_id, key, service_id, event, sender, verdict, simulated, received_at,
          ${replica}, delivery
        from input order by agent_id, key, ord
        on conflict (agent_id, key) do nothing
        returning delivery_id
      ),
      ${publishingCtes(
        sql`select 'tunnel.delivery' as name, i.summary as payload, i.ord
          from input i join stored s on s.delivery_id = i.delivery_id`,
        replica,
        'stored',
      )}
      select delivery_id, (select count(*) from hub_announced) as announced from stored`.compile(db);
  const rowsAt = statement.parameters.indexOf(ROWS);

  /**
   * One statement (so one transaction) for these deliveries (see groupCommit): their rows, then the events of the
   * new ones; what each turned out to be, in their order.
   */
  const commitTogether = async (batch: readonly Waiting[]): Promise<('stored' | 'duplicate')[]> => {
    // The rows as one JSON array: the big parts (the delivery, its event) written once each, without NUL.
    const json = `[${batch
      .map(({ d, json, key, teamId }, ord) => {
        const small = JSON.stringify({
          ord,
          delivery_id: d.id,
          agent_id: d.agentId,
          team_id: teamId,
          key: noNul(key),
          service_id: nullable(serviceIdOf(d)),
          event: nullable(d.summary.event),
          sender: nullable(d.summary.from),
          verdict: d.verdict.reason,
          simulated: d.simulated === true,
          received_at: new Date(d.receivedAt).toISOString(),
        });
        const dto = deliverySummaryDTO(d, teamId, null);
        const summary = jsonWithoutNul(
          d.bodyBase64.length <= EVENT_BODY_BASE64 ? { ...dto, request: deliveryRequestDTO(d) } : dto,
        );
        // JSON writes a NUL as \u0000: only then the delivery's JSON is written again.
        const delivery = json.includes('\\u0000') ? jsonWithoutNul(d) : json;
        return `${small.slice(0, -1)},"delivery":${delivery},"summary":${summary}}`;
      })
      .join(',')}]`;
    const rows = await ingest.run<{ delivery_id: string }>(statement.sql, statement.parameters.with(rowsAt, json));
    const stored = new Set(rows.map((r) => r.delivery_id));
    return batch.map((w) => (stored.has(w.d.id) ? 'stored' : 'duplicate'));
  };

  const commitOne = groupCommit(
    commitTogether,
    (err) => databaseFailure('did not take the delivery', err),
    (w) => w.d.bodyBase64.length,
  );
  const commit: DeliveryCommit = (d, key, json) => commitOne({ d, json, key, teamId: teamOf(d.agentId) });
  /** The replays of these deliveries kept in the database, as forward attempts, by delivery id. */
  const replaysOf = async (ids: string[]): Promise<Map<string, ForwardAttempt[]>> => {
    const out = new Map<string, ForwardAttempt[]>();
    if (ids.length === 0) return out;
    const rows = await db
      .selectFrom('hub_delivery_replays')
      .select(['delivery_id', 'attempt'])
      .where('delivery_id', 'in', ids)
      .orderBy('id')
      .execute()
      .catch((err: unknown) => {
        throw databaseFailure('could not be read', err);
      });
    for (const r of rows) out.set(r.delivery_id, [...(out.get(r.delivery_id) ?? []), r.attempt as ForwardAttempt]);
    return out;
  };

  /**
   * A stored delivery with its forwards: this replica's own (when its receiver took it) and every replica's
   * replays, oldest first.
   */
  const detailOf = (d: StoredDelivery, replays: ForwardAttempt[]): DeliveryDetail => {
    const local = companion?.tunnel().get(d.id);
    const attempts = [...(local?.attempts ?? []), ...replays].sort((a, b) => a.at - b.at);
    return { ...d, attempts, forwardState: local?.forwardState ?? 'not-forwarded' };
  };

  /** A delivery by our id, else by the service's (the first received of the records carrying it). */
  const find = async (id: string): Promise<StoredDelivery> => {
    let row: { delivery: unknown } | undefined;
    try {
      row =
        (await db.selectFrom('hub_deliveries').select('delivery').where('delivery_id', '=', id).executeTakeFirst()) ??
        (await db
          .selectFrom('hub_deliveries')
          .select('delivery')
          .where('service_id', '=', id)
          .orderBy('id')
          .limit(1)
          .executeTakeFirst());
    } catch (err) {
      throw databaseFailure('could not be read', err);
    }
    if (row === undefined) throw new AppError('not-found', 'NO_DELIVERY', `No delivery ${id} in the hub.`);
    return row.delivery as StoredDelivery;
  };

  const findDetail = async (id: string): Promise<DeliveryDetail> => {
    const d = await find(id);
    return detailOf(d, (await replaysOf([d.id])).get(d.id) ?? []);
  };

  const mine: Pick<Implementations, DeliveryRequests> = {
    'tunnel.deliveries': async (filter) => {
      let q = db.selectFrom('hub_deliveries').select('delivery');
      if (filter.agentId !== undefined) q = q.where('agent_id', '=', filter.agentId);
      if (filter.verdict === 'simulated') q = q.where('simulated', '=', true);
      else if (filter.verdict !== undefined) q = q.where('simulated', '=', false).where('verdict', '=', filter.verdict);
      if (filter.event !== undefined) q = q.where('event', '=', filter.event);
      if (filter.from !== undefined) {
        const from = filter.from.replace(/^\+/, '');
        q = q.where('sender', 'in', [from, `+${from}`]);
      }
      if (filter.since !== undefined) q = q.where('received_at', '>=', new Date(filter.since));
      if (filter.until !== undefined) q = q.where('received_at', '<', new Date(filter.until));
      if (filter.text !== undefined) {
        // The body's bytes hold the words' UTF-8 bytes, case aside (both read as Latin-1: any bytes are text).
        const needle = Buffer.from(filter.text.toLowerCase(), 'utf8').toString('latin1');
        q = q.where(
          sql<boolean>`strpos(lower(convert_from(decode(delivery->>'bodyBase64', 'base64'), 'LATIN1')), ${needle}) > 0`,
        );
      }
      let rows: { delivery: unknown }[];
      try {
        rows = await q
          .orderBy('received_at', 'desc')
          .orderBy('id', 'desc')
          .limit(filter.limit ?? 50)
          .execute();
      } catch (err) {
        throw databaseFailure('could not be read', err);
      }
      const stored = rows.map((r) => r.delivery as StoredDelivery);
      const replays = await replaysOf(stored.map((d) => d.id));
      return stored.map((d) =>
        deliverySummaryDTO(d, teamOf(d.agentId), lastForwardStatus(detailOf(d, replays.get(d.id) ?? []))),
      );
    },
    'tunnel.delivery': async ({ id }) => {
      const d = await findDetail(id);
      const nextTryAt = companion?.tunnel().forwardStatusOf(d.agentId).nextRetryAt ?? null;
      return deliveryDetailDTO(d, teamOf(d.agentId), nextTryAt);
    },
    'tunnel.export': async ({ id, format, url }) => {
      const d = await findDetail(id);
      const to = url ?? companion?.tunnel().targetOf(d.agentId);
      return exportDTO(
        d.id,
        format,
        () => toCurl(d, { ...(to !== undefined ? { url: to } : {}), tunnelName: DEFAULT_TUNNEL_NAME }),
        () => toFixture(d),
      );
    },
    'tunnel.replay': async ({ id, mode, body, url }) => {
      const d = await find(id);
      const attempt = await need()
        .tunnel()
        .replay(d.id, {
          mode,
          delivery: d,
          ...(body !== undefined ? { body } : {}),
          ...(url !== undefined ? { url } : {}),
        });
      try {
        await db
          .insertInto('hub_delivery_replays')
          .values({
            at: new Date(attempt.at),
            delivery_id: d.id,
            member: actingMember()?.name ?? null,
            replica,
            attempt: jsonWithoutNul(attempt),
          })
          .execute();
      } catch (err) {
        throw databaseFailure('did not record the replay (it was sent)', err);
      }
      return forwardDTO(attempt);
    },
  };

  return {
    commit,
    close: () => ingest.close(),
    find,
    attach(c) {
      companion = c;
    },
    handlers(implementations) {
      const all = createHandlers({ ...implementations, ...mine });
      return {
        'tunnel.deliveries': all['tunnel.deliveries'],
        'tunnel.delivery': all['tunnel.delivery'],
        'tunnel.export': all['tunnel.export'],
        'tunnel.replay': all['tunnel.replay'],
      };
    },
  };
}
