// The message store on the hub's Postgres: the port of core/messages/store.ts over Kysely, so every replica
// reads and writes one inbox. The tables mirror SQLite's (sqlite-schema.ts), with two additions: a read mark
// per reader (a member: hub_message_reads) beside the conversation's own, and the settings a data folder keeps
// for itself (how far it read its own logs) kept per data folder ("place").
//
// - Order: a message's seq is taken under a transaction-scoped advisory lock, so seqs become visible in
//   commit order and a reader following after(seq) never skips a row another replica committed late.
// - Idempotent: (agent_id, key) is unique and inserts do nothing on conflict, so a message that arrives
//   through two replicas is stored once.
// - Search: each message's words are folded in JS exactly as SQLite's index folds them (search-text.ts) and
//   kept as a tsvector (GIN); a query is a tsquery of those words, whole or as prefixes.
// - Deletion deletes (DELETE): the rows leave every query at once; their bytes stay in the table's pages
//   until VACUUM (autovacuum) reuses them — docs/hub.md says what that means for the database's files.
import { hostname } from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
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
} from '../../core/messages/store';
import { messageOfRow } from '../../core/messages/message-row';
import { phoneDigits, queryTokens, rangesOf, rangesOfWords, wordsOf } from '../../core/messages/search-text';
import { actingMember } from './acting';
import type { HubDatabase } from './database';
import { COLUMNS, TYPES } from './message-schema';
import { ownConnection, type OwnConnection } from './own-connection';

type Row = Record<string, unknown>;

/**
 * Seqs are taken under this lock (transaction-scoped), so commits of messages are in seq order; deletions take it
 * too, so no two writers lock several conversations in opposite orders.
 */
const SEQ_LOCK = 0x6875_626d; // "hubm"
/** A write's transaction begun, with the change's number (changeMark), and also holding the seq lock. */
const BEGIN = "begin; select nextval('hub_message_changes')";
const BEGIN_LOCKED = `${BEGIN}, pg_advisory_xact_lock(${SEQ_LOCK})`;
/** A word longer than this is not indexed (a blob pasted as text is not searched by its words). */
const LONGEST_WORD = 200;
/**
 * A search reads every match from the words' index when they are at most this many, else the newest messages
 * backwards until the page is full (a common word fills it at once; a rare one read backwards reads the table).
 */
const FEW_MATCHES = 1000;
/** Messages per insert statement (Postgres takes at most 65,535 values in one). */
const BATCH = 1000;

/** The columns a send's record replaces in the phone's echo of it (the rest say which message it is). */
const REPLACED = COLUMNS.filter((c) => !['agent_id', 'contact', 'key', 'received_at'].includes(c));
const SELECTED = sql.raw(['seq', ...COLUMNS].map((c) => `m.${c}`).join(', '));
/**
 * A batch of messages in one statement (its text the same for every batch: parsed as such, not built each time):
 * $1 their rows as a JSON array (COLUMNS, their words, their order), in which keys deleted before are left out, keys
 * stored before do nothing and each new row takes its seq in the order given; then the conversations take their
 * new rows (count, unread, last and last inbound seq); and when $2, the setting ($3 place, $4 key, $5 value) is
 * written. Answers the new rows (seq, agent_id, key) and the conversations' unread after them (agent_id, contact,
 * unread; seq null).
 */
const ADD = `
  with given as (select * from jsonb_to_recordset($1::jsonb)
    as x(${COLUMNS.map((c) => `${c} ${TYPES[c]}`).join(', ')}, words text[], ord int)),
  ins as (
    insert into hub_messages (${COLUMNS.join(', ')}, words)
    select ${COLUMNS.join(', ')}, array_to_tsvector(words) from given g
    where not exists (select 1 from hub_message_forgotten f where f.agent_id = g.agent_id and f.key = g.key)
    order by ord
    on conflict (agent_id, key) do nothing
    returning seq, agent_id, key, contact, direction
  ),
  conv as (
    insert into hub_conversations as c (agent_id, contact, last_seq, count, unread, inbound, last_in_seq)
    select agent_id, contact, max(seq), count(*), count(*) filter (where direction = 'in'),
      count(*) filter (where direction = 'in'), coalesce(max(seq) filter (where direction = 'in'), 0)
    from ins group by agent_id, contact
    on conflict (agent_id, contact) do update set last_seq = excluded.last_seq, count = c.count + excluded.count,
      unread = c.unread + excluded.unread, inbound = c.inbound + excluded.inbound,
      last_in_seq = greatest(c.last_in_seq, excluded.last_in_seq)
    returning agent_id, contact, unread
  ),
  kept as (
    insert into hub_message_meta (place, key, value) select $3::text, $4::text, $5::text where $2::boolean
    on conflict (place, key) do update set value = excluded.value
  )
  select seq, agent_id, key, null::text as contact, null::bigint as unread from ins
  union all select null, agent_id, null, contact, unread from conv`;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** A message's column values, in COLUMNS order. */
function valuesOf(m: Message): Record<(typeof COLUMNS)[number], unknown> {
  return {
    agent_id: m.agentId,
    contact: m.contact,
    key: m.key,
    received_at: m.at,
    event_at: m.eventAt ?? null,
    direction: m.direction,
    from_me: m.fromMe,
    type: m.type,
    text: m.text,
    filename: m.media?.filename ?? null,
    media_url: m.media?.url ?? null,
    media_mime: m.media?.mimeType ?? null,
    media_size: m.media?.size ?? null,
    message_id: m.messageId ?? null,
    status: m.status ?? null,
    error: m.error ? JSON.stringify(m.error) : null,
    via: m.via ?? null,
    team_id: m.teamId ?? null,
    delivery_id: m.deliveryId ?? null,
    simulated: m.simulated === true,
    send_id: m.sendId ?? null,
    client_ref: m.clientRef ?? null,
    sent_by: m.sentBy ?? null,
  };
}

/** The words a message is found by (its text and file name), folded as the query's are. */
function wordsOfMessage(m: Message): string[] {
  const words = new Set<string>();
  for (const t of [m.text, m.media?.filename ?? ''])
    for (const w of wordsOf(t)) if (w.folded.length <= LONGEST_WORD) words.add(w.folded);
  return [...words];
}

/** The tsquery of a query's words (each whole, or a prefix), or null when it has none. */
function tsQuery(tokens: readonly string[], prefix: boolean): string | null {
  if (tokens.length === 0) return null;
  // The tokens are letters and digits only: quoted, none is taken for an operator.
  return tokens.map((t) => `'${t}'${prefix ? ':*' : ''}`).join(' & ');
}

/** Postgres's failures as the store's own: an unreachable server says so (and names no password). */
function storeError(err: unknown): Error {
  const code = String((err as { code?: unknown }).code ?? '');
  const detail = err instanceof Error ? err.message : String(err);
  if (code.startsWith('08') || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01'].includes(code))
    return new MessageStoreError('unavailable', `the hub's message database cannot be reached (${detail})`);
  return err instanceof Error ? err : new Error(detail);
}

export interface PostgresStoreOptions {
  db: HubDatabase;
  /**
   * The database's URL: batches of messages are then written on a connection of the store's own, their statement
   * prepared once (own-connection.ts); else on the pool's.
   */
  url?: string;
  /** This data folder (a replica's), for the settings that are its own (MessageStore.meta, `local`). */
  place: string;
  /** Where it is, for people (never the URL: it may hold a password). */
  location?: string;
}

export class PostgresMessageStore implements MessageStore {
  readonly location: string;
  readonly readOnly = false;
  private readonly db: HubDatabase;
  private readonly place: string;
  /** Change numbers this store took itself (changeMark counts the others'). */
  private own = 0;
  /** Where batches of messages are written, given the URL. */
  private readonly batches: OwnConnection | null;

  constructor(o: PostgresStoreOptions) {
    if (o.place === '') throw new Error('a Postgres message store needs its place (the data folder it serves)');
    this.db = o.db;
    this.place = o.place;
    this.batches = o.url === undefined ? null : ownConnection(o.db, o.url);
    this.location = o.location ?? "the hub's database";
  }

  /** A statement of its own text and parameters. */
  private async run(db: HubDatabase, text: string, values: readonly unknown[]): Promise<Row[]> {
    try {
      return (await db.executeQuery<Row>(CompiledQuery.raw(text, [...values]))).rows;
    } catch (err) {
      throw storeError(err);
    }
  }

  private async q(query: RawBuilder<unknown>, db: HubDatabase = this.db): Promise<Row[]> {
    try {
      return (await query.execute(db)).rows as Row[];
    } catch (err) {
      throw storeError(err);
    }
  }

  /**
   * `work` in one transaction, counted as a change (changeMark); `seqLock`: holding the seq lock (SEQ_LOCK). The
   * transaction begins with its change's number (and the lock) in one round trip: one simple query of two
   * statements, which needs no parameter.
   */
  private async write<T>(work: (trx: HubDatabase) => Promise<T>, seqLock = false): Promise<T> {
    try {
      const out = await this.db.connection().execute(async (conn) => {
        await conn.executeQuery(CompiledQuery.raw(seqLock ? BEGIN_LOCKED : BEGIN));
        try {
          const done = await work(conn);
          await conn.executeQuery(CompiledQuery.raw('commit'));
          return done;
        } catch (err) {
          await conn.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
          throw err;
        }
      });
      this.own++;
      return out;
    } catch (err) {
      throw storeError(err);
    }
  }

  add(
    msgs: ReadonlyArray<{ message: Message; wins: boolean }>,
    cutoff: number,
    meta?: { key: string; value: string; local?: boolean },
  ): Promise<Added[]> {
    const list = msgs.filter((x) => x.message.at >= cutoff);
    if (list.length === 0)
      return meta === undefined ? Promise.resolve([]) : this.setMeta(meta.key, meta.value, meta.local).then(() => []);
    // The seq lock is taken by a statement before the insert, whose snapshot (taken after it) then sees every
    // deletion committed before (a key deleted meanwhile stays deleted).
    const batch = async (run: (text: string, values: readonly unknown[]) => Promise<Row[]>) => {
      // One statement (ADD) a part of BATCH messages; the setting `meta` goes with the first.
      const inserted: Row[] = [];
      const unreadOf = new Map<string, number>();
      for (let i = 0; i < list.length; i += BATCH) {
        const part = list.slice(i, i + BATCH);
        const rows = JSON.stringify(
          part.map((x, ord) => ({ ...valuesOf(x.message), words: wordsOfMessage(x.message), ord })),
        );
        const m = i === 0 ? meta : undefined;
        const place = m?.local === true ? this.place : '';
        const out = await run(ADD, [rows, m !== undefined, place, m?.key ?? null, m?.value ?? null]);
        for (const r of out)
          if (r.seq === null) unreadOf.set(`${String(r.agent_id)}\n${String(r.contact)}`, num(r.unread));
          else inserted.push(r);
      }
      return { inserted, unreadOf };
    };
    // Received messages (none a send's record, which may take its echo's place) on the store's own connection.
    if (this.batches !== null && list.every((x) => !x.wins))
      return this.batches
        .transaction(BEGIN_LOCKED, async (run) => {
          const { inserted, unreadOf } = await batch((text, values) => run<Row>(text, values));
          return this.added(null, list, inserted, unreadOf);
        })
        .then(
          (out) => {
            this.own++;
            return out;
          },
          (err: unknown) => {
            throw storeError(err);
          },
        );
    return this.write(async (trx) => {
      const { inserted, unreadOf } = await batch((text, values) => this.run(trx, text, values));
      return this.added(trx, list, inserted, unreadOf);
    }, true);
  }

  /**
   * What a batch added (its rows `inserted`, the conversations' unread once it was in, `unreadOf`), in the list's
   * order, each message's unread being its conversation's after it (the conversation's in the end less its
   * inbound rows that came later); a send whose phone's echo was stored before takes the echo's place.
   */
  private async added(
    trx: HubDatabase | null,
    list: ReadonlyArray<{ message: Message; wins: boolean }>,
    inserted: Row[],
    unreadOf: Map<string, number>,
  ): Promise<Added[]> {
    const seqOf = new Map(inserted.map((r) => [`${String(r.agent_id)}\n${String(r.key)}`, num(r.seq)]));
    const news = new Map<Message, number>();
    /** Per conversation: its unread once the rows so far are counted (its inbound rows still to come taken off). */
    const unreadNow = new Map(unreadOf);
    for (const { message: m } of list) {
      const id = `${m.agentId}\n${m.key}`;
      const seq = seqOf.get(id);
      if (seq === undefined) continue;
      seqOf.delete(id);
      news.set(m, seq);
      const conv = `${m.agentId}\n${m.contact}`;
      if (m.direction === 'in') unreadNow.set(conv, (unreadNow.get(conv) ?? 0) - 1);
    }
    const out: Added[] = [];
    for (const { message: m, wins } of list) {
      const conv = `${m.agentId}\n${m.contact}`;
      const seq = news.get(m);
      if (seq !== undefined) {
        const unread = (unreadNow.get(conv) ?? 0) + (m.direction === 'in' ? 1 : 0);
        unreadNow.set(conv, unread);
        out.push({ message: { ...m, seq }, unread });
        continue;
      }
      if (!wins || trx === null) continue;
      // The phone's echo of our own send: the send's record (with its status) takes its place.
      const v = valuesOf(m);
      const [row] = await this.q(
        sql`
          update hub_messages m set ${sql.join(REPLACED.map((c) => sql`${sql.ref(c)} = ${v[c]}`))},
            words = array_to_tsvector(${wordsOfMessage(m)}::text[])
          where agent_id = ${m.agentId} and key = ${m.key} and send_id is null
          returning ${SELECTED}, (select unread from hub_conversations c
            where c.agent_id = m.agent_id and c.contact = m.contact) as c_unread`,
        trx,
      );
      // Its conversation's unread at this point of the list (as the rows so far left it).
      if (row) out.push({ message: messageOfRow(row), unread: unreadNow.get(conv) ?? num(row.c_unread) });
    }
    return out;
  }

  async has(agentId: string, key: string): Promise<boolean> {
    const rows = await this.q(sql`select 1 from hub_messages where agent_id = ${agentId} and key = ${key}`);
    return rows.length > 0;
  }

  /** A condition on `column` for the agents asked (all when undefined). */
  private agentFilter(agentIds: readonly string[] | undefined, column: string): RawBuilder<unknown> {
    if (agentIds === undefined) return sql`true`;
    return sql`${sql.ref(column)} = any(${[...agentIds]}::text[])`;
  }

  /** The unread count of conversation `c` for `reader` (the conversation's own without one). */
  private unreadExpr(reader: string | undefined): RawBuilder<unknown> {
    if (reader === undefined) return sql`c.unread`;
    // A conversation the reader never marked: every inbound message; read to its last inbound one: none.
    return sql`(case
      when r.read_seq is null then c.inbound
      when r.read_seq >= c.last_in_seq then 0
      else (select count(*) from hub_messages i
        where i.agent_id = c.agent_id and i.contact = c.contact and i.direction = 'in' and i.seq > r.read_seq)
      end)`;
  }

  private readsJoin(reader: string | undefined): RawBuilder<unknown> {
    if (reader === undefined) return sql``;
    return sql`left join hub_message_reads r on r.reader = ${reader} and r.agent_id = c.agent_id and r.contact = c.contact`;
  }

  private async summaries(
    where: RawBuilder<unknown>,
    limit: number | undefined,
    reader?: string,
  ): Promise<ContactSummary[]> {
    const rows = await this.q(
      sql`select ${this.unreadExpr(reader)} as c_unread, c.count as c_count, n.name as c_name, ${SELECTED}
        from hub_conversations c join hub_messages m on m.seq = c.last_seq
        left join hub_message_names n on n.contact = c.contact ${this.readsJoin(reader)}
        where ${where} order by c.last_seq desc ${limit !== undefined ? sql`limit ${limit}` : sql``}`,
    );
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

  async contacts(q: ContactQuery): Promise<ContactSummary[]> {
    const f = this.agentFilter(q.agentIds, 'c.agent_id');
    const search = q.search?.trim() ?? '';
    if (search === '') return this.summaries(f, q.limit, q.reader);
    const match: Array<RawBuilder<unknown>> = [this.named(search)];
    const numbered = this.numbered(search);
    if (numbered !== null) match.push(numbered);
    const ts = tsQuery(queryTokens(search), true);
    if (ts !== null)
      match.push(
        sql`exists (select 1 from hub_messages w where w.agent_id = c.agent_id and w.contact = c.contact
          and w.words @@ ${ts}::tsquery)`,
      );
    return this.summaries(sql`${f} and (${sql.join(match, sql` or `)})`, q.limit, q.reader);
  }

  async unreadByAgent(reader?: string): Promise<Map<string, number>> {
    const rows = await this.q(
      reader === undefined
        ? sql`select agent_id, sum(unread) as n from hub_conversations where unread > 0 group by agent_id`
        : sql`select c.agent_id, sum(${this.unreadExpr(reader)}) as n from hub_conversations c ${this.readsJoin(reader)}
            where c.inbound > 0 group by c.agent_id`,
    );
    return new Map(rows.filter((r) => num(r.n) > 0).map((r) => [String(r.agent_id), num(r.n)]));
  }

  async unreadOf(agentId: string, contact: string, reader?: string): Promise<number> {
    const [r] = await this.q(
      sql`select ${this.unreadExpr(reader)} as n from hub_conversations c ${this.readsJoin(reader)}
        where c.agent_id = ${agentId} and c.contact = ${contact}`,
    );
    return r ? num(r.n) : 0;
  }

  async unreadOfEach(conversations: ReadonlyArray<{ agentId: string; contact: string }>): Promise<number[]> {
    if (conversations.length === 0) return [];
    const rows = await this.q(
      sql`select coalesce(c.unread, 0) as n from unnest(${conversations.map((c) => c.agentId)}::text[],
          ${conversations.map((c) => c.contact)}::text[]) with ordinality as u(agent_id, contact, i)
        left join hub_conversations c on c.agent_id = u.agent_id and c.contact = u.contact order by u.i`,
    );
    return rows.map((r) => num(r.n));
  }

  async thread(
    agentId: string,
    contact: string,
    opts: { beforeSeq?: number; before?: number; limit: number },
  ): Promise<{ messages: Message[]; more: boolean }> {
    const limit = Number.isFinite(opts.limit) ? opts.limit : -1;
    const rows = await this.q(
      sql`select ${SELECTED} from hub_messages m where agent_id = ${agentId} and contact = ${contact}
        ${opts.beforeSeq !== undefined ? sql`and seq < ${opts.beforeSeq}` : sql``}
        ${opts.before !== undefined ? sql`and received_at < ${opts.before}` : sql``}
        order by seq desc ${limit >= 0 ? sql`limit ${limit + 1}` : sql``}`,
    );
    const more = limit >= 0 && rows.length > limit;
    return { messages: (more ? rows.slice(0, limit) : rows).map(messageOfRow).reverse(), more };
  }

  async find(agentId: string, key: string): Promise<Message | null> {
    const [r] = await this.q(sql`select ${SELECTED} from hub_messages m where agent_id = ${agentId} and key = ${key}`);
    return r ? messageOfRow(r) : null;
  }

  async sent(agentId: string, limit: number): Promise<Message[]> {
    const rows = await this.q(
      sql`select ${SELECTED} from hub_messages m where agent_id = ${agentId} and send_id is not null
        order by seq desc limit ${limit}`,
    );
    return rows.map(messageOfRow);
  }

  async newestSeq(): Promise<number> {
    const [r] = await this.q(sql`select max(seq) as seq from hub_messages`);
    return num(r?.seq);
  }

  async after(seq: number, limit: number): Promise<Message[]> {
    const rows = await this.q(
      sql`select ${SELECTED} from hub_messages m where seq > ${seq} order by seq limit ${limit}`,
    );
    return rows.map(messageOfRow);
  }

  markRead(agentId: string, contact: string, upToSeq?: number, reader?: string): Promise<boolean> {
    return this.write(async (trx) => {
      const upTo = upToSeq === undefined ? sql`c.last_seq` : sql`least(${upToSeq}::bigint, c.last_seq)`;
      // The conversation's own mark: a reader's read moves it too (someone on the team read it).
      const [c] = await this.q(
        sql`update hub_conversations c set read_seq = greatest(c.read_seq, ${upTo})
          where agent_id = ${agentId} and contact = ${contact} returning read_seq, last_in_seq`,
        trx,
      );
      if (!c) return false;
      await this.q(
        sql`update hub_conversations c set unread = case when c.read_seq >= c.last_in_seq then 0 else
            (select count(*) from hub_messages i where i.agent_id = c.agent_id and i.contact = c.contact
              and i.direction = 'in' and i.seq > c.read_seq) end
          where agent_id = ${agentId} and contact = ${contact}`,
        trx,
      );
      if (reader !== undefined)
        await this.q(
          sql`insert into hub_message_reads as r (reader, agent_id, contact, read_seq)
            select ${reader}, c.agent_id, c.contact, ${upTo} from hub_conversations c
            where c.agent_id = ${agentId} and c.contact = ${contact}
            on conflict (reader, agent_id, contact) do update set read_seq = greatest(r.read_seq, excluded.read_seq)`,
          trx,
        );
      return true;
    });
  }

  async names(): Promise<Map<string, string>> {
    const rows = await this.q(sql`select contact, name from hub_message_names`);
    return new Map(rows.map((r) => [String(r.contact), String(r.name)]));
  }

  setName(contact: string, name: string | null): Promise<void> {
    return this.write(async (trx) => {
      if (name === null) await this.q(sql`delete from hub_message_names where contact = ${contact}`, trx);
      else
        await this.q(
          sql`insert into hub_message_names (contact, name) values (${contact}, ${name})
            on conflict (contact) do update set name = excluded.name`,
          trx,
        );
    });
  }

  /** Deletes the rows `where` selects (remembering their keys when `now` is given): what they were. */
  private async removeWhere(trx: HubDatabase, where: RawBuilder<unknown>, now: number | null): Promise<Removed> {
    const rows = await this.q(
      now === null
        ? sql`delete from hub_messages where ${where} returning agent_id, contact, delivery_id, message_id`
        : sql`with gone as (delete from hub_messages where ${where} returning agent_id, contact, key, delivery_id, message_id),
            kept as (insert into hub_message_forgotten (agent_id, key, at) select agent_id, key, ${now} from gone
              on conflict (agent_id, key) do nothing)
            select agent_id, contact, delivery_id, message_id from gone`,
      trx,
    );
    const out: Removed = { count: rows.length, deliveryIds: [], messageIds: [], conversations: [] };
    const convs = new Map<string, { agentId: string; contact: string }>();
    for (const r of rows) {
      if (r.delivery_id !== null) out.deliveryIds.push(String(r.delivery_id));
      if (r.message_id !== null) out.messageIds.push(String(r.message_id));
      const c = { agentId: String(r.agent_id), contact: String(r.contact) };
      convs.set(`${c.agentId}\n${c.contact}`, c);
    }
    out.conversations = [...convs.values()];
    return out;
  }

  remove(scope: RemoveScope, now: number): Promise<Removed> {
    return this.write(async (trx) => {
      // In turn with the writers of messages: the rows of several conversations are never locked crosswise.
      await sql`select pg_advisory_xact_lock(${SEQ_LOCK})`.execute(trx);
      const conds: Array<RawBuilder<unknown>> = [];
      if ('agentId' in scope) conds.push(sql`agent_id = ${scope.agentId}`);
      if (scope.contact !== undefined) conds.push(sql`contact = ${scope.contact}`);
      const where = sql.join(conds, sql` and `);
      const out = await this.removeWhere(trx, where, now);
      await this.q(sql`delete from hub_conversations where ${where}`, trx);
      await this.q(sql`delete from hub_message_reads where ${where}`, trx);
      // A contact's data everywhere: its local name too.
      if (!('agentId' in scope)) await this.q(sql`delete from hub_message_names where contact = ${scope.contact}`, trx);
      return out;
    });
  }

  removeOlderThan(cutoff: number): Promise<Removed> {
    return this.write(async (trx) => {
      await sql`select pg_advisory_xact_lock(${SEQ_LOCK})`.execute(trx);
      const out = await this.removeWhere(trx, sql`received_at < ${cutoff}`, null);
      await this.q(sql`delete from hub_message_forgotten where at < ${cutoff}`, trx);
      if (out.conversations.length === 0) return out;
      const agents = out.conversations.map((c) => c.agentId);
      const contacts = out.conversations.map((c) => c.contact);
      const touched = sql`(agent_id, contact) in (select * from unnest(${agents}::text[], ${contacts}::text[]))`;
      await this.q(
        sql`update hub_conversations c set
            count = (select count(*) from hub_messages m where m.agent_id = c.agent_id and m.contact = c.contact),
            inbound = (select count(*) from hub_messages m
              where m.agent_id = c.agent_id and m.contact = c.contact and m.direction = 'in'),
            unread = (select count(*) from hub_messages m where m.agent_id = c.agent_id and m.contact = c.contact
              and m.direction = 'in' and m.seq > c.read_seq)
          where ${touched}`,
        trx,
      );
      await this.q(
        sql`delete from hub_message_reads where ${touched} and (agent_id, contact) in
          (select agent_id, contact from hub_conversations where count = 0)`,
        trx,
      );
      await this.q(sql`delete from hub_conversations where ${touched} and count = 0`, trx);
      return out;
    });
  }

  /** The conversations (`c`) whose contact's local name holds `text` (any case). */
  private named(text: string): RawBuilder<unknown> {
    const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return sql`c.contact in (select contact from hub_message_names where lower(name) like ${like} escape '\\')`;
  }

  /** The conversations (`c`) whose number holds the digits of `text` written as a number (null: it is not one). */
  private numbered(text: string): RawBuilder<unknown> | null {
    const digits = phoneDigits(text);
    return digits === null ? null : sql`c.contact like ${`%${digits}%`}`;
  }

  /**
   * The newest `limit` messages whose words match `ts` (and `filter`). The planner cannot tell a rare word's
   * prefix from a common one's, so one statement holds both ways and the count chooses: the index's matches
   * read unordered up to a bound, all of them sorted when there are no more; else the newest messages read
   * backwards (a common word fills the page at once). The branch not chosen is not run.
   */
  private matching(ts: string, filter: RawBuilder<unknown>, limit: number): Promise<Row[]> {
    const match = sql`m.words @@ ${ts}::tsquery and ${filter}`;
    return this.q(sql`
      with few as materialized (select m.seq from hub_messages m where ${match} limit ${FEW_MATCHES + 1}),
        found as (select count(*) as n from few)
      (select ${SELECTED} from hub_messages m where m.seq in (select seq from few)
        and (select n from found) <= ${FEW_MATCHES} order by m.seq desc limit ${limit})
      union all
      (select ${SELECTED} from hub_messages m where ${match}
        and (select n from found) > ${FEW_MATCHES} order by m.seq desc limit ${limit})`);
  }

  async search(q: SearchQuery): Promise<SearchResult> {
    const messages: MessageHit[] = [];
    const contacts: ContactHit[] = [];
    const text = q.text.trim();
    if (text === '') return { messages, contacts };
    const tokens = queryTokens(text);
    const f = this.agentFilter(q.agentIds, 'm.agent_id');
    const seen = new Set<number>();
    // Whole words first (newest first); prefixes only when those do not fill the page.
    for (const prefix of [false, true]) {
      const ts = tsQuery(tokens, prefix);
      if (ts === null || messages.length >= q.limit) continue;
      const rows = await this.matching(ts, f, q.limit + seen.size);
      for (const r of rows) {
        const message = messageOfRow(r);
        if (seen.has(message.seq) || messages.length >= q.limit) continue;
        seen.add(message.seq);
        const inText = rangesOfWords(message.text, tokens, prefix);
        const file = message.media?.filename;
        if (inText.length > 0 || file === undefined) messages.push({ message, field: 'text', ranges: inText });
        else messages.push({ message, field: 'filename', ranges: rangesOfWords(file, tokens, prefix) });
      }
    }
    messages.sort((a, b) => b.message.seq - a.message.seq);
    const digits = phoneDigits(text);
    const which = this.numbered(text) ?? this.named(text);
    for (const s of await this.summaries(sql`${this.agentFilter(q.agentIds, 'c.agent_id')} and ${which}`, q.limit))
      contacts.push(
        digits !== null
          ? { contact: s, field: 'contact', ranges: rangesOf(s.contact, digits) }
          : { contact: s, field: 'name', ranges: rangesOf(s.name ?? '', text) },
      );
    return { messages, contacts };
  }

  /** Changes made through other stores (other replicas): every write takes a number, less this store's own. */
  async changeMark(): Promise<number> {
    const [r] = await this.q(sql`select case when is_called then last_value else 0 end as n from hub_message_changes`);
    return num(r?.n) - this.own;
  }

  async metas(): Promise<Map<string, string>> {
    // The shared ones first: this data folder's own take their place.
    const rows = await this.q(
      sql`select key, value from hub_message_meta where place in ('', ${this.place}) order by place = ${this.place}`,
    );
    return new Map(rows.map((r) => [String(r.key), String(r.value)]));
  }

  async meta(key: string, local = false): Promise<string | null> {
    const [r] = await this.q(
      sql`select value from hub_message_meta where place = ${local ? this.place : ''} and key = ${key}`,
    );
    return r ? String(r.value) : null;
  }

  setMeta(key: string, value: string, local = false): Promise<void> {
    return this.write(async (trx) => {
      await this.q(
        sql`insert into hub_message_meta (place, key, value) values (${local ? this.place : ''}, ${key}, ${value})
          on conflict (place, key) do update set value = excluded.value`,
        trx,
      );
    });
  }

  async bytesOnDisk(): Promise<number> {
    const [r] = await this.q(
      sql`select sum(pg_total_relation_size(t::regclass)) as n from unnest(array['hub_messages', 'hub_conversations',
        'hub_message_reads', 'hub_message_names', 'hub_message_forgotten', 'hub_message_meta']) t`,
    );
    return num(r?.n);
  }

  /** The database is the hub's (its pool closes with it): only the store's own connection is closed. */
  async close(): Promise<void> {
    await this.batches?.close();
  }
}

/**
 * The hub companion's messages: the shared inbox on the hub's database, read as the member each request runs
 * for (no member — the hub's own work, its notices — reads the conversations' own marks). `dataDir` is this
 * replica's data folder: the settings of its own logs are kept under its host and path. A deletion also blanks
 * the bodies of the deleted messages' deliveries in `hub_deliveries` (their rows, verdicts and forwards stay), as
 * it does in a data folder's tunnel log. Given the database's `url`, the batches of received messages are written
 * on a connection of the store's own (PostgresStoreOptions.url).
 */
export function hubMessages(
  db: HubDatabase,
  dataDir: string,
  url?: string,
): {
  store: PostgresMessageStore;
  reader: () => string | null;
  eraseDeliveries: (ids: readonly string[]) => Promise<void>;
} {
  return {
    store: new PostgresMessageStore({
      db,
      place: `${hostname()}:${path.resolve(dataDir)}`,
      ...(url !== undefined ? { url } : {}),
    }),
    reader: () => actingMember()?.name ?? null,
    eraseDeliveries: async (ids) => {
      if (ids.length === 0) return;
      await sql`update hub_deliveries set delivery = jsonb_set(delivery, '{bodyBase64}', '""'::jsonb)
        where delivery_id = any(${[...ids]}::text[])`.execute(db);
    },
  };
}
