// The team's activity (hub_audit) is kept for `hub --audit-days N` days (CHANNEL_HUB_AUDIT_DAYS; 400 by default,
// 0: forever), on a real Postgres: records older than that go in bounded batches, newer ones stay; one replica
// sweeps at a time (a session advisory lock), so two replicas sweeping at once neither fail nor delete twice; a
// replica started with a retention sweeps at its start; a bad value is refused before anything starts.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAuditRetention } from '../../../src-main/app/hub/audit-retention';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { silentLogger } from '../../../src-main/core/ports';
import { runCli } from '../../helpers/cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import { sqlRows, startHubReplica, stopAll } from './support';

/** The sweep's advisory lock (app/hub/audit-retention.ts): held here, it stands for another replica sweeping. */
const SWEEP_LOCK = 0x6875_6261;

describe("the team activity's retention", () => {
  let server: TestPostgres;
  let db: HubDatabase;
  let dir: string;

  /** `n` records `daysAgo` days old, with the action `action`. */
  const seed = (n: number, daysAgo: number, action: string) =>
    sqlRows(
      server.url,
      `insert into hub_audit (at, member, action, subject)
       select now() - make_interval(days => $1::int), 'ada', $2, 'agent sales' from generate_series(1, $3::int)`,
      [daysAgo, action, n],
    );
  const count = async (action: string): Promise<number> =>
    Number(
      (await sqlRows<{ n: string }>(server.url, 'select count(*) as n from hub_audit where action = $1', [action]))[0]!
        .n,
    );

  beforeAll(async () => {
    server = await startPostgres();
    db = openHubDatabase(server.url);
    await migrateHub(db);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-audit-'));
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await sqlRows(server.url, 'delete from hub_audit');
  });

  it('deletes the records older than the retention in bounded batches and keeps the newer ones', async () => {
    await seed(2_345, 500, 'old');
    await seed(7, 401, 'just-over');
    await seed(11, 399, 'just-under');
    await seed(13, 0, 'today');
    const r = startAuditRetention({ db, days: 400, logger: silentLogger, batch: 100, everyMs: 3_600_000 });
    try {
      // The sweep at start, then one asked for: the second finds nothing left.
      await waitFor(async () => (await count('old')) === 0, 20_000, 'the old records gone');
      expect(await r.sweep()).toBe(0);
    } finally {
      await r.close();
    }
    expect(await count('just-over')).toBe(0);
    expect(await count('just-under')).toBe(11);
    expect(await count('today')).toBe(13);
  });

  it('one replica sweeps at a time: another finds it sweeping and skips its turn; two at once delete each row once', async () => {
    // Another replica's sweep under way (its lock held): this one deletes nothing and says so.
    const other = new pg.Client({ connectionString: server.url });
    await other.connect();
    const a = startAuditRetention({ db, days: 30, logger: silentLogger, batch: 10, everyMs: 3_600_000 });
    try {
      await a.sweep(); // its sweep at start, over
      await seed(50, 500, 'old');
      await other.query('select pg_advisory_lock($1::bigint)', [SWEEP_LOCK]);
      expect(await a.sweep()).toBeNull();
      expect(await count('old')).toBe(50);
      await other.query('select pg_advisory_unlock($1::bigint)', [SWEEP_LOCK]);
      expect(await a.sweep()).toBe(50);
      expect(await count('old')).toBe(0);
    } finally {
      await a.close();
      await other.end();
    }

    // Two replicas (two pools) sweeping together, many times over: no error, every row deleted once.
    await seed(3_000, 500, 'old');
    await seed(5, 1, 'recent');
    const dbB = openHubDatabase(server.url);
    const one = startAuditRetention({ db, days: 30, logger: silentLogger, batch: 50, everyMs: 3_600_000 });
    const two = startAuditRetention({ db: dbB, days: 30, logger: silentLogger, batch: 50, everyMs: 3_600_000 });
    try {
      // Their sweeps at start (asked now, each is the one under way), then more of them at once.
      const first = await Promise.all([one.sweep(), two.sweep()]);
      const more = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? one : two).sweep()));
      const deleted = [...first, ...more].reduce<number>((sum, n) => sum + (n ?? 0), 0);
      expect(deleted).toBe(3_000);
      expect(await count('old')).toBe(0);
      expect(await count('recent')).toBe(5);
    } finally {
      await Promise.all([one.close(), two.close()]);
      await dbB.destroy();
    }
  });

  it('0 days keeps the activity forever', async () => {
    await seed(20, 4_000, 'ancient');
    const r = startAuditRetention({ db, days: 0, logger: silentLogger });
    try {
      expect(await r.sweep()).toBeNull();
    } finally {
      await r.close();
    }
    expect(await count('ancient')).toBe(20);
  });

  it('a replica started with --audit-days sweeps at its start (CHANNEL_HUB_AUDIT_DAYS when the flag is absent)', async () => {
    await seed(30, 40, 'old');
    await seed(4, 10, 'recent');
    const replica = await startHubReplica({
      databaseUrl: server.url,
      secretKey: randomBytes(32).toString('base64'),
      dir,
      name: 'a',
      env: { CHANNEL_HUB_AUDIT_DAYS: '30' },
    });
    try {
      expect((await replica.proc.firstJsonLine()).auditDays).toBe(30);
      await waitFor(async () => (await count('old')) === 0, 20_000, 'the records over 30 days gone');
      expect(await count('recent')).toBe(4);
    } finally {
      await stopAll([replica.proc], 'SIGTERM');
    }
  }, 120_000);

  it.each([
    [['--audit-days', '-1'], {}, '--audit-days'],
    [['--audit-days', 'a year'], {}, '--audit-days'],
    [['--audit-days', '3651'], {}, '--audit-days: expected a number from 0 to 3650'],
    [[], { CHANNEL_HUB_AUDIT_DAYS: '12.5' }, 'CHANNEL_HUB_AUDIT_DAYS: expected a whole number'],
  ])('a bad retention (%j %j) is refused (exit 2) before the hub starts', async (args, env, said) => {
    const r = await runCli(['hub', '--port', '0', ...args], {
      configDir: path.join(dir, 'bad'),
      env: { DATABASE_URL: server.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64'), ...env },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(said);
  });
});
