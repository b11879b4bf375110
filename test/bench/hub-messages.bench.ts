// The hub's shared inbox against the embedded one: 100,000 messages over 20 agents × 500 contacts (10,000
// conversations), the same messages stored through each adapter's add() — the Postgres store on a Postgres of
// the bench's own (Debian's, a temp cluster on a free port, as the hub tests start it) and the SQLite store in
// a temp file. Two cases, each side by side in one run, samples alternating which adapter goes first:
// - hub-messages-thread: the last 50 messages of a random conversation (a thread opened); p99 of 400 samples;
// - hub-messages-search: a word's prefix or part of a number over every conversation, the 50 newest hits with
//   their ranges (as Messages' search asks); p99 of 200 samples.
// Each answer is checked to be the same from both (the same keys, the same ranges). ratio = budget ÷ Postgres p99,
// target 1: a thread opens within 10 ms at p99, a search answers within 50 ms (the search field's budget, as
// messages-store's). `sqliteOverPostgres` is SQLite p99 ÷ Postgres p99: what a networked store costs next to a
// file in the process (a round trip per query), reported beside them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateHub, openHubDatabase } from '../../src-main/app/hub/database';
import { PostgresMessageStore } from '../../src-main/app/hub/message-store';
import { SqliteMessageStore } from '../../src-main/core/messages/sqlite-store';
import type { MessageStore } from '../../src-main/core/messages/store';
import { startPostgres } from '../integration/hub/postgres';
import { median } from '../helpers/bench-stats';
import { agentOf, contactOf, corpusChunks, p99, rng, WORDS, type CorpusShape } from './support/message-corpus';

export const target = 1;

const MESSAGES = Number(process.env.HUB_MESSAGES_COUNT ?? 100_000);
const AGENTS = 20;
const CONTACTS = 500;
const CHUNK = 5_000;
const THREADS = 400;
const SEARCHES = 200;
const THREAD_BUDGET_MS = 10;
const SEARCH_BUDGET_MS = 50;

const SHAPE: CorpusShape = { agents: AGENTS, contacts: CONTACTS, start: Date.now() - MESSAGES * 1000 };
const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** Stores the inbox in both stores, chunk by chunk; answers each one's seconds. */
async function fill(stores: MessageStore[]): Promise<number[]> {
  const took = stores.map(() => 0);
  for (const list of corpusChunks(SHAPE, MESSAGES, CHUNK)) {
    for (const [k, s] of stores.entries()) {
      const a = performance.now();
      await s.add(list, 0);
      took[k]! += performance.now() - a;
    }
  }
  return took.map((ms) => Math.round(ms / 100) / 10);
}

/** Times `work` over both stores, alternating which goes first; checks each answered alike. */
async function sideBySide(
  n: number,
  pgStore: MessageStore,
  sqlite: MessageStore,
  work: (s: MessageStore, i: number) => Promise<string>,
): Promise<{ pg: number[]; sqlite: number[] }> {
  const out = { pg: [] as number[], sqlite: [] as number[] };
  const time = async (s: MessageStore, into: number[], i: number) => {
    const a = performance.now();
    const answer = await work(s, i);
    into.push(performance.now() - a);
    return answer;
  };
  for (let i = 0; i < n; i++) {
    const [first, second] =
      i % 2 === 0
        ? [await time(pgStore, out.pg, i), await time(sqlite, out.sqlite, i)]
        : [await time(sqlite, out.sqlite, i), await time(pgStore, out.pg, i)];
    if (first !== second) throw new Error(`the adapters answered #${i} differently: ${first} / ${second}`);
  }
  return out;
}

export async function run() {
  const server = await startPostgres();
  const dir = await mkdtemp(join(tmpdir(), 'cc-bench-hub-messages-'));
  const db = openHubDatabase(server.url);
  try {
    await migrateHub(db);
    const pgStore = new PostgresMessageStore({ db, place: 'bench' });
    const sqlite = SqliteMessageStore.open({ file: join(dir, 'messages.db') });
    const [pgFillS, sqliteFillS] = await fill([pgStore, sqlite]);
    // Fresh statistics after the bulk load, as autovacuum would gather them.
    const { sql } = await import('kysely');
    await sql`vacuum analyze`.execute(db);

    const rand = rng(7);
    const threads = Array.from({ length: THREADS }, () => Math.floor(rand() * MESSAGES));
    const t = await sideBySide(THREADS, pgStore, sqlite, async (s, i) => {
      const j = threads[i]!;
      const r = await s.thread(agentOf(SHAPE, j), contactOf(SHAPE, j), { limit: 50 });
      if (r.messages.length === 0) throw new Error('an empty thread');
      return r.messages.map((m) => m.key).join(',');
    });
    const queries = Array.from({ length: SEARCHES }, (_, i) =>
      i % 4 === 3
        ? String(15550000000 + Math.floor(rand() * CONTACTS)).slice(4)
        : WORDS[Math.floor(rand() * WORDS.length)]!.slice(0, 4),
    );
    const s = await sideBySide(SEARCHES, pgStore, sqlite, async (st, i) => {
      const r = await st.search({ text: queries[i]!, limit: 50 });
      if (r.messages.length + r.contacts.length === 0) throw new Error(`nothing found for ${queries[i]}`);
      return [...r.messages.map((h) => `${h.message.key}:${JSON.stringify(h.ranges)}`), r.contacts.length].join(',');
    });
    const pgBytes = await pgStore.bytesOnDisk();
    const sqliteBytes = await sqlite.bytesOnDisk();
    await sqlite.close();
    return [
      {
        name: 'hub-messages-thread',
        ratio: THREAD_BUDGET_MS / p99(t.pg),
        target,
        sqliteOverPostgres: round(p99(t.sqlite) / p99(t.pg)),
        messages: MESSAGES,
        postgresP99Ms: round(p99(t.pg)),
        sqliteP99Ms: round(p99(t.sqlite)),
        postgresMedianMs: round(median(t.pg)),
        sqliteMedianMs: round(median(t.sqlite)),
      },
      {
        name: 'hub-messages-search',
        ratio: SEARCH_BUDGET_MS / p99(s.pg),
        target,
        sqliteOverPostgres: round(p99(s.sqlite) / p99(s.pg)),
        postgresP99Ms: round(p99(s.pg)),
        sqliteP99Ms: round(p99(s.sqlite)),
        postgresMedianMs: round(median(s.pg)),
        sqliteMedianMs: round(median(s.sqlite)),
        postgresFillS: pgFillS,
        sqliteFillS,
        postgresBytesPerMessage: Math.round(pgBytes / MESSAGES),
        sqliteBytesPerMessage: Math.round(sqliteBytes / MESSAGES),
      },
    ];
  } finally {
    await db.destroy();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
