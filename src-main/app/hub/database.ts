// The hub's database: Postgres through Kysely over the `pg` pool, and its schema as versioned migrations run
// by Kysely's Migrator (in order, under its lock, so two hubs starting together migrate once).
import { Kysely, Migrator, PostgresDialect, sql, type Generated, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { CompanionError } from '../../core/errors';
import { messagesMigration, type MessageTables } from './message-schema';

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

/** A hub process alive: its heartbeat, renewed every lease round (app/hub/leases.ts). */
interface ReplicasTable {
  replica: string;
  heartbeat_at: Date;
  /** Draining (SIGTERM): it takes no new agents and counts as gone. */
  draining: boolean;
}

/** Which replica polls an agent until when (app/hub/leases.ts). */
interface LeasesTable {
  team_id: string;
  agent_id: string;
  holder: string;
  expires_at: Date;
}

/** Each agent's health as its lease holder saw it last (AgentHealthDTO). */
interface HealthTable {
  team_id: string;
  agent_id: string;
  health: unknown;
  replica: string;
  updated_at: Generated<Date>;
}

/** The incidents of every agent, open and closed (app/hub/incidents.ts). */
interface IncidentsTable {
  id: string;
  team_id: string;
  agent_id: string | null;
  open: boolean;
  /** ms epoch (the incident's openedAt / resolvedAt). */
  opened_at: string;
  resolved_at: string | null;
  /** The monitor's Incident: what a replica taking the agent over continues. */
  incident: unknown;
  /** The contract's IncidentDTO, words included. */
  dto: unknown;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  replica: string;
  updated_at: Generated<Date>;
}

/** Which replica judges a team's team-wide incidents until when (app/hub/team-incidents.ts). */
interface TeamLeasesTable {
  team_id: string;
  holder: string;
  expires_at: Date;
}

/** Each agent's health changes as its lease holder saw them: its timeline (app/hub/incidents.ts). */
interface HealthChangesTable {
  id: Generated<string>;
  team_id: string;
  agent_id: string;
  /** ms epoch of the change. */
  at: string;
  /** The monitor's TimelineEntry. */
  entry: unknown;
}

/** Acknowledgements and snoozes made on any replica, applied by every one (app/hub/incidents.ts). */
interface IncidentActionsTable {
  id: Generated<string>;
  at: Generated<Date>;
  kind: string;
  incident_id: string | null;
  until_ms: string | null;
  member: string | null;
  replica: string;
}

/** A team's secret, encrypted at rest with the hub's key (app/hub/secrets.ts). */
interface SecretsTable {
  account: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
  /** The id of the key that sealed the row (app/hub/secrets.ts, secretKeyId); null: sealed before ids were kept. */
  key_id: Generated<string | null>;
  updated_at: Generated<Date>;
}

/** The teams and app settings every replica shares: one row, its version compared on write (app/hub/config.ts). */
interface ConfigTable {
  id: number;
  /** bigint: pg answers it as a string. */
  version: string;
  config: unknown;
  updated_at: Generated<Date>;
}

/** A delivery a replica's receiver accepted, committed before its 2xx (app/hub/deliveries.ts). */
interface DeliveriesTable {
  id: Generated<string>;
  delivery_id: string;
  agent_id: string;
  team_id: string | null;
  /** The service's message.id (else a hash of what the signature covers): unique per agent. */
  key: string;
  /** The service's x-delivery-id header, when it sent one. */
  service_id: string | null;
  event: string | null;
  sender: string | null;
  verdict: string;
  simulated: boolean;
  received_at: Date;
  replica: string;
  /** The StoredDelivery, JSON. */
  delivery: unknown;
}

/** A replay of a delivery, with the member who asked for it. */
interface DeliveryReplaysTable {
  id: Generated<string>;
  at: Date;
  delivery_id: string;
  member: string | null;
  replica: string;
  /** The ForwardAttempt, JSON. */
  attempt: unknown;
}

/** A webhook registration made through the hub, with the member who made it. */
interface WebhookRegistrationsTable {
  id: Generated<string>;
  at: Generated<Date>;
  team_id: string;
  agent_id: string;
  url: string;
  member: string | null;
  replica: string;
}

/** A message's file (image, document), fetched from the service once for every replica. */
interface MediaTable {
  agent_id: string;
  message_id: string;
  /** The message's time (retention). */
  at: Date;
  filename: string;
  mime_type: string;
  bytes: number;
  data: Buffer;
  stored_at: Generated<Date>;
}

/** A chat turn whose stream frames are kept for every replica (app/hub/chat-frames.ts): in flight, or a chat's last. */
interface ChatTurnsTable {
  turn_id: string;
  agent_id: string;
  user_id: string;
  /** The replica running the turn. */
  replica: string;
  live: boolean;
  /** Frames received so far: those kept (hub_chat_frames) and those left out in the middle. */
  total: number;
  updated_at: Generated<Date>;
}

/** Frames of a turn written together, one after another in the stream (the first ones and the latest are kept). */
interface ChatFramesTable {
  turn_id: string;
  /** The first frame's place in the stream, from 0. */
  seq: number;
  /** The frames (RawFrameDTO[]). */
  frames: unknown;
}

/** A turn of a chat with an agent, kept for every replica (app/hub/chat-transcripts.ts): the team's transcripts. */
interface ChatTranscriptsTable {
  /** The order of the conversation's turns (as each ended). */
  id: Generated<string>;
  agent_id: string;
  user_id: string;
  turn_id: string;
  team_id: string;
  /** The member who ran the turn; null outside a member's request. */
  member: string | null;
  /** The turn's record (TurnRecord). */
  turn: unknown;
  at: Generated<Date>;
}

interface HubSchema {
  hub_members: MembersTable;
  hub_audit: AuditTable;
  hub_secrets: SecretsTable;
  hub_config: ConfigTable;
  hub_replicas: ReplicasTable;
  hub_leases: LeasesTable;
  hub_health: HealthTable;
  hub_incidents: IncidentsTable;
  hub_incident_actions: IncidentActionsTable;
  hub_team_leases: TeamLeasesTable;
  hub_health_changes: HealthChangesTable;
  hub_events: EventsTable;
  hub_deliveries: DeliveriesTable;
  hub_delivery_replays: DeliveryReplaysTable;
  hub_webhook_registrations: WebhookRegistrationsTable;
  hub_messages: MessageTables['hub_messages'];
  hub_conversations: MessageTables['hub_conversations'];
  hub_message_reads: MessageTables['hub_message_reads'];
  hub_message_names: MessageTables['hub_message_names'];
  hub_message_forgotten: MessageTables['hub_message_forgotten'];
  hub_message_meta: MessageTables['hub_message_meta'];
  hub_media: MediaTable;
  hub_chat_turns: ChatTurnsTable;
  hub_chat_frames: ChatFramesTable;
  hub_chat_transcripts: ChatTranscriptsTable;
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
  '0002_secrets_and_config': {
    async up(db) {
      // Each secret encrypted with AES-256-GCM under the hub's key (app/hub/secrets.ts).
      await db.schema
        .createTable('hub_secrets')
        .addColumn('account', 'text', (c) => c.primaryKey())
        .addColumn('iv', 'bytea', (c) => c.notNull())
        .addColumn('ciphertext', 'bytea', (c) => c.notNull())
        .addColumn('tag', 'bytea', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      // The shared config: one row, its version compared and swapped on every write (app/hub/config.ts).
      await db.schema
        .createTable('hub_config')
        .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('version', 'bigint', (c) => c.notNull())
        .addColumn('config', 'jsonb', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
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
  // Deliveries committed before they are acknowledged, one per agent and duplicate key (app/hub/deliveries.ts).
  '0004_deliveries': {
    async up(db) {
      await db.schema
        .createTable('hub_deliveries')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().unique())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text')
        // The service's message.id (else a hash of what the signature covers): a repeat carries it again.
        .addColumn('key', 'text', (c) => c.notNull())
        // The service's x-delivery-id header, when it sent one.
        .addColumn('service_id', 'text')
        .addColumn('event', 'text')
        .addColumn('sender', 'text')
        .addColumn('verdict', 'text', (c) => c.notNull())
        .addColumn('simulated', 'boolean', (c) => c.notNull())
        .addColumn('received_at', 'timestamptz', (c) => c.notNull())
        .addColumn('replica', 'text', (c) => c.notNull())
        // The StoredDelivery as the receiver kept it (headers with credentials redacted, the body in base64).
        .addColumn('delivery', 'jsonb', (c) => c.notNull())
        .addUniqueConstraint('hub_deliveries_agent_key', ['agent_id', 'key'])
        .execute();
      await db.schema
        .createIndex('hub_deliveries_received')
        .on('hub_deliveries')
        .columns(['received_at', 'id'])
        .execute();
      await db.schema.createIndex('hub_deliveries_service_id').on('hub_deliveries').column('service_id').execute();
      await db.schema
        .createTable('hub_delivery_replays')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('delivery_id', 'text', (c) => c.notNull())
        .addColumn('member', 'text')
        .addColumn('replica', 'text', (c) => c.notNull())
        // The ForwardAttempt (url with credentials redacted, status, the answer's first 4 KiB).
        .addColumn('attempt', 'jsonb', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('hub_delivery_replays_delivery')
        .on('hub_delivery_replays')
        .column('delivery_id')
        .execute();
      await db.schema
        .createTable('hub_webhook_registrations')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('member', 'text')
        .addColumn('replica', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0005_leases_and_health': {
    async up(db) {
      await db.schema
        .createTable('hub_replicas')
        .addColumn('replica', 'text', (c) => c.primaryKey())
        .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull())
        .addColumn('draining', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      await db.schema
        .createTable('hub_leases')
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('hub_leases_pkey', ['team_id', 'agent_id'])
        .execute();
      await db.schema.createIndex('hub_leases_holder').on('hub_leases').column('holder').execute();
      await db.schema
        .createTable('hub_health')
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('health', 'jsonb', (c) => c.notNull())
        .addColumn('replica', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('hub_health_pkey', ['team_id', 'agent_id'])
        .execute();
      await db.schema
        .createTable('hub_incidents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text')
        .addColumn('open', 'boolean', (c) => c.notNull())
        .addColumn('opened_at', 'bigint', (c) => c.notNull())
        .addColumn('resolved_at', 'bigint')
        .addColumn('incident', 'jsonb')
        .addColumn('dto', 'jsonb')
        .addColumn('acknowledged_at', 'bigint')
        .addColumn('acknowledged_by', 'text')
        .addColumn('replica', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('hub_incidents_open')
        .on('hub_incidents')
        .columns(['team_id', 'agent_id'])
        .where(sql.ref('open'), '=', true)
        .execute();
      await db.schema.createIndex('hub_incidents_resolved').on('hub_incidents').column('resolved_at').execute();
      await db.schema
        .createTable('hub_incident_actions')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('acknowledge', 'acknowledge-all', 'snooze')`))
        .addColumn('incident_id', 'text')
        .addColumn('until_ms', 'bigint')
        .addColumn('member', 'text')
        .addColumn('replica', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0006_messages': messagesMigration,
  '0007_team_leases_and_timeline': {
    async up(db) {
      await db.schema
        .createTable('hub_team_leases')
        .addColumn('team_id', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('hub_health_changes')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('entry', 'jsonb', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('hub_health_changes_agent')
        .on('hub_health_changes')
        .columns(['team_id', 'agent_id', 'at'])
        .execute();
    },
  },
  // Who did what: the member who sent a send (the shared inbox's row); the team's activity is read from
  // hub_audit newest first (by id).
  '0008_attribution': {
    async up(db) {
      await db.schema.alterTable('hub_messages').addColumn('sent_by', 'text').execute();
    },
  },
  // Which key sealed each secret (its id, a fingerprint: app/hub/secrets.ts), so a key can be rotated.
  '0009_key_ids': {
    async up(db) {
      await db.schema.alterTable('hub_secrets').addColumn('key_id', 'text').execute();
    },
  },
  // The messages' files, shared by every replica (app/hub/media.ts): read by any, deleted with the message.
  '0010_media': {
    async up(db) {
      await db.schema
        .createTable('hub_media')
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('mime_type', 'text', (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .addColumn('data', 'bytea', (c) => c.notNull())
        .addColumn('stored_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('hub_media_pk', ['agent_id', 'message_id'])
        .execute();
      await db.schema.createIndex('hub_media_at').on('hub_media').column('at').execute();
    },
  },
  // A chat turn's stream frames for chat.frames on every replica (app/hub/chat-frames.ts): bounded, short-lived,
  // unlogged (no WAL: a database crash empties them, as a replica's restart empties its own copy).
  '0011_chat_frames': {
    async up(db) {
      await sql`create unlogged table hub_chat_turns (
        turn_id text primary key,
        agent_id text not null,
        user_id text not null,
        replica text not null,
        live boolean not null,
        total integer not null,
        updated_at timestamptz not null default now()
      )`.execute(db);
      await db.schema
        .createIndex('hub_chat_turns_chat')
        .on('hub_chat_turns')
        .columns(['agent_id', 'user_id'])
        .execute();
      await db.schema.createIndex('hub_chat_turns_updated').on('hub_chat_turns').column('updated_at').execute();
      await sql`create unlogged table hub_chat_frames (
        turn_id text not null,
        seq integer not null,
        frames jsonb not null,
        constraint hub_chat_frames_pk primary key (turn_id, seq)
      )`.execute(db);
    },
  },
  // The chat transcripts, one truth for every replica (app/hub/chat-transcripts.ts): a conversation is its agent and
  // user_id, its turns in the order they ended, the latest 200 kept; each with the member who ran it.
  '0012_chat_transcripts': {
    async up(db) {
      await sql`create table hub_chat_transcripts (
        id bigserial primary key,
        agent_id text not null,
        user_id text not null,
        turn_id text not null unique,
        team_id text not null,
        member text,
        turn jsonb not null,
        at timestamptz not null default now()
      )`.execute(db);
      await db.schema
        .createIndex('hub_chat_transcripts_chat')
        .on('hub_chat_transcripts')
        .columns(['agent_id', 'user_id', 'id'])
        .execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** The database URL could not be used, or the database refused: the message names no password. */
export class HubDatabaseError extends CompanionError {
  /** What a request answers (the contract's error code): the database did not serve it; asking again may. */
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'HubDatabaseError';
  }
}

/** The database could not be reached (refused, no such host, timed out): the message says why in a few words. */
export class HubDatabaseUnreachable extends HubDatabaseError {
  constructor(readonly why: string) {
    super(`the hub's database could not be reached (${why})`);
    this.name = 'HubDatabaseUnreachable';
  }
}

const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
  ECONNRESET: 'the connection was reset',
  // Postgres' cannot_connect_now: starting up, shutting down, in recovery.
  '57P03': 'the database is not accepting connections yet',
};

/** Why a connection could not be made, in a few words, or null when the error is not about reaching the database. */
function unreachableWhy(e: unknown): string | null {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNREACHABLE_CODES[code]) return UNREACHABLE_CODES[code];
  if (typeof message !== 'string') return null;
  // pg's own words for a connection that timed out or was cut before it was made.
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) return 'timed out';
  if (/^Connection terminated unexpectedly$/.test(message)) return 'the connection was cut';
  return null;
}

/** Where a database URL points, as `host:port` (never its user or password). */
export function databaseAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return 'the database URL';
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
  // So is one checked out between two statements (inside a transaction) when the database terminates it: pg
  // emits 'error' on a client that runs no query, and the pool listens only to idle ones. Without a listener
  // the process would die; with one, the transaction's next statement fails and the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
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
    const unreachable = unreachableWhy(error);
    if (unreachable !== null) throw new HubDatabaseUnreachable(unreachable);
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
