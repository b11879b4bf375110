// The message store over the hub's Postgres (Debian's, started by this file): the port's contract suite
// (test/unit/core/messages/store-contract.ts), as the SQLite adapter answers it; read state per reader
// (a member); settings kept per data folder; a message taken by two replicas at once stored once.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { PostgresMessageStore } from '../../../src-main/app/hub/message-store';
import { describeMessageStore, msg } from '../../unit/core/messages/store-contract';
import { T0 } from '../../unit/core/messages/fixtures';
import { startPostgres, type TestPostgres } from './postgres';

let pgServer: TestPostgres;
let db: HubDatabase;

beforeAll(async () => {
  pgServer = await startPostgres();
  db = openHubDatabase(pgServer.url);
  await migrateHub(db);
}, 60_000);

afterAll(async () => {
  await db?.destroy();
  await pgServer?.stop();
}, 30_000);

/** An empty inbox: every table of the store emptied. */
async function empty(): Promise<void> {
  await sql`truncate hub_messages, hub_conversations, hub_message_reads, hub_message_names, hub_message_forgotten,
    hub_message_meta restart identity`.execute(db);
}

describeMessageStore('Postgres', async () => {
  await empty();
  return {
    store: new PostgresMessageStore({ db, place: 'replica-1' }),
    another: async () => new PostgresMessageStore({ db, place: 'replica-2' }),
  };
});

// The same with the batches of messages written on the store's own connection (a hub replica's way).
describeMessageStore('Postgres, batches on a connection of their own', async () => {
  await empty();
  return {
    store: new PostgresMessageStore({ db, place: 'replica-1', url: pgServer.url }),
    another: async () => new PostgresMessageStore({ db, place: 'replica-2', url: pgServer.url }),
  };
});

describe('the shared inbox on Postgres', () => {
  it('keeps a read mark per member: one marks read, the other still sees it unread', async () => {
    await empty();
    const store = new PostgresMessageStore({ db, place: 'replica-1' });
    const added = await store.add(
      ['one', 'two', 'three'].map((text, i) => ({ message: msg({ key: `r${i}`, text, at: T0 + i }), wins: false })),
      0,
    );
    await store.add([{ message: msg({ key: 'b1', agentId: 'agent-b', contact: '15550109999' }), wins: false }], 0);
    // Nobody has read anything: each member sees every inbound message unread.
    for (const who of ['alice', 'bob']) {
      expect(await store.unreadOf('agent-a', '15550102000', who)).toBe(3);
      expect(await store.unreadByAgent(who)).toEqual(
        new Map([
          ['agent-a', 3],
          ['agent-b', 1],
        ]),
      );
    }
    expect(await store.markRead('agent-a', '15550102000', undefined, 'alice')).toBe(true);
    expect(await store.unreadOf('agent-a', '15550102000', 'alice')).toBe(0);
    expect(await store.unreadOf('agent-a', '15550102000', 'bob')).toBe(3);
    expect(await store.unreadByAgent('alice')).toEqual(new Map([['agent-b', 1]]));
    expect((await store.contacts({ reader: 'alice' })).map((c) => [c.contact, c.unread])).toEqual([
      ['15550109999', 1],
      ['15550102000', 0],
    ]);
    expect((await store.contacts({ reader: 'bob' })).map((c) => [c.contact, c.unread])).toEqual([
      ['15550109999', 1],
      ['15550102000', 3],
    ]);
    // Bob reads up to the second message: the third stays unread for him.
    await store.markRead('agent-a', '15550102000', added[1]!.message.seq, 'bob');
    expect(await store.unreadOf('agent-a', '15550102000', 'bob')).toBe(1);
    // A new message is unread for both.
    await store.add([{ message: msg({ key: 'r9', text: 'four', at: T0 + 9 }), wins: false }], 0);
    expect(await store.unreadOf('agent-a', '15550102000', 'alice')).toBe(1);
    expect(await store.unreadOf('agent-a', '15550102000', 'bob')).toBe(2);
    // The conversation's own mark (no member: the hub's own notices) moved with the reads: someone read it.
    expect(await store.unreadOf('agent-a', '15550102000')).toBe(1);
    // A deleted conversation takes its read marks with it.
    await store.remove({ agentId: 'agent-a', contact: '15550102000' }, T0 + 100);
    expect((await sql<{ n: string }>`select count(*) as n from hub_message_reads`.execute(db)).rows[0]!.n).toBe('0');
  });

  it("keeps each data folder's own settings apart, and the shared ones once", async () => {
    await empty();
    const one = new PostgresMessageStore({ db, place: 'replica-1' });
    const two = new PostgresMessageStore({ db, place: 'replica-2' });
    await one.setMeta('retention_days', '30');
    await one.setMeta('send_log_offset', '100', true);
    await two.setMeta('send_log_offset', '7', true);
    expect(await two.meta('retention_days')).toBe('30');
    expect(await one.meta('send_log_offset', true)).toBe('100');
    expect((await two.metas()).get('send_log_offset')).toBe('7');
    expect((await one.metas()).get('send_log_offset')).toBe('100');
  });

  it('a message taken by two replicas at once is stored once, and seqs are seen in commit order', async () => {
    await empty();
    const one = new PostgresMessageStore({ db, place: 'replica-1' });
    const two = new PostgresMessageStore({ db, place: 'replica-2' });
    const batch = Array.from({ length: 50 }, (_, i) => ({
      message: msg({ key: `m${i}`, text: `message ${i}`, at: T0 + i }),
      wins: false,
    }));
    const [a, b] = await Promise.all([one.add(batch, 0), two.add([...batch].reverse(), 0)]);
    expect(a.length + b.length).toBe(50);
    const stored = await one.after(0, 100);
    expect(stored.map((m) => m.key).sort()).toEqual(batch.map((x) => x.message.key).sort());
    expect((await one.contacts({}))[0]!.count).toBe(50);
    expect(await one.unreadOf('agent-a', '15550102000')).toBe(50);
  });

  it('search: a word in more messages than the index is read for gives the newest page, as a rare one does', async () => {
    await empty();
    const store = new PostgresMessageStore({ db, place: 'replica-1' });
    const list = Array.from({ length: 1_200 }, (_, i) => ({
      message: msg({ key: `c${i}`, text: i === 7 ? 'a common rarity' : `a common word ${i}`, at: T0 + i }),
      wins: false,
    }));
    await store.add(list, 0);
    const common = await store.search({ text: 'comm', limit: 20 });
    expect(common.messages.map((h) => h.message.key)).toEqual(Array.from({ length: 20 }, (_, i) => `c${1_199 - i}`));
    expect(common.messages[0]!.ranges).toEqual([[2, 8]]);
    expect((await store.search({ text: 'rarit', limit: 20 })).messages.map((h) => h.message.key)).toEqual(['c7']);
    expect((await store.search({ text: 'common', agentIds: ['agent-b'], limit: 20 })).messages).toEqual([]);
  });

  it('an unreachable database is the store saying so, without the URL', async () => {
    const gone = openHubDatabase(`postgres://postgres:hunter2@127.0.0.1:1/postgres`);
    const store = new PostgresMessageStore({ db: gone, place: 'replica-1' });
    const err = await store.contacts({}).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ name: 'MessageStoreError', kind: 'unavailable' });
    expect((err as Error).message).not.toContain('hunter2');
    await gone.destroy();
  });

  it.each([
    ['the pool', undefined],
    ['its own connection', 'url'],
  ])(
    'a batch the database refuses (%s) leaves nothing of it, not its setting, and the next writes go on',
    async (_, own) => {
      await empty();
      const store = new PostgresMessageStore({ db, place: 'replica-1', ...(own ? { url: pgServer.url } : {}) });
      // Postgres's text holds no NUL: the second message is refused, and the first with it.
      await expect(
        store.add(
          [
            { message: msg({ key: 'ok1', text: 'fine' }), wins: false },
            { message: msg({ key: 'bad', text: 'nul \u0000 here' }), wins: false },
          ],
          0,
          { key: 'log_until', value: '500', local: true },
        ),
      ).rejects.toThrow();
      expect(await store.find('agent-a', 'ok1')).toBeNull();
      expect(await store.meta('log_until', true)).toBeNull();
      // The connection is not left inside the failed transaction: what follows is written.
      for (let i = 0; i < 12; i++)
        await store.add([{ message: msg({ key: `n${i}`, text: 'next', at: T0 + i }), wins: false }], 0);
      expect((await store.after(0, 100)).map((m) => m.key)).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`));
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(12);
      await store.close();
    },
  );
});
