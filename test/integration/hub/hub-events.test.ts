// The hub's events over real Postgres: published in the caller's transaction (or not at all), announced
// with NOTIFY on commit, and ids in commit order.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { publishHubEvent } from '../../../src-main/app/hub/events';
import { startPostgres, type TestPostgres } from './postgres';

describe('hub events', () => {
  let pgServer: TestPostgres;
  let db: HubDatabase;

  beforeAll(async () => {
    pgServer = await startPostgres();
    db = openHubDatabase(pgServer.url);
    await migrateHub(db);
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await pgServer?.stop();
  }, 30_000);

  it('publishHubEvent: a row and a NOTIFY of its id on commit; nothing when the transaction rolls back', async () => {
    const listener = new pg.Client({ connectionString: pgServer.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN hub_events');
    try {
      const id = await publishHubEvent(db, 'health', { agentId: 'a1', list: [1, 2] });
      await expect(
        db.transaction().execute(async (trx) => {
          await publishHubEvent(trx, 'health', { agentId: 'lost' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const id2 = await db.transaction().execute((trx) => publishHubEvent(trx, 'incident', { n: 2 }));
      await expect.poll(() => heard).toEqual([String(id), String(id2)]);
      const rows = await db.selectFrom('hub_events').select(['id', 'name', 'payload']).orderBy('id').execute();
      expect(rows.map((r) => [Number(r.id), r.name, r.payload])).toEqual([
        [id, 'health', { agentId: 'a1', list: [1, 2] }],
        [id2, 'incident', { n: 2 }],
      ]);
    } finally {
      await listener.end();
    }
  });
});
