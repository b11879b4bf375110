// The shared inbox's tables on the hub's database (migration 0006_messages): SQLite's tables of the message
// store (core/messages/sqlite-schema.ts) in Postgres's types, with a read mark per reader, settings per data
// folder and a tsvector of each message's folded words. The store over them is message-store.ts.
import { sql, type Migration } from 'kysely';

export const COLUMNS = [
  'agent_id',
  'contact',
  'key',
  'received_at',
  'event_at',
  'direction',
  'from_me',
  'type',
  'text',
  'filename',
  'media_url',
  'media_mime',
  'media_size',
  'message_id',
  'status',
  'error',
  'via',
  'team_id',
  'delivery_id',
  'simulated',
  'send_id',
  'client_ref',
  // Added by 0008_attribution (database.ts): the member who sent a send.
  'sent_by',
] as const;
/** Each column's type (the values of a batch are typed, not guessed). */
export const TYPES: Record<(typeof COLUMNS)[number], string> = {
  agent_id: 'text',
  contact: 'text',
  key: 'text',
  received_at: 'bigint',
  event_at: 'bigint',
  direction: 'text',
  from_me: 'boolean',
  type: 'text',
  text: 'text',
  filename: 'text',
  media_url: 'text',
  media_mime: 'text',
  media_size: 'bigint',
  message_id: 'text',
  status: 'text',
  error: 'text',
  via: 'text',
  team_id: 'text',
  delivery_id: 'text',
  simulated: 'boolean',
  send_id: 'text',
  client_ref: 'text',
  sent_by: 'text',
};
/** The tables of the shared inbox, as HubSchema knows them (the store itself speaks SQL). bigint: a string. */
export interface MessageTables {
  hub_messages: Record<(typeof COLUMNS)[number], unknown> & { seq: string; words: string };
  hub_conversations: {
    agent_id: string;
    contact: string;
    last_seq: string;
    read_seq: string;
    count: number;
    unread: number;
    inbound: number;
    last_in_seq: string;
  };
  hub_message_reads: { reader: string; agent_id: string; contact: string; read_seq: string };
  hub_message_names: { contact: string; name: string };
  hub_message_forgotten: { agent_id: string; key: string; at: string };
  hub_message_meta: { place: string; key: string; value: string };
}

export const messagesMigration: Migration = {
  async up(db) {
    await sql`
      create table hub_messages (
        seq bigserial primary key,
        agent_id text not null,
        contact text not null,
        key text not null,
        received_at bigint not null,
        event_at bigint,
        direction text not null check (direction in ('in', 'out')),
        from_me boolean not null,
        type text not null,
        text text not null,
        filename text,
        media_url text,
        media_mime text,
        media_size bigint,
        message_id text,
        status text,
        error text,
        via text,
        team_id text,
        delivery_id text,
        simulated boolean not null default false,
        send_id text,
        client_ref text,
        words tsvector not null,
        unique (agent_id, key)
      )`.execute(db);
    await sql`create index hub_messages_thread on hub_messages (agent_id, contact, seq)`.execute(db);
    await sql`create index hub_messages_inbound on hub_messages (agent_id, contact, seq) where direction = 'in'`.execute(
      db,
    );
    await sql`create index hub_messages_received on hub_messages (received_at)`.execute(db);
    await sql`create index hub_messages_sent on hub_messages (agent_id, seq) where send_id is not null`.execute(db);
    await sql`create index hub_messages_words on hub_messages using gin (words)`.execute(db);
    await sql`
      create table hub_conversations (
        agent_id text not null,
        contact text not null,
        last_seq bigint not null,
        read_seq bigint not null default 0,
        count integer not null,
        unread integer not null,
        inbound integer not null,
        last_in_seq bigint not null default 0,
        primary key (agent_id, contact)
      )`.execute(db);
    await sql`create index hub_conversations_recent on hub_conversations (last_seq)`.execute(db);
    await sql`create index hub_conversations_contact on hub_conversations (contact)`.execute(db);
    await sql`create table hub_message_reads (
        reader text not null,
        agent_id text not null,
        contact text not null,
        read_seq bigint not null,
        primary key (reader, agent_id, contact)
      )`.execute(db);
    await sql`create index hub_message_reads_conversation on hub_message_reads (agent_id, contact)`.execute(db);
    await sql`create table hub_message_names (contact text primary key, name text not null)`.execute(db);
    await sql`create table hub_message_forgotten (
        agent_id text not null, key text not null, at bigint not null, primary key (agent_id, key)
      )`.execute(db);
    await sql`create index hub_message_forgotten_at on hub_message_forgotten (at)`.execute(db);
    await sql`create table hub_message_meta (
        place text not null, key text not null, value text not null, primary key (place, key)
      )`.execute(db);
    // Every write takes a number: the change mark other replicas compare (see changeMark()).
    await sql`create sequence hub_message_changes`.execute(db);
  },
};
