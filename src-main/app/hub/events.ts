// The hub's events: what concerns the team (a delivery, a health change, an incident, …) is a row of
// `hub_events` (migration 0003_events), published in the transaction that made it true and announced with
// NOTIFY on commit. Every replica serves the rows in id order; a client's cursor is the last row id it saw,
// valid on any replica.
import { sql, type RawBuilder } from 'kysely';
import type { EventName } from '../../../src-shared/contract';
import { silentLogger, type Logger } from '../../core/ports';
import { backoffDelay, type BackoffPolicy } from '../backoff';
import type { ContractEvents } from '../contract';
import type { EventJournal, JournalEvent } from '../contract-http';
import type { HubDatabase } from './database';
import { listenTo } from './notify';

/** The NOTIFY channel a commit of new events is announced on (the payload: the new row, or its id). */
const HUB_EVENTS_CHANNEL = 'hub_events';

/**
 * Publishers take this transaction-scoped advisory lock before their row takes an id, so ids become visible
 * in commit order: a reader that has seen id N never later finds a committed row below N (no gap skipped).
 */
const PUBLISH_LOCK = 0x6875_6265; // "hube"

/** A notification's payload must stay under 8,000 bytes: a larger row is announced by its id alone. */
const NOTIFY_MAX_BYTES = 7_900;

/** A row's `at` in ms (as a notification and a read carry it). */
const AT_MS = sql`(extract(epoch from at) * 1000)::bigint`;

/**
 * Records events, in this order, and announces each — inside the caller's transaction when `db` is one (the
 * rows and their NOTIFYs then commit, or vanish, with the caller's work). One statement: one lock, one round
 * trip. Publish last in a transaction: the ordering lock is held until it ends. Returns the rows' ids (each
 * event's cursor) in the same order.
 */
export async function publishHubEvents(
  db: HubDatabase,
  events: readonly { name: string; payload: unknown }[],
  replica: string | null = null,
): Promise<number[]> {
  if (events.length === 0) return [];
  const json = JSON.stringify(events.map((e) => ({ name: e.name, payload: e.payload ?? null })));
  // Outside a transaction it commits by itself and the lock is held only while it runs.
  const { rows } = await sql<{ id: string }>`
    with ${publishingCtes(
      sql`select x.e->>'name' as name, x.e->'payload' as payload, x.ord
        from jsonb_array_elements(${json}::jsonb) with ordinality as x(e, ord)`,
      replica,
    )}
    select id from hub_announced`.execute(db);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/**
 * Publishing as part of the caller's own statement (one round trip for its work and its events): the CTEs
 * `hub_locked`, `hub_published` and `hub_announced`, for the events `rows` gives (a query over the statement's
 * CTEs with the columns name, payload jsonb and ord, their order). The lock, then the rows' ids in the events'
 * order (the insert reads the lock's row first), then a NOTIFY per row, which carries the row itself when it
 * fits (a replica then needs no read for it), else its id. Given `after` (a CTE of the statement, say its own
 * insert), the lock waits until that is done, so it is held only from then to the commit. The statement must
 * read `hub_announced` for the NOTIFYs to be made.
 */
export function publishingCtes(rows: RawBuilder<unknown>, replica: string | null, after?: string): RawBuilder<unknown> {
  const done = after === undefined ? sql`` : sql` from (select count(*) from ${sql.table(after)}) as done`;
  return sql`hub_locked as (select pg_advisory_xact_lock(${PUBLISH_LOCK}) as l${done}),
    hub_published as (
      insert into hub_events (name, payload, replica)
      select x.name, x.payload, ${replica} from hub_locked, (${rows}) as x
      order by x.ord
      returning id, json_build_object('id', id, 'name', name, 'payload', payload, 'at', ${AT_MS})::text as row
    ),
    hub_announced as (
      select id, pg_notify(${HUB_EVENTS_CHANNEL}, case when octet_length(row) <= ${NOTIFY_MAX_BYTES} then row else id::text end)
      from hub_published
    )`;
}

/**
 * Where each contract event reaches a hub's clients from:
 * - 'committed': shared; published by the code that commits it, in its transaction (a delivery: the hub's
 *   ingest). The replica's own event of that name is not served (it would reach clients twice).
 * - 'replica': shared; what a replica's companion emits is published as it happens, once (each agent is
 *   polled, each incident kept, each refusal answered by one replica).
 * - 'local': served only to the clients of the replica that emitted it: the answer streams of one request
 *   (chat, send progress: app/hub/streams.ts tells the member's clients on the other replicas), what every
 *   replica reads from the database and announces itself (the inbox, the teams, a snooze) and what describes
 *   this replica's process.
 */
const HUB_EVENT_ROUTES: Record<EventName, 'committed' | 'replica' | 'local'> = {
  'tunnel.delivery': 'committed',
  'health.changed': 'replica',
  alert: 'replica',
  // Every replica applies a snooze or quiet hours (read from the database) and tells its own clients.
  'alerts.status': 'local',
  'tunnel.refused': 'replica',
  'tunnel.forward': 'replica',
  'tunnel.exposure': 'local',
  'chat.token': 'local',
  'chat.done': 'local',
  'chat.error': 'local',
  'send.progress': 'local',
  'teams.changed': 'local',
  'settings.changed': 'local',
  'app.navigate': 'local',
  'messages.new': 'local',
  'messages.changed': 'local',
  'messages.unread': 'local',
  'messages.notice': 'local',
  // Published with the member's change (app/hub/members.ts); served only to that member's streams.
  'hub.role': 'committed',
};

/** The events of a replica's companion its own clients get directly (the 'local' ones). */
function localEvents(events: ContractEvents): ContractEvents {
  return {
    onAny: (fn) =>
      events.onAny((e) => {
        if (HUB_EVENT_ROUTES[e.name] === 'local') fn(e);
      }),
  };
}

/** A publish that failed (the database is away) is tried again, in order, after these waits. */
const PUBLISH_RETRY: BackoffPolicy = { baseMs: 200, maxMs: 5_000, jitter: 0.2 };
/** Events waiting to be published while the database is away; beyond this the oldest are dropped (and said). */
const MAX_WAITING = 10_000;
/** Events published in one statement at most. */
const PUBLISH_PAGE = 500;
/** How long a closing replica waits for its waiting events to be published. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Publishes the 'replica' events of a replica's companion to hub_events, in the order it emitted them; while
 * the database is away they wait (up to MAX_WAITING) and go out once it is back.
 */
function publishReplicaEvents(
  events: ContractEvents,
  db: HubDatabase,
  replica: string,
  logger: Logger = silentLogger,
): { close(): Promise<void> } {
  const waiting: { name: EventName; payload: unknown }[] = [];
  let running: Promise<void> | null = null;
  let closed = false;
  let dropped = 0;

  const drain = async (): Promise<void> => {
    for (let attempt = 0; waiting.length > 0 && !closed;) {
      // What waits goes out together, in order (after an outage, in pages).
      const batch = waiting.slice(0, PUBLISH_PAGE);
      try {
        await publishHubEvents(db, batch, replica);
        const sent = new Set(batch);
        while (waiting.length > 0 && sent.has(waiting[0]!)) waiting.shift();
        attempt = 0;
      } catch (err) {
        attempt++;
        if (attempt === 1)
          logger.warn('hub events: publishing waits for the database', {
            error: err instanceof Error ? err.message : String(err),
            waiting: waiting.length,
          });
        await new Promise((r) => setTimeout(r, backoffDelay(PUBLISH_RETRY, attempt)));
      }
    }
  };
  const off = events.onAny((e) => {
    if (closed || HUB_EVENT_ROUTES[e.name] !== 'replica') return;
    waiting.push(e);
    if (waiting.length > MAX_WAITING) {
      waiting.splice(0, waiting.length - MAX_WAITING);
      if (dropped++ % 1000 === 0) logger.error('hub events: the database is away too long, events were dropped');
    }
    running ??= drain().finally(() => (running = null));
  });
  return {
    async close() {
      off();
      // What is waiting goes out if the database answers soon; nothing new is taken.
      await Promise.race([running, new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref())]);
      closed = true;
    },
  };
}

/** A row read back. */
interface Row {
  id: number;
  name: string;
  payload: unknown;
  /** When it was published (ms epoch, the database's clock). */
  at: number;
}

/** Rows read per query (a reader far behind reads in pages). */
const PAGE = 500;

async function rowsAfter(db: HubDatabase, after: number, upTo: number | null): Promise<Row[]> {
  let q = db
    .selectFrom('hub_events')
    .select(['id', 'name', 'payload', AT_MS.as('at_ms')])
    .where('id', '>', String(after))
    .orderBy('id')
    .limit(PAGE);
  if (upTo !== null) q = q.where('id', '<=', String(upTo));
  return (await q.execute()).map((r) => ({
    id: Number(r.id),
    name: r.name,
    payload: r.payload,
    at: Number(r.at_ms),
  }));
}

/** How long events are kept: a client away for longer resumes from the oldest kept. */
const KEEP_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/** A read that failed is tried again after these waits (and at the next notification, whichever is first). */
const READ_RETRY: BackoffPolicy = { baseMs: 100, maxMs: 5_000, jitter: 0.2 };

interface HubEventJournal extends EventJournal {
  /** The id of the newest event this replica has read. */
  head(): number;
  /** Seconds from the newest event's publishing to this replica reading it (0 before any). */
  lagSeconds(): number;
  close(): Promise<void>;
}

interface JournalOptions {
  db: HubDatabase;
  /** The database URL: the journal LISTENs on a connection of its own. */
  url: string;
  /** How often the journal reads anyway, a notification or not (ms; default 5 s): nothing waits on a lost one. */
  sweepMs?: number;
  logger?: Logger;
}

/**
 * A replica's reader of hub_events: LISTENs for commits, reads the rows after the last one it read (in id
 * order) and hands each to the streams that follow it. After its connection comes back (a database restart)
 * it reads everything after the last one, so notifications missed meanwhile lose nothing.
 */
async function startHubEventJournal(opts: JournalOptions): Promise<HubEventJournal> {
  const { db } = opts;
  const logger = opts.logger ?? silentLogger;
  interface Follower {
    last: number;
    fn: (e: JournalEvent) => void;
    /** Rows that arrived while its catch-up ran: handed on once that is done. */
    held: Row[] | null;
  }
  const followers = new Set<Follower>();
  const newest = await db
    .selectFrom('hub_events')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  let head = Number(newest?.max ?? 0);
  let lag = 0;
  let reading = false;
  let again = false;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;

  const hand = (f: Follower, row: Row): void => {
    if (row.id <= f.last) return;
    f.last = row.id;
    f.fn(row);
  };

  /** The next row in order: handed to every follower (held for one still catching up). */
  const take = (row: Row): void => {
    if (row.id <= head) return; // read already (a notification's row and a read crossed)
    head = row.id;
    lag = Math.max(0, (Date.now() - row.at) / 1000);
    for (const f of followers)
      if (f.held) f.held.push(row);
      else hand(f, row);
  };

  /** A notification: its row itself when it is the next one (no read needed), else a read from the last one. */
  const notified = (text: string): void => {
    if (text.startsWith('{')) {
      try {
        const row = JSON.parse(text) as Row;
        if (row.id === head + 1) return take(row);
      } catch {
        // read below
      }
    }
    void read();
  };

  const read = async (): Promise<void> => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        for (;;) {
          const rows = await rowsAfter(db, head, null);
          for (const row of rows) take(row);
          if (rows.length < PAGE) break;
        }
      } while (again && !closed);
      failures = 0;
    } catch (e) {
      failures++;
      if (failures === 1)
        logger.warn('hub events: reading failed; trying again', { error: e instanceof Error ? e.message : String(e) });
      if (retry === null && !closed) {
        retry = setTimeout(
          () => {
            retry = null;
            void read();
          },
          backoffDelay(READ_RETRY, failures),
        );
        retry.unref();
      }
    } finally {
      reading = false;
    }
  };

  const catchUp = async (f: Follower, upTo: number): Promise<void> => {
    for (;;) {
      const rows = await rowsAfter(db, f.last, upTo);
      for (const row of rows) hand(f, row);
      if (rows.length < PAGE) break;
    }
    const held = f.held ?? [];
    f.held = null;
    for (const row of held) hand(f, row);
  };

  const listening = listenTo(opts.url, HUB_EVENTS_CHANNEL, {
    notify: notified,
    connected: () => void read(),
    logger,
  });
  const sweep = setInterval(() => void read(), opts.sweepMs ?? 5_000);
  sweep.unref();
  const prune = (): void =>
    void db
      .deleteFrom('hub_events')
      .where('at', '<', sql<Date>`now() - make_interval(secs => ${KEEP_MS / 1000})`)
      .execute()
      .catch(() => undefined);
  prune();
  const pruning = setInterval(prune, PRUNE_EVERY_MS);
  pruning.unref();

  return {
    head: () => head,
    lagSeconds: () => lag,
    follow(after, fn, fail) {
      const start = after ?? head;
      const f: Follower = { last: start, fn, held: start < head ? [] : null };
      followers.add(f);
      if (f.held)
        catchUp(f, head).catch((e: unknown) => {
          followers.delete(f);
          fail(e);
        });
      return { cursor: start, stop: () => followers.delete(f) };
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      clearInterval(pruning);
      if (retry) clearTimeout(retry);
      followers.clear();
      await listening.close();
    },
  };
}

/** A replica's share of the fan-out: what its clients get locally, the journal they follow, and the publisher. */
interface HubFanout {
  /** The replica companion's events its own clients get directly ('local'). */
  events: ContractEvents;
  journal: HubEventJournal;
  close(): Promise<void>;
}

/** Starts a replica's fan-out: its companion's shared events published, the team's events followed. */
export async function startHubFanout(opts: {
  db: HubDatabase;
  /** The database URL: the replica LISTENs on a connection of its own. */
  url: string;
  /** The replica's companion's contract events. */
  events: ContractEvents;
  /** This replica's id, recorded with what it publishes. */
  replica: string;
  logger?: Logger;
}): Promise<HubFanout> {
  const logger = opts.logger ?? silentLogger;
  const journal = await startHubEventJournal({ db: opts.db, url: opts.url, logger });
  const publisher = publishReplicaEvents(opts.events, opts.db, opts.replica, logger);
  return {
    events: localEvents(opts.events),
    journal,
    async close() {
      await publisher.close();
      await journal.close();
    },
  };
}
