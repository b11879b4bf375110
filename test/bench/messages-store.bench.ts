// The message database at scale: 1,000,000 messages over 20 agents × 5,000 contacts (100,000
// conversations, 10 messages each on average, 1 in 50 conversations unread), stored through the
// store's own add() (the path every delivery and send takes). Four cases, side by side in one run:
// - messages-store-start: Messages opened on the data folder (the companion's start: open, schema
//   check, settings; the unread counts, names, retention and the send log follow the list) up to its
//   first contacts list (the 100 most recent), against a bare script opening the same file with libsql and running the same query.
//   Medians over alternating rounds; ratio = bare ÷ ours (target 1/1.5);
// - messages-store-thread: the last 50 messages of a random conversation, ours (Messages.thread)
//   against the bare query; p99 over alternating samples; ratio = bare p99 ÷ ours p99 (target 1/1.5);
// - messages-store-search: a word (a prefix of it) over every conversation, the 50 newest hits with
//   their ranges; ratio = 50 ms ÷ p99 (target 1: p99 within 50 ms);
// - messages-store-size: bytes of the database on disk per message (reported; ratio 1 when under 1 KiB).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { Messages } from '../../src-main/core/messages';
import { SqliteMessageStore } from '../../src-main/core/messages/sqlite-store';
import { median } from '../helpers/bench-stats';
import { agentOf, contactOf, corpusChunks, p99, rng, WORDS } from './support/message-corpus';

export const target = 1 / 1.5;

const MESSAGES = Number(process.env.MESSAGES_STORE_COUNT ?? 1_000_000);
const AGENTS = 20;
const CONTACTS = 5_000;
const CHUNK = 20_000;
const START_ROUNDS = 9;
const SAMPLES = 400;
const SEARCHES = 200;

const SHAPE = { agents: AGENTS, contacts: CONTACTS };

async function fill(dataDir: string, now: number): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dataDir, 'messages'), { recursive: true, mode: 0o700 });
  const store = SqliteMessageStore.open({ file: new Messages({ dataDir, now: Date.now }).file });
  for (const list of corpusChunks({ ...SHAPE, start: now - MESSAGES * 1000, eventAt: true }, MESSAGES, CHUNK))
    await store.add(list, 0);
  await store.setMeta('retention_days', '3650');
  await store.close();
  // Most conversations are read: 1 in 50 keeps its unread messages (one statement, not 100,000 marks).
  const db = new Database(new Messages({ dataDir, now: Date.now }).file);
  db.exec('UPDATE conversations SET read_seq = last_seq, unread = 0 WHERE CAST(contact AS INTEGER) % 50 != 0');
  db.close();
}

/** The same query Messages' first contacts list runs (sqlite-store.ts summaries), written out. */
const BARE_CONTACTS =
  'SELECT c.unread AS c_unread, c.count AS c_count, n.name AS c_name, m.* FROM conversations c ' +
  'JOIN messages m ON m.seq = c.last_seq LEFT JOIN names n ON n.contact = c.contact ' +
  'WHERE 1 = 1 ORDER BY c.last_seq DESC LIMIT 100';
const BARE_THREAD = 'SELECT * FROM messages WHERE agent_id = ? AND contact = ? ORDER BY seq DESC LIMIT 51';

export async function run() {
  // MESSAGES_STORE_DIR: a data folder kept between runs (filled once), to measure again without the fill.
  const kept = process.env.MESSAGES_STORE_DIR;
  const dir = kept ?? (await mkdtemp(join(tmpdir(), 'cc-bench-store-')));
  try {
    const now = Date.now();
    const t0 = performance.now();
    if (kept === undefined || !existsSync(new Messages({ dataDir: dir, now: Date.now }).file)) await fill(dir, now);
    const fillMs = performance.now() - t0;
    const file = new Messages({ dataDir: dir, now: Date.now }).file;
    const results = [];

    // Start to the first contacts list.
    const ours: number[] = [];
    const bare: number[] = [];
    let oursRows = 0;
    let bareRows = 0;
    const oursStart = async () => {
      const s = performance.now();
      const m = new Messages({ dataDir: dir, now: () => now });
      await m.open([]);
      oursRows = (await m.contacts({ limit: 100 })).length;
      const ms = performance.now() - s;
      await m.close();
      return ms;
    };
    const bareStart = () => {
      const s = performance.now();
      const db = new Database(file);
      bareRows = db.prepare(BARE_CONTACTS).all().length;
      const ms = performance.now() - s;
      db.close();
      return ms;
    };
    await oursStart();
    bareStart();
    for (let r = 0; r < START_ROUNDS; r++) {
      if (r % 2 === 0) {
        ours.push(await oursStart());
        bare.push(bareStart());
      } else {
        bare.push(bareStart());
        ours.push(await oursStart());
      }
    }
    if (oursRows !== 100 || bareRows !== 100) throw new Error(`contacts: ours ${oursRows}, bare ${bareRows}`);
    results.push({
      name: 'messages-store-start',
      ratio: median(bare) / median(ours),
      target,
      messages: MESSAGES,
      oursMs: Math.round(median(ours) * 100) / 100,
      bareMs: Math.round(median(bare) * 100) / 100,
      fillS: Math.round(fillMs / 100) / 10,
    });

    // Thread open and search, over one opened Messages and one bare connection.
    const m = new Messages({ dataDir: dir, now: () => now });
    await m.open([]);
    const db = new Database(file);
    const thread = db.prepare(BARE_THREAD);
    const rand = rng(7);
    const oursT: number[] = [];
    const bareT: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const j = Math.floor(rand() * MESSAGES);
      const [agent, contact] = [agentOf(SHAPE, j), contactOf(SHAPE, j)];
      const timeOurs = async () => {
        const a = performance.now();
        const t = await m.thread(agent, contact, { limit: 50 });
        oursT.push(performance.now() - a);
        if (t.messages.length === 0) throw new Error('an empty thread');
      };
      const timeBare = () => {
        const a = performance.now();
        const rows = thread.all(agent, contact);
        bareT.push(performance.now() - a);
        if (rows.length === 0) throw new Error('an empty thread');
      };
      // Alternating which goes first, so neither always reads pages the other just brought in.
      if (i % 2 === 0) {
        await timeOurs();
        timeBare();
      } else {
        timeBare();
        await timeOurs();
      }
    }
    results.push({
      name: 'messages-store-thread',
      ratio: p99(bareT) / p99(oursT),
      target,
      oursP99Ms: Math.round(p99(oursT) * 1000) / 1000,
      bareP99Ms: Math.round(p99(bareT) * 1000) / 1000,
    });

    const searchMs: number[] = [];
    let hits = 0;
    for (let i = 0; i < SEARCHES; i++) {
      const word = WORDS[Math.floor(rand() * WORDS.length)]!;
      const q = i % 4 === 3 ? String(15550000000 + Math.floor(rand() * CONTACTS)).slice(4) : word.slice(0, 4);
      const a = performance.now();
      const r = await m.search({ text: q, limit: 50 });
      searchMs.push(performance.now() - a);
      hits += r.messages.length + r.contacts.length;
    }
    if (hits === 0) throw new Error('no search found anything');
    results.push({
      name: 'messages-store-search',
      ratio: 50 / p99(searchMs),
      target: 1,
      p99Ms: Math.round(p99(searchMs) * 100) / 100,
      medianMs: Math.round(median(searchMs) * 100) / 100,
    });
    const bytes = await m.bytesOnDisk();
    results.push({
      name: 'messages-store-size',
      ratio: 1024 / (bytes / MESSAGES),
      target: 1,
      bytesPerMessage: Math.round(bytes / MESSAGES),
      megabytes: Math.round(bytes / 1024 / 1024),
    });
    db.close();
    await m.close();
    return results;
  } finally {
    if (kept === undefined) await rm(dir, { recursive: true, force: true });
  }
}
