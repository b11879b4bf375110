// The hub's teams and app settings (the companion's ConfigFile), shared by every replica: one row of
// `hub_config` (the config as jsonb and its version). A write compares and swaps on the version, so a change
// made meanwhile by another replica is never lost (TeamStore reads again and redoes its change), and announces
// the new version with NOTIFY on commit; every replica LISTENs and reads the config again within a second.
import { sql } from 'kysely';
import { checkConfig } from '../../core/teams/config-file';
import type { ConfigStore } from '../../core/teams';
import type { Logger } from '../../core/ports';
import type { Handlers } from '../handlers';
import type { HubDatabase } from './database';
import { listenTo } from './notify';

/** The NOTIFY channel a committed config change is announced on (the payload: its new version). */
const HUB_CONFIG_CHANNEL = 'hub_config';

/** The one row's id (the table allows no other, database.ts). */
const ROW = 1;

const FIX_HINT = 'It was left untouched: restore the hub_config row from a backup (docs/hub.md).';

/** How long a request waits for its replica to read a newer config before it runs anyway. */
const CATCH_UP_MS = 2_000;

export interface HubConfigStore extends ConfigStore {
  /**
   * Before a request runs: when the database holds a newer config than this replica last read (another
   * replica's change whose NOTIFY has not been followed yet), the replica reads it first, so a member's
   * next request sees their change whichever replica takes it (a team added through one replica, named in
   * the next request at the other). One read of the version; a database that does not answer is skipped.
   */
  catchUp(): Promise<void>;
}

/**
 * The config in `db`; `url` opens the connection that listens for other replicas' changes (`logger` hears
 * when it drops and when it listens again).
 */
export function postgresConfigStore(db: HubDatabase, url: string, logger?: Logger): HubConfigStore {
  /** The newest version this replica read or wrote. */
  let seen = 0;
  const watchers = new Set<() => void>();
  const waiting = new Set<{ version: number; done: () => void }>();
  const saw = (version: number): void => {
    seen = Math.max(seen, version);
    // Released after the reader (TeamStore) has taken in what it read (its code after the await runs first).
    for (const w of waiting) if (w.version <= seen) setImmediate(w.done);
  };
  return {
    async read() {
      const row = await db
        .selectFrom('hub_config')
        .select(['version', 'config'])
        .where('id', '=', ROW)
        .executeTakeFirst();
      if (!row) return null;
      const config = checkConfig(row.config, "The hub's shared config (hub_config)", FIX_HINT);
      saw(+row.version);
      return { config, version: +row.version };
    },

    async catchUp() {
      const row = await db
        .selectFrom('hub_config')
        .select('version')
        .where('id', '=', ROW)
        .executeTakeFirst()
        .catch(() => undefined);
      if (!row || +row.version <= seen || watchers.size === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => w.done(), CATCH_UP_MS);
        const w = {
          version: +row.version,
          done: () => {
            clearTimeout(timer);
            waiting.delete(w);
            resolve();
          },
        };
        waiting.add(w);
        for (const changed of watchers) changed();
      });
    },

    async write(config, expected) {
      const json = JSON.stringify(config);
      const version = await db.transaction().execute(async (trx) => {
        const row =
          expected === null
            ? await trx
                .insertInto('hub_config')
                .values({ id: ROW, version: '1', config: sql`${json}::jsonb` })
                .onConflict((oc) => oc.column('id').doNothing())
                .returning('version')
                .executeTakeFirst()
            : await trx
                .updateTable('hub_config')
                .set({ config: sql`${json}::jsonb`, version: sql`version + 1`, updated_at: sql`now()` })
                .where('id', '=', ROW)
                .where('version', '=', String(expected))
                .returning('version')
                .executeTakeFirst();
        if (!row) return null;
        await sql`select pg_notify(${HUB_CONFIG_CHANNEL}, ${row.version})`.execute(trx);
        return +row.version;
      });
      if (version !== null) saw(version);
      return version;
    },

    watch(changed) {
      watchers.add(changed);
      // After a reconnection too: a change announced while the connection was down is read then.
      const listening = listenTo(url, HUB_CONFIG_CHANNEL, {
        notify: changed,
        connected: changed,
        ...(logger ? { logger } : {}),
      });
      return () => {
        watchers.delete(changed);
        return listening.close();
      };
    },
  };
}

/** The handlers, each run once the replica caught up with the shared config (HubConfigStore.catchUp). */
export function afterConfigCatchUp(handlers: Handlers, catchUp: () => Promise<void>): Handlers {
  const out: Record<string, (args: unknown) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as Array<[string, (args: unknown) => Promise<unknown>]>)
    out[name] = async (args) => {
      await catchUp();
      return handler(args);
    };
  return out as unknown as Handlers;
}
