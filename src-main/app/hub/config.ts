// The hub's teams and app settings (the companion's ConfigFile), shared by every replica: one row of
// `hub_config` (the config as jsonb and its version). A write compares and swaps on the version, so a change
// made meanwhile by another replica is never lost (TeamStore reads again and redoes its change), and announces
// the new version with NOTIFY on commit; every replica LISTENs and reads the config again within a second.
import { sql } from 'kysely';
import { checkConfig } from '../../core/teams/config-file';
import type { ConfigStore } from '../../core/teams';
import type { Logger } from '../../core/ports';
import type { HubDatabase } from './database';
import { listenTo } from './notify';

/** The NOTIFY channel a committed config change is announced on (the payload: its new version). */
const HUB_CONFIG_CHANNEL = 'hub_config';

/** The one row's id (the table allows no other, database.ts). */
const ROW = 1;

const FIX_HINT = 'It was left untouched: restore the hub_config row from a backup (docs/hub.md).';

/**
 * The config in `db`; `url` opens the connection that listens for other replicas' changes (`logger` hears
 * when it drops and when it listens again).
 */
export function postgresConfigStore(db: HubDatabase, url: string, logger?: Logger): ConfigStore {
  return {
    async read() {
      const row = await db
        .selectFrom('hub_config')
        .select(['version', 'config'])
        .where('id', '=', ROW)
        .executeTakeFirst();
      if (!row) return null;
      return {
        config: checkConfig(row.config, "The hub's shared config (hub_config)", FIX_HINT),
        version: +row.version,
      };
    },

    async write(config, expected) {
      const json = JSON.stringify(config);
      return db.transaction().execute(async (trx) => {
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
    },

    watch(changed) {
      // After a reconnection too: a change announced while the connection was down is read then.
      const listening = listenTo(url, HUB_CONFIG_CHANNEL, {
        notify: changed,
        connected: changed,
        ...(logger ? { logger } : {}),
      });
      return () => listening.close();
    },
  };
}
