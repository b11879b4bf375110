// The message store in SQLite: one file in the data folder (<data>/messages/messages.db, 0600, its
// folder 0700), through libsql (N-API, prebuilt per platform: the same binary runs in Node and in
// Electron). Write-ahead log, so readers never wait for the writer; `secure_delete` on, and the
// full-text index's own secure-delete, so deleted text is overwritten, not just unlinked; after a
// deletion the log is checkpointed and truncated, so the bytes leave the write-ahead log too.
// A file that is not a database, or one another process holds locked, is a MessageStoreError that
// says so: the file is never replaced, moved or truncated here.
import { closeSync, openSync, chmodSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import Database from 'libsql';
import { messageOfRow } from './message-row';
import { MIGRATIONS, SCHEMA_VERSION } from './sqlite-schema';
import { ftsQuery, HIT_CLOSE, HIT_OPEN, phoneDigits, prefixMatches, rangesOf, rangesOfMarked } from './search-text';
import {
  MessageStoreError,
  type Added,
  type ContactHit,
  type ContactQuery,
  type ContactSummary,
  type Message,
  type MessageHit,
  type MessageStore,
  type RemoveScope,
  type Removed,
  type SearchQuery,
  type SearchResult,
} from './store';

type Db = InstanceType<typeof Database>;
type Row = Record<string, unknown>;

/** Rows read for a prefix asked by its first 4 characters, per hit wanted (the rest are filtered out). */
const PREFIX_OVERREAD = 4;
/** How long a write waits for another process's lock before it is called locked. */
const BUSY_TIMEOUT_MS = 2000;

const COLUMNS =
  'seq, agent_id, contact, key, received_at, event_at, direction, from_me, type, text, filename, media_url, ' +
  'media_mime, media_size, message_id, status, error, via, team_id, delivery_id, simulated, send_id, client_ref';
const M_COLUMNS = COLUMNS.split(', ')
  .map((c) => `m.${c}`)
  .join(', ');

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));

/** The bound values of a message's row, in COLUMNS order after seq. */
function valuesOf(m: Message): unknown[] {
  return [
    m.agentId,
    m.contact,
    m.key,
    m.at,
    m.eventAt ?? null,
    m.direction,
    m.fromMe ? 1 : 0,
    m.type,
    m.text,
    m.media?.filename ?? null,
    m.media?.url ?? null,
    m.media?.mimeType ?? null,
    m.media?.size ?? null,
    m.messageId ?? null,
    m.status ?? null,
    m.error ? JSON.stringify(m.error) : null,
    m.via ?? null,
    m.teamId ?? null,
    m.deliveryId ?? null,
    m.simulated ? 1 : 0,
    m.sendId ?? null,
    m.clientRef ?? null,
  ];
}

/** A libsql/SQLite error as the store's own, with words that name the file. */
function storeError(err: unknown, file: string): Error {
  const code = (err as { code?: unknown }).code;
  const detail = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return new MessageStoreError(
      'corrupt',
      `the message database ${file} is damaged (${detail}); it was left as it is. Nothing else was changed: ` +
        'move the file aside (or restore it from a backup) and start again to begin a new one.',
    );
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return new MessageStoreError(
      'locked',
      `the message database ${file} is locked by another process (${detail}); nothing was written. ` +
        'Close the other program that has it open (a second copy of the app, a database browser) and try again.',
    );
  if (code === 'SQLITE_READONLY')
    return new MessageStoreError('read-only', `the message database ${file} cannot be written (${detail})`);
  return err instanceof Error ? err : new Error(detail);
}

export interface SqliteStoreOptions {
  /** The database file, or ':memory:'. */
  file: string;
  readOnly?: boolean;
  /** Stop at this schema version (the migration tests build every earlier version). */
  version?: number;
}

export class SqliteMessageStore implements MessageStore {
  readonly location: string;
  readonly readOnly: boolean;
  private readonly db: Db;

  /** Statements prepared once per text (a thread opened twice is not parsed twice). */
  private readonly statements = new Map<string, Database.Statement>();

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      // Texts built for a list of values vary: the cache stays small.
      if (this.statements.size >= 200) this.statements.clear();
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  private constructor(db: Db, o: SqliteStoreOptions) {
    this.db = db;
    this.location = o.file;
    this.readOnly = o.readOnly === true;
  }

  /** Opens (creating it 0600 for a writer) and migrates to the latest version (a writer). */
  static open(o: SqliteStoreOptions): SqliteMessageStore {
    const file = o.file;
    if (file !== ':memory:' && o.readOnly !== true) {
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    let db: Db | null = null;
    try {
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
      // The first statement reads the header: a file that is not a database says so here.
      db.exec(
        `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA secure_delete = ON; ` +
          (o.readOnly === true ? 'PRAGMA query_only = 1;' : 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;'),
      );
      const store = new SqliteMessageStore(db, o);
      if (o.readOnly !== true) store.migrate(o.version ?? SCHEMA_VERSION);
      else if (store.version() === 0)
        throw new MessageStoreError('unavailable', `the message database ${file} has not been created yet`);
      return store;
    } catch (err) {
      try {
        db?.close();
      } catch {
        // already failing: the first error is the one to tell
      }
      throw err instanceof MessageStoreError ? err : storeError(err, file);
    }
  }

  /** The schema version of the file (0: empty). */
  version(): number {
    let r: Row | undefined;
    try {
      r = this.db.prepare('SELECT version FROM schema_version').get() as Row | undefined;
    } catch (err) {
      if (/no such table/.test(err instanceof Error ? err.message : String(err))) return 0;
      throw err;
    }
    return r ? num(r.version) : 0;
  }

  private migrate(target: number): void {
    const from = this.version();
    if (from > SCHEMA_VERSION)
      throw new MessageStoreError(
        'unavailable',
        `the message database ${this.location} is of a newer version (${from}) than this app knows (${SCHEMA_VERSION}); ` +
          'it was left as it is: use the newer app',
      );
    for (const m of MIGRATIONS) {
      if (m.version <= from || m.version > target) continue;
      this.tx(() => {
        this.db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
        this.db.exec(m.sql);
        this.db.exec('DELETE FROM schema_version');
        this.stmt('INSERT INTO schema_version (version) VALUES (?)').run(m.version);
      });
    }
  }

  private tx<T>(work: () => T): T {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      throw storeError(err, this.location);
    }
    try {
      const out = work();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // the transaction is gone already
      }
      throw storeError(err, this.location);
    }
  }

  private read<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (err) {
      return Promise.reject(storeError(err, this.location));
    }
  }

  private write<T>(work: () => T): Promise<T> {
    if (this.readOnly)
      return Promise.reject(new MessageStoreError('read-only', 'the message database is open read-only'));
    try {
      return Promise.resolve(this.tx(work));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  add(
    msgs: ReadonlyArray<{ message: Message; wins: boolean }>,
    cutoff: number,
    meta?: { key: string; value: string },
  ): Promise<Added[]> {
    if (msgs.length === 0)
      return meta === undefined ? Promise.resolve([]) : this.setMeta(meta.key, meta.value).then(() => []);
    return this.write(() => {
      if (meta !== undefined) this.putMeta(meta.key, meta.value);
      // Most batches meet no deleted key: the look-up is made only when there are some.
      const anyForgotten = !!this.stmt('SELECT 1 FROM forgotten LIMIT 1').get();
      const forgotten = this.stmt('SELECT 1 FROM forgotten WHERE agent_id = ? AND key = ?');
      const existing = this.stmt('SELECT seq, send_id FROM messages WHERE agent_id = ? AND key = ?');
      const insert = this.stmt(
        `INSERT INTO messages (${COLUMNS.slice('seq, '.length)}) VALUES (${new Array(22).fill('?').join(', ')}) ` +
          'ON CONFLICT (agent_id, key) DO NOTHING',
      );
      const conv = this.stmt(
        'INSERT INTO conversations (agent_id, contact, last_seq, read_seq, count, unread) VALUES (?, ?, ?, 0, 1, ?) ' +
          'ON CONFLICT (agent_id, contact) DO UPDATE SET last_seq = excluded.last_seq, count = conversations.count + 1, ' +
          'unread = conversations.unread + excluded.unread RETURNING unread',
      );
      const unreadOf = this.stmt('SELECT unread FROM conversations WHERE agent_id = ? AND contact = ?');
      const out: Added[] = [];
      for (const { message: m, wins } of msgs) {
        if (m.at < cutoff) continue;
        if (anyForgotten && forgotten.get(m.agentId, m.key)) continue;
        const r = insert.run(...valuesOf(m));
        if (r.changes === 1) {
          const seq = num(r.lastInsertRowid);
          const u = conv.get(m.agentId, m.contact, seq, m.direction === 'in' ? 1 : 0) as Row;
          out.push({ message: { ...m, seq }, unread: num(u.unread) });
          continue;
        }
        const had = existing.get(m.agentId, m.key) as Row | undefined;
        // The phone's echo of our own send: the send's record (with its status) takes its place.
        if (!had || !wins || had.send_id !== null) continue;
        const seq = num(had.seq);
        const cols = COLUMNS.split(', ').slice(1);
        const vals = valuesOf(m);
        const keep = new Set(['agent_id', 'contact', 'key', 'received_at']);
        const set = cols.filter((c) => !keep.has(c));
        this.stmt(`UPDATE messages SET ${set.map((c) => `${c} = ?`).join(', ')} WHERE seq = ?`).run(
          ...cols.flatMap((c, i) => (keep.has(c) ? [] : [vals[i]])),
          seq,
        );
        const row = this.stmt(`SELECT ${COLUMNS} FROM messages WHERE seq = ?`).get(seq) as Row;
        const msg = messageOfRow(row);
        const u = unreadOf.get(msg.agentId, msg.contact) as Row | undefined;
        out.push({ message: msg, unread: u ? num(u.unread) : 0 });
      }
      return out;
    });
  }

  has(agentId: string, key: string): Promise<boolean> {
    return this.read(() => !!this.stmt('SELECT 1 FROM messages WHERE agent_id = ? AND key = ?').get(agentId, key));
  }

  private agentFilter(agentIds: readonly string[] | undefined, column: string): { sql: string; args: string[] } {
    if (agentIds === undefined) return { sql: '1 = 1', args: [] };
    if (agentIds.length === 0) return { sql: '1 = 0', args: [] };
    return { sql: `${column} IN (${agentIds.map(() => '?').join(', ')})`, args: [...agentIds] };
  }

  private summaries(where: string, args: unknown[], limit: number | undefined): ContactSummary[] {
    const rows = this.stmt(
      `SELECT c.unread AS c_unread, c.count AS c_count, n.name AS c_name, ${M_COLUMNS} FROM conversations c ` +
        'JOIN messages m ON m.seq = c.last_seq LEFT JOIN names n ON n.contact = c.contact ' +
        `WHERE ${where} ORDER BY c.last_seq DESC${limit !== undefined ? ' LIMIT ?' : ''}`,
    ).all(...args, ...(limit !== undefined ? [limit] : [])) as Row[];
    return rows.map((r) => {
      const last = messageOfRow(r);
      const s: ContactSummary = {
        agentId: last.agentId,
        contact: last.contact,
        lastAt: last.at,
        last,
        unread: num(r.c_unread),
        count: num(r.c_count),
      };
      if (r.c_name !== null) s.name = String(r.c_name);
      return s;
    });
  }

  contacts(q: ContactQuery): Promise<ContactSummary[]> {
    return this.read(() => {
      const f = this.agentFilter(q.agentIds, 'c.agent_id');
      const search = q.search?.trim() ?? '';
      if (search === '') return this.summaries(f.sql, f.args, q.limit);
      const match: string[] = [];
      const args: unknown[] = [...f.args];
      const contacts = [...this.contactsNamed(search), ...this.contactsNumbered(search)];
      if (contacts.length > 0) {
        match.push(`c.contact IN (${contacts.map(() => '?').join(', ')})`);
        args.push(...contacts);
      }
      const fts = ftsQuery(search, true);
      if (fts !== null) {
        match.push(
          '(c.agent_id, c.contact) IN (SELECT agent_id, contact FROM messages WHERE seq IN ' +
            '(SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?))',
        );
        args.push(fts);
      }
      if (match.length === 0) return [];
      return this.summaries(`${f.sql} AND (${match.join(' OR ')})`, args, q.limit);
    });
  }

  unreadByAgent(): Promise<Map<string, number>> {
    return this.read(
      () =>
        new Map(
          (
            this.stmt(
              'SELECT agent_id, sum(unread) AS n FROM conversations WHERE unread > 0 GROUP BY agent_id',
            ).all() as Row[]
          ).map((r) => [String(r.agent_id), num(r.n)]),
        ),
    );
  }

  unreadOf(agentId: string, contact: string): Promise<number> {
    return this.read(() => {
      const r = this.stmt('SELECT unread FROM conversations WHERE agent_id = ? AND contact = ?').get(
        agentId,
        contact,
      ) as Row | undefined;
      return r ? num(r.unread) : 0;
    });
  }

  unreadOfEach(conversations: ReadonlyArray<{ agentId: string; contact: string }>): Promise<number[]> {
    return this.read(() => {
      const st = this.stmt('SELECT unread FROM conversations WHERE agent_id = ? AND contact = ?');
      return conversations.map((c) => {
        const r = st.get(c.agentId, c.contact) as Row | undefined;
        return r ? num(r.unread) : 0;
      });
    });
  }

  thread(
    agentId: string,
    contact: string,
    opts: { beforeSeq?: number; before?: number; limit: number },
  ): Promise<{ messages: Message[]; more: boolean }> {
    return this.read(() => {
      const args: unknown[] = [agentId, contact];
      let extra = '';
      if (opts.beforeSeq !== undefined) {
        extra += ' AND seq < ?';
        args.push(opts.beforeSeq);
      }
      if (opts.before !== undefined) {
        extra += ' AND received_at < ?';
        args.push(opts.before);
      }
      const limit = Number.isFinite(opts.limit) ? opts.limit : -1;
      const rows = this.stmt(
        `SELECT ${COLUMNS} FROM messages WHERE agent_id = ? AND contact = ?${extra} ORDER BY seq DESC LIMIT ?`,
      ).all(...args, limit < 0 ? -1 : limit + 1) as Row[];
      const more = limit >= 0 && rows.length > limit;
      const list = (more ? rows.slice(0, limit) : rows).map(messageOfRow).reverse();
      return { messages: list, more };
    });
  }

  find(agentId: string, key: string): Promise<Message | null> {
    return this.read(() => {
      const r = this.stmt(`SELECT ${COLUMNS} FROM messages WHERE agent_id = ? AND key = ?`).get(agentId, key);
      return r ? messageOfRow(r as Row) : null;
    });
  }

  sent(agentId: string, limit: number): Promise<Message[]> {
    return this.read(() =>
      (
        this.stmt(
          `SELECT ${COLUMNS} FROM messages WHERE agent_id = ? AND send_id IS NOT NULL ORDER BY seq DESC LIMIT ?`,
        ).all(agentId, limit) as Row[]
      ).map(messageOfRow),
    );
  }

  newestSeq(): Promise<number> {
    return this.read(() => num((this.stmt('SELECT max(seq) AS seq FROM messages').get() as Row).seq ?? 0));
  }

  after(seq: number, limit: number): Promise<Message[]> {
    return this.read(() =>
      (this.stmt(`SELECT ${COLUMNS} FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`).all(seq, limit) as Row[]).map(
        messageOfRow,
      ),
    );
  }

  markRead(agentId: string, contact: string, upToSeq?: number): Promise<boolean> {
    return this.write(() => {
      if (upToSeq === undefined)
        return (
          this.stmt('UPDATE conversations SET read_seq = last_seq, unread = 0 WHERE agent_id = ? AND contact = ?').run(
            agentId,
            contact,
          ).changes > 0
        );
      const changed = this.stmt(
        'UPDATE conversations SET read_seq = max(read_seq, min(?, last_seq)) WHERE agent_id = ? AND contact = ?',
      ).run(upToSeq, agentId, contact).changes;
      this.stmt(
        'UPDATE conversations SET unread = (SELECT count(*) FROM messages m WHERE m.agent_id = conversations.agent_id ' +
          "AND m.contact = conversations.contact AND m.direction = 'in' AND m.seq > conversations.read_seq) " +
          'WHERE agent_id = ? AND contact = ?',
      ).run(agentId, contact);
      return changed > 0;
    });
  }

  names(): Promise<Map<string, string>> {
    return this.read(
      () =>
        new Map(
          (this.stmt('SELECT contact, name FROM names').all() as Row[]).map((r) => [String(r.contact), String(r.name)]),
        ),
    );
  }

  setName(contact: string, name: string | null): Promise<void> {
    return this.write(() => {
      if (name === null) this.stmt('DELETE FROM names WHERE contact = ?').run(contact);
      else
        this.stmt(
          'INSERT INTO names (contact, name) VALUES (?, ?) ON CONFLICT (contact) DO UPDATE SET name = excluded.name',
        ).run(contact, name);
    });
  }

  /** Deletes the rows `where` selects, remembering their keys when `now` is given. */
  private removeWhere(where: string, args: unknown[], now: number | null): Removed {
    const rows = this.stmt(`SELECT agent_id, contact, key, delivery_id, message_id FROM messages WHERE ${where}`).all(
      ...args,
    ) as Row[];
    const out: Removed = { count: rows.length, deliveryIds: [], messageIds: [], conversations: [] };
    const convs = new Map<string, { agentId: string; contact: string }>();
    const remember = this.stmt(
      'INSERT INTO forgotten (agent_id, key, at) VALUES (?, ?, ?) ON CONFLICT (agent_id, key) DO NOTHING',
    );
    for (const r of rows) {
      if (r.delivery_id !== null) out.deliveryIds.push(String(r.delivery_id));
      if (r.message_id !== null) out.messageIds.push(String(r.message_id));
      convs.set(`${String(r.agent_id)}\n${String(r.contact)}`, {
        agentId: String(r.agent_id),
        contact: String(r.contact),
      });
      if (now !== null) remember.run(r.agent_id, r.key, now);
    }
    this.stmt(`DELETE FROM messages WHERE ${where}`).run(...args);
    out.conversations = [...convs.values()];
    return out;
  }

  remove(scope: RemoveScope, now: number): Promise<Removed> {
    return this.write(() => {
      const where: string[] = [];
      const args: unknown[] = [];
      if ('agentId' in scope) {
        where.push('agent_id = ?');
        args.push(scope.agentId);
      }
      if (scope.contact !== undefined) {
        where.push('contact = ?');
        args.push(scope.contact);
      }
      const w = where.join(' AND ');
      const out = this.removeWhere(w, args, now);
      this.stmt(`DELETE FROM conversations WHERE ${w}`).run(...args);
      // A contact's data everywhere: its local name too.
      if (!('agentId' in scope)) this.stmt('DELETE FROM names WHERE contact = ?').run(scope.contact);
      return out;
    }).then((out) => {
      this.wipe();
      return out;
    });
  }

  removeOlderThan(cutoff: number): Promise<Removed> {
    return this.write(() => {
      const out = this.removeWhere('received_at < ?', [cutoff], null);
      this.stmt('DELETE FROM forgotten WHERE at < ?').run(cutoff);
      const recount = this.stmt(
        'UPDATE conversations SET ' +
          'count = (SELECT count(*) FROM messages m WHERE m.agent_id = conversations.agent_id AND m.contact = conversations.contact), ' +
          "unread = (SELECT count(*) FROM messages m WHERE m.agent_id = conversations.agent_id AND m.contact = conversations.contact AND m.direction = 'in' AND m.seq > conversations.read_seq) " +
          'WHERE agent_id = ? AND contact = ?',
      );
      const empty = this.stmt('DELETE FROM conversations WHERE agent_id = ? AND contact = ? AND count = 0');
      for (const c of out.conversations) {
        recount.run(c.agentId, c.contact);
        empty.run(c.agentId, c.contact);
      }
      return out;
    }).then((out) => {
      if (out.count > 0) this.wipe();
      return out;
    });
  }

  /** Moves the write-ahead log into the file and truncates it: deleted bytes leave the log too. */
  private wipe(): void {
    if (this.location === ':memory:') return;
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // A reader holds the log: the next checkpoint takes it (the rows are gone from every query now).
    }
  }

  /** Contacts whose local name holds `text` (any case); the names are few, read first. */
  private contactsNamed(text: string): string[] {
    const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (
      this.stmt("SELECT contact FROM names WHERE lower(name) LIKE ? ESCAPE '\\' LIMIT 1000").all(like) as Row[]
    ).map((r) => String(r.contact));
  }

  /** Contacts whose number holds the digits of `text` written as a number (none when it is not one). */
  private contactsNumbered(text: string): string[] {
    const digits = phoneDigits(text);
    if (digits === null) return [];
    return (
      this.stmt('SELECT DISTINCT contact FROM conversations WHERE contact LIKE ? LIMIT 1000').all(
        `%${digits}%`,
      ) as Row[]
    ).map((r) => String(r.contact));
  }

  search(q: SearchQuery): Promise<SearchResult> {
    return this.read(() => {
      const messages: MessageHit[] = [];
      const contacts: ContactHit[] = [];
      const text = q.text.trim();
      if (text === '') return { messages, contacts };
      const f = this.agentFilter(q.agentIds, 'm.agent_id');
      const seen = new Set<number>();
      // Whole words first (read lazily, newest first); prefixes only when those do not fill the page.
      for (const prefix of [false, true]) {
        const fts = ftsQuery(text, prefix);
        if (fts === null || messages.length >= q.limit) continue;
        const rows = this.stmt(
          `SELECT highlight(messages_fts, 0, '${HIT_OPEN}', '${HIT_CLOSE}') AS h_text, ` +
            `highlight(messages_fts, 1, '${HIT_OPEN}', '${HIT_CLOSE}') AS h_file, ${M_COLUMNS} ` +
            'FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid ' +
            `WHERE messages_fts MATCH ? AND ${f.sql} ORDER BY messages_fts.rowid DESC LIMIT ?`,
        ).all(fts, ...f.args, prefix ? q.limit * PREFIX_OVERREAD : q.limit) as Row[];
        for (const r of rows) {
          const message = messageOfRow(r);
          if (seen.has(message.seq) || messages.length >= q.limit) continue;
          const inText = rangesOfMarked(String(r.h_text ?? ''), message.text) ?? [];
          const file = message.media?.filename;
          const inFile = file !== undefined ? (rangesOfMarked(String(r.h_file ?? ''), file) ?? []) : [];
          if (
            prefix &&
            !prefixMatches(text, [
              { text: message.text, ranges: inText },
              { text: file ?? '', ranges: inFile },
            ])
          )
            continue;
          seen.add(message.seq);
          if (inText.length > 0 || file === undefined) messages.push({ message, field: 'text', ranges: inText });
          else messages.push({ message, field: 'filename', ranges: inFile });
        }
      }
      messages.sort((a, b) => b.message.seq - a.message.seq);
      const cf = this.agentFilter(q.agentIds, 'c.agent_id');
      const digits = phoneDigits(text);
      const found = digits !== null ? this.contactsNumbered(text) : this.contactsNamed(text);
      if (found.length > 0) {
        const where = `${cf.sql} AND c.contact IN (${found.map(() => '?').join(', ')})`;
        for (const s of this.summaries(where, [...cf.args, ...found], q.limit))
          contacts.push(
            digits !== null
              ? { contact: s, field: 'contact', ranges: rangesOf(s.contact, digits) }
              : { contact: s, field: 'name', ranges: rangesOf(s.name ?? '', text) },
          );
      }
      return { messages, contacts };
    });
  }

  changeMark(): Promise<number> {
    return this.read(() => num((this.stmt('PRAGMA data_version').get() as Row).data_version));
  }

  metas(): Promise<Map<string, string>> {
    return this.read(
      () =>
        new Map((this.stmt('SELECT key, value FROM meta').all() as Row[]).map((r) => [String(r.key), String(r.value)])),
    );
  }

  meta(key: string): Promise<string | null> {
    return this.read(() => {
      const r = this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as Row | undefined;
      return r ? String(r.value) : null;
    });
  }

  setMeta(key: string, value: string): Promise<void> {
    return this.write(() => this.putMeta(key, value));
  }

  private putMeta(key: string, value: string): void {
    this.stmt('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
  }

  async bytesOnDisk(): Promise<number> {
    if (this.location === ':memory:') return 0;
    let n = 0;
    for (const f of [this.location, `${this.location}-wal`])
      n += await stat(f).then(
        (s) => s.size,
        () => 0,
      );
    return n;
  }

  close(): Promise<void> {
    try {
      if (!this.readOnly && this.location !== ':memory:') this.wipe();
      this.db.close();
    } catch {
      // closing twice, or a close that failed: nothing more to do
    }
    return Promise.resolve();
  }
}
