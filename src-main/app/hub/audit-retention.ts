// How long the team's activity (hub_audit: reveals, deletions, registrations, members, every request beyond
// reading) is kept: `hub --audit-days N` or CHANNEL_HUB_AUDIT_DAYS, 400 days by default, 0 to keep it forever.
// One replica at a time sweeps: the sweep holds a session advisory lock on one connection, and a replica that
// finds it held skips its turn (the holder deletes the same rows). Rows go in bounded batches, oldest first,
// each batch its own short statement (the `at` index finds them), so a first sweep over years of rows never
// holds a long transaction or locks the table against the records being written meanwhile.
import { sql } from 'kysely';
import type { Logger } from '../../core/ports';
import type { HubDatabase } from './database';

/** Days kept when the operator says nothing. */
const DEFAULT_AUDIT_DAYS = 400;
/** Rows one statement deletes at most. */
const BATCH = 1_000;
/** How often each replica tries to sweep (the first try is at start). */
const SWEEP_EVERY_MS = 3_600_000;
/** The sweep's session advisory lock (one bigint key, apart from the other locks' keys). */
const SWEEP_LOCK = 0x6875_6261; // "huba"

interface AuditRetentionOptions {
  db: HubDatabase;
  /** Days kept (0: forever); undefined: DEFAULT_AUDIT_DAYS. */
  days?: number | undefined;
  logger: Logger;
  /** Rows per statement (default 1,000). */
  batch?: number;
  /** Between two sweeps (default an hour). */
  everyMs?: number;
}

interface AuditRetention {
  readonly days: number;
  /** Deletes what is older than the retention; null when another replica is sweeping (or 0 days: forever). */
  sweep(): Promise<number | null>;
  /** Stops the sweeps, waiting for one under way. */
  close(): Promise<void>;
}

/** Starts sweeping at once, then every `everyMs`; a sweep that fails is logged and tried again next time. */
export function startAuditRetention(o: AuditRetentionOptions): AuditRetention {
  const days = o.days ?? DEFAULT_AUDIT_DAYS;
  if (!Number.isInteger(days) || days < 0)
    throw new RangeError(`the activity's retention is a whole number of days (0: forever), not ${days}`);
  const batch = o.batch ?? BATCH;
  let closed = false;
  let running: Promise<number | null> | null = null;

  const sweepOnce = async (): Promise<number | null> => {
    if (days === 0) return null;
    return o.db.connection().execute(async (conn) => {
      const lock = await sql<{ got: boolean }>`select pg_try_advisory_lock(${SWEEP_LOCK}::bigint) as got`.execute(conn);
      if (!lock.rows[0]?.got) return null;
      let deleted = 0;
      try {
        for (;;) {
          const r = await sql`
            delete from hub_audit where id in (
              select id from hub_audit where at < now() - make_interval(days => ${days}::int)
              order by at limit ${batch}::int)`.execute(conn);
          const n = Number(r.numAffectedRows ?? 0);
          deleted += n;
          if (n < batch || closed) break;
        }
      } finally {
        await sql`select pg_advisory_unlock(${SWEEP_LOCK}::bigint)`.execute(conn).catch(() => undefined);
      }
      return deleted;
    });
  };

  const sweep = (): Promise<number | null> => {
    running ??= sweepOnce().finally(() => (running = null));
    return running;
  };

  const tick = (): void =>
    void sweep().then(
      (n) => {
        if (n) o.logger.info(`hub: ${n} activity record${n === 1 ? '' : 's'} older than ${days} days deleted`);
      },
      (e: unknown) =>
        o.logger.warn("hub: the activity's retention could not run; it runs again within the hour", {
          error: e instanceof Error ? e.message : String(e),
        }),
    );
  let timer: NodeJS.Timeout | null = null;
  if (days > 0) {
    tick();
    timer = setInterval(tick, o.everyMs ?? SWEEP_EVERY_MS);
    timer.unref();
  }

  return {
    days,
    sweep,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
