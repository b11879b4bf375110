// The hub's database: Postgres through Kysely over the `pg` pool, and its schema as versioned migrations run
// by Kysely's Migrator (in order, under its lock, so two hubs starting together migrate once).
import { Kysely, Migrator, PostgresDialect, sql, type Generated, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { CompanionError } from '../../core/errors';

interface MembersTable {
  id: Generated<number>;
  name: string;
  role: string;
  token_hash: string;
  created_at: Generated<Date>;
  removed_at: Date | null;
}

interface AuditTable {
  id: Generated<number>;
  at: Generated<Date>;
  /** The member who acted; null: the hub's operator (a `hub member …` command on the server). */
  member: string | null;
  action: string;
  subject: string | null;
}

/** An event for every client of every replica (app/hub/events.ts); its id is the clients' cursor. */
interface EventsTable {
  id: Generated<string>;
  at: Generated<Date>;
  name: string;
  payload: unknown;
  /** The replica that published it, when it said. */
  replica: string | null;
}

interface HubSchema {
  hub_members: MembersTable;
  hub_audit: AuditTable;
  hub_events: EventsTable;
}

export type HubDatabase = Kysely<HubSchema>;

/** The schema, oldest first. A migration once released never changes: add the next one instead. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_members_and_audit': {
    async up(db) {
      await db.schema
        .createTable('hub_members')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('viewer', 'developer', 'on-call', 'admin')`))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('removed_at', 'timestamptz')
        .execute();
      // A name is one member at a time; a removed member's name may be given again.
      await db.schema
        .createIndex('hub_members_name_present')
        .on('hub_members')
        .column('name')
        .unique()
        .where(sql.ref('removed_at'), 'is', null)
        .execute();
      await db.schema
        .createTable('hub_audit')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('member', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('subject', 'text')
        .execute();
      await db.schema.createIndex('hub_audit_at').on('hub_audit').column('at').execute();
    },
  },
  '0003_events': {
    async up(db) {
      await db.schema
        .createTable('hub_events')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('replica', 'text')
        .execute();
      // The primary key indexes id (the clients' cursor); `at` serves pruning old rows.
      await db.schema.createIndex('hub_events_at').on('hub_events').column('at').execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** The database URL could not be used, or the database refused: the message names no password. */
export class HubDatabaseError extends CompanionError {
  constructor(message: string) {
    super(message);
    this.name = 'HubDatabaseError';
  }
}

/** A postgres:// URL, checked before any connection (the password never appears in the error). */
function checkDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HubDatabaseError('the database URL is not a URL: expected postgres://USER@HOST:PORT/DATABASE');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new HubDatabaseError(`the database URL must start with postgres:// (not ${parsed.protocol}//)`);
  return url;
}

export function openHubDatabase(url: string): HubDatabase {
  const pool = new pg.Pool({ connectionString: checkDatabaseUrl(url), max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client whose connection drops (a database restart) is discarded; the next query reconnects.
  pool.on('error', () => undefined);
  return new Kysely<HubSchema>({ dialect: new PostgresDialect({ pool }) });
}

/** Brings the schema to the latest version; returns the migrations it ran (none when up to date). */
export async function migrateHub(db: HubDatabase): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'hub_migration',
    migrationLockTableName: 'hub_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const why = error instanceof Error ? error.message : String(error);
    throw new HubDatabaseError(`the hub's schema could not be migrated${failed ? ` (at ${failed})` : ''}: ${why}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The database answers a query (the hub's readiness). */
export async function databaseReachable(db: HubDatabase): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
