// Two hub companions (replicas) on one database are one inbox: a message that arrives through either is
// stored once and read by both (the other one announces it at its next look), and unread counts and read
// marks are the acting member's, while the embedded default (no message store given) keeps its own file.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asMember } from '../../../src-main/app/hub/acting';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { hubMessages } from '../../../src-main/app/hub/message-store';
import type { Message } from '../../../src-main/core/messages';
import { startTestCompanion, type TestCompanion } from '../../helpers/companion-suite';
import { delivery, T0 } from '../../unit/core/messages/fixtures';
import { startPostgres, type TestPostgres } from './postgres';

let pgServer: TestPostgres;
let db: HubDatabase;
let dir: string;
const replicas: TestCompanion[] = [];

beforeAll(async () => {
  pgServer = await startPostgres();
  db = openHubDatabase(pgServer.url);
  await migrateHub(db);
  dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-inbox-'));
}, 60_000);

afterAll(async () => {
  for (const r of replicas.splice(0)) await r.close();
  await db?.destroy();
  await pgServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

async function replica(name: string): Promise<TestCompanion> {
  const root = path.join(dir, name);
  const r = await startTestCompanion(root, { messages: hubMessages(db, path.join(root, 'data')) });
  replicas.push(r);
  return r;
}

const alice = { name: 'alice', role: 'developer' as const, createdAt: T0 };
const bob = { name: 'bob', role: 'developer' as const, createdAt: T0 };

describe('two hub companions on one database', () => {
  it('see one inbox, each message once, with unread counts and read marks per member', async () => {
    const one = await replica('one');
    const two = await replica('two');
    const a = one.companion.messages;
    const b = two.companion.messages;
    await Promise.all([a.ready, b.ready]);
    const announced: Message[] = [];
    b.on('message', (m) => announced.push(m));

    a.takeDelivery(delivery({ id: 'w1', from: '15550102000', text: 'through the first', receivedAt: T0 }));
    await a.flush();
    // The same delivery taken by both (a retry that reached the other replica), then a new one through the second.
    const again = delivery({ id: 'w1', from: '15550102000', text: 'through the first', receivedAt: T0 });
    b.takeDelivery(again);
    b.takeDelivery(delivery({ id: 'w2', from: '15550102000', text: 'through the second', receivedAt: T0 + 1 }));
    await b.flush();

    for (const m of [a, b])
      expect((await m.thread('agent-a', '15550102000', { limit: 10 })).messages.map((x) => x.text)).toEqual([
        'through the first',
        'through the second',
      ]);
    // The second replica announces what the first stored, at its next look.
    await b.refresh();
    expect(announced.map((m) => m.key).sort()).toEqual(['w1', 'w2']);
    // Neither replica's data folder holds a message database: the inbox is the database's.
    for (const r of replicas) expect(existsSync(path.join(r.companion.dataDir, 'messages', 'messages.db'))).toBe(false);

    // Alice reads it on the first replica; Bob, on the second, still has both unread.
    await asMember(alice, () => a.markRead('agent-a', '15550102000'));
    const unread = async (m: typeof a) => (await m.contacts({}))[0]!.unread;
    expect(await asMember(alice, () => unread(b))).toBe(0);
    expect(await asMember(bob, () => unread(b))).toBe(2);
    expect(await asMember(bob, () => b.unreadCounts(['agent-a']))).toEqual(new Map([['agent-a', 2]]));
    expect(await asMember(alice, () => a.unreadCounts(['agent-a']))).toEqual(new Map([['agent-a', 0]]));
    await asMember(bob, () => b.markRead('agent-a', '15550102000'));
    expect(await asMember(bob, () => unread(a))).toBe(0);
  });

  it('the embedded default (no store given) keeps its own file, as before', async () => {
    const alone = await startTestCompanion(path.join(dir, 'alone'));
    replicas.push(alone);
    const m = alone.companion.messages;
    m.takeDelivery(delivery({ id: 'e1', from: '15550102000', text: 'on my own', receivedAt: T0 }));
    await m.flush();
    expect(existsSync(m.file)).toBe(true);
    expect((await m.thread('agent-a', '15550102000', { limit: 10 })).messages.map((x) => x.text)).toEqual([
      'on my own',
    ]);
  });
});
