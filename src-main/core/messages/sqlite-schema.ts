// The message database's schema, as numbered migrations: a database at version N gets N+1, N+2, …
// in order, each in one transaction with its new version number, so a start cut short leaves the
// last whole version. The version lives in the one-row table schema_version. Each migration is
// tested from every earlier version (test/unit/core/messages/migrations.test.ts).
//
// The tables are plain SQL a second engine reads the same way (Postgres: INTEGER → BIGINT, AUTOINCREMENT
// → a sequence); only the full-text index (FTS5) is SQLite's own and belongs to this adapter.
export interface Migration {
  version: number;
  /** What it adds, in a few words. */
  what: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    what: 'messages, conversations, local names, deleted keys, settings',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        contact TEXT NOT NULL,
        key TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        event_at INTEGER,
        direction TEXT NOT NULL,
        from_me INTEGER NOT NULL,
        type TEXT NOT NULL,
        text TEXT NOT NULL,
        filename TEXT,
        media_url TEXT,
        media_mime TEXT,
        media_size INTEGER,
        message_id TEXT,
        status TEXT,
        error TEXT,
        via TEXT,
        team_id TEXT,
        delivery_id TEXT,
        simulated INTEGER NOT NULL DEFAULT 0,
        send_id TEXT,
        client_ref TEXT,
        UNIQUE (agent_id, key)
      );
      CREATE INDEX messages_thread ON messages (agent_id, contact, seq);
      CREATE INDEX messages_received ON messages (received_at);
      CREATE INDEX messages_sent ON messages (agent_id, seq) WHERE send_id IS NOT NULL;
      CREATE TABLE conversations (
        agent_id TEXT NOT NULL,
        contact TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        read_seq INTEGER NOT NULL DEFAULT 0,
        count INTEGER NOT NULL,
        unread INTEGER NOT NULL,
        PRIMARY KEY (agent_id, contact)
      );
      CREATE INDEX conversations_recent ON conversations (last_seq);
      CREATE INDEX conversations_unread ON conversations (agent_id) WHERE unread > 0;
      CREATE TABLE names (contact TEXT PRIMARY KEY, name TEXT NOT NULL);
      CREATE TABLE forgotten (agent_id TEXT NOT NULL, key TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (agent_id, key));
    `,
  },
  {
    version: 2,
    what: 'full-text search over text, captions and file names (FTS5, tokens wiped on delete)',
    sql: `
      CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, filename, content='messages', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
      );
      INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 1);
      INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, text, filename) VALUES (new.seq, new.text, new.filename);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, text, filename) VALUES ('delete', old.seq, old.text, old.filename);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, filename ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, text, filename) VALUES ('delete', old.seq, old.text, old.filename);
        INSERT INTO messages_fts (rowid, text, filename) VALUES (new.seq, new.text, new.filename);
      END;
    `,
  },
  {
    version: 3,
    what: 'prefix indexes of 2, 3 and 4 characters for the words being typed (the full-text index built again)',
    sql: `
      DROP TRIGGER messages_fts_insert;
      DROP TRIGGER messages_fts_delete;
      DROP TRIGGER messages_fts_update;
      DROP TABLE messages_fts;
      CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, filename, content='messages', content_rowid='seq', tokenize='unicode61 remove_diacritics 2',
        prefix='2 3 4'
      );
      INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 1);
      INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, text, filename) VALUES (new.seq, new.text, new.filename);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, text, filename) VALUES ('delete', old.seq, old.text, old.filename);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, filename ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, text, filename) VALUES ('delete', old.seq, old.text, old.filename);
        INSERT INTO messages_fts (rowid, text, filename) VALUES (new.seq, new.text, new.filename);
      END;
    `,
  },
  {
    version: 4,
    what: "an index of the conversations' numbers (a number searched for reads it, not the conversations)",
    sql: 'CREATE INDEX conversations_contact ON conversations (contact);',
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
