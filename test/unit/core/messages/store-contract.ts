// The message store's contract: what every adapter of the port (core/messages/store.ts) answers the same
// way, run over each of them (SQLite here, store-contract.test.ts; Postgres in
// test/integration/hub/message-store.test.ts). Each case opens a fresh, empty store.
import { afterEach, describe, expect, it } from 'vitest';
import type { Message, MessageStore } from '../../../../src-main/core/messages/store';
import { DAY, T0 } from './fixtures';

export interface StoreUnderTest {
  store: MessageStore;
  /** Another store on the same database (another process, another replica). */
  another(): Promise<MessageStore>;
}

type Over = Partial<Message> & { key: string };

/** An inbound text message of agent-a from 15550102000 (override any field). */
export function msg(o: Over): Message {
  return {
    agentId: 'agent-a',
    contact: '15550102000',
    seq: 0,
    at: T0,
    direction: 'in',
    fromMe: false,
    type: 'text',
    text: '',
    messageId: o.key,
    ...o,
  };
}

const put = (s: MessageStore, list: Message[], cutoff = 0) =>
  s.add(
    list.map((message) => ({ message, wins: false })),
    cutoff,
  );

const texts = async (s: MessageStore, contact = '15550102000', agentId = 'agent-a') =>
  (await s.thread(agentId, contact, { limit: Infinity })).messages.map((m) => m.text);

export function describeMessageStore(adapter: string, open: () => Promise<StoreUnderTest>): void {
  describe(`the message store (${adapter})`, () => {
    const opened: MessageStore[] = [];
    const fresh = async (): Promise<StoreUnderTest> => {
      const t = await open();
      opened.push(t.store);
      return {
        store: t.store,
        another: async () => {
          const s = await t.another();
          opened.push(s);
          return s;
        },
      };
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it('stores in the order given, each once by its key; skips keys deleted before and messages before the cutoff', async () => {
      const { store } = await fresh();
      const added = await put(store, [
        msg({ key: 'a1', text: 'one' }),
        msg({ key: 'a2', text: 'two', at: T0 + 1 }),
        msg({ key: 'a3', text: 'mine', direction: 'out', fromMe: true, at: T0 + 2 }),
      ]);
      expect(added.map((a) => a.message.key)).toEqual(['a1', 'a2', 'a3']);
      expect(added.map((a) => a.unread)).toEqual([1, 2, 2]);
      const seqs = added.map((a) => a.message.seq);
      expect(seqs[0]).toBeGreaterThan(0);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      // The same keys again (a delivery retried, or taken by two processes): nothing new.
      expect(await put(store, [msg({ key: 'a1', text: 'one again' }), msg({ key: 'a2', text: 'two' })])).toEqual([]);
      // The same key twice in one batch: stored once.
      const once = await put(store, [msg({ key: 'b1' }), msg({ key: 'b1' })]);
      expect(once.length).toBe(1);
      // Received before the cutoff: skipped.
      expect(await put(store, [msg({ key: 'old', at: T0 - 2 * DAY })], T0 - DAY)).toEqual([]);
      expect(await texts(store)).toEqual(['one', 'two', 'mine', '']);
      expect(await store.has('agent-a', 'a1')).toBe(true);
      expect(await store.has('agent-b', 'a1')).toBe(false);
      expect(await store.newestSeq()).toBe(once[0]!.message.seq);
      expect(once[0]!.message.seq).toBeGreaterThan(Math.max(...seqs));
      // Deleted: its key is remembered, so it never comes back.
      await store.remove({ agentId: 'agent-a', contact: '15550102000' }, T0 + 10);
      expect(await put(store, [msg({ key: 'a1', text: 'one' }), msg({ key: 'c1', text: 'new' })])).toMatchObject([
        { message: { key: 'c1' } },
      ]);
      expect(await texts(store)).toEqual(['new']);
    });

    it("keeps every field of a message, and a send's record takes the place of the phone's echo of it", async () => {
      const { store } = await fresh();
      const full = msg({
        key: 'f1',
        type: 'document',
        text: 'the caption',
        eventAt: T0 - 5000,
        media: { url: 'https://m.example/f1', filename: 'report.pdf', mimeType: 'application/pdf', size: 1234 },
        deliveryId: 'dlv_1',
        simulated: true,
      });
      const [stored] = await put(store, [full]);
      expect(await store.find('agent-a', 'f1')).toEqual({ ...full, seq: stored!.message.seq });
      expect(await store.find('agent-a', 'nope')).toBeNull();
      // The phone's echo arrives first, then the send's record with the same key.
      const echo = msg({ key: 's1', direction: 'out', fromMe: true, text: 'on my way', at: T0 + 1 });
      const [e] = await put(store, [echo]);
      const record = msg({
        key: 's1',
        direction: 'out',
        fromMe: false,
        text: 'on my way',
        at: T0 + 2,
        status: 'sent',
        via: 'messages',
        teamId: 't1',
        sendId: 'send-1',
        clientRef: 'ref-1',
        error: { code: 'RATE', message: 'slow down' } as unknown as Message['error'],
      });
      const [won] = await store.add([{ message: record, wins: true }], 0);
      expect(won!.message).toEqual({ ...record, seq: e!.message.seq, at: echo.at });
      // A second record does not take the send's place.
      expect(await store.add([{ message: { ...record, status: 'failed' }, wins: true }], 0)).toEqual([]);
      expect((await store.find('agent-a', 's1'))!.status).toBe('sent');
      expect((await store.sent('agent-a', 10)).map((m) => m.key)).toEqual(['s1']);
      expect(await store.sent('agent-b', 10)).toEqual([]);
    });

    it('opens a thread on its latest messages, oldest first, and pages back by seq or by time', async () => {
      const { store } = await fresh();
      const added = await put(
        store,
        Array.from({ length: 7 }, (_, i) => msg({ key: `t${i}`, text: `m${i}`, at: T0 + i * 1000 })),
      );
      await put(store, [msg({ key: 'other', contact: '15550109999', text: 'elsewhere' })]);
      const first = await store.thread('agent-a', '15550102000', { limit: 3 });
      expect(first.messages.map((m) => m.text)).toEqual(['m4', 'm5', 'm6']);
      expect(first.more).toBe(true);
      const back = await store.thread('agent-a', '15550102000', { limit: 3, beforeSeq: first.messages[0]!.seq });
      expect(back.messages.map((m) => m.text)).toEqual(['m1', 'm2', 'm3']);
      const last = await store.thread('agent-a', '15550102000', { limit: 3, beforeSeq: back.messages[0]!.seq });
      expect([last.messages.map((m) => m.text), last.more]).toEqual([['m0'], false]);
      const byTime = await store.thread('agent-a', '15550102000', { limit: 10, before: T0 + 2000 });
      expect(byTime.messages.map((m) => m.text)).toEqual(['m0', 'm1']);
      expect((await store.thread('agent-a', '15550102000', { limit: Infinity })).messages.length).toBe(7);
      expect(await store.thread('agent-a', '15550100000', { limit: 5 })).toEqual({ messages: [], more: false });
      // after(): what was stored after a seq, in receive order.
      const from = added[4]!.message.seq;
      expect((await store.after(from, 10)).map((m) => m.key)).toEqual(['t5', 't6', 'other']);
      expect((await store.after(from, 1)).map((m) => m.key)).toEqual(['t5']);
    });

    it('lists conversations most recent first, with counts, unread and names, per agent and limited', async () => {
      const { store } = await fresh();
      await put(store, [
        msg({ key: 'l1', contact: '15550101111', text: 'first', at: T0 }),
        msg({ key: 'l2', contact: '15550102222', text: 'second', at: T0 + 1, agentId: 'agent-b' }),
        msg({ key: 'l3', contact: '15550101111', text: 'reply', at: T0 + 2, direction: 'out', fromMe: true }),
        msg({ key: 'l4', contact: '15550103333', text: 'third', at: T0 + 3 }),
      ]);
      await store.setName('15550101111', 'Ada');
      const all = await store.contacts({});
      expect(all.map((c) => [c.agentId, c.contact, c.count, c.unread, c.name ?? null, c.last.text])).toEqual([
        ['agent-a', '15550103333', 1, 1, null, 'third'],
        ['agent-a', '15550101111', 2, 1, 'Ada', 'reply'],
        ['agent-b', '15550102222', 1, 1, null, 'second'],
      ]);
      expect(all[1]!.lastAt).toBe(T0 + 2);
      expect((await store.contacts({ limit: 1 })).map((c) => c.contact)).toEqual(['15550103333']);
      expect((await store.contacts({ agentIds: ['agent-b'] })).map((c) => c.contact)).toEqual(['15550102222']);
      expect(await store.contacts({ agentIds: [] })).toEqual([]);
      // Searched: by local name, by number in any written form, by a word of its messages.
      expect((await store.contacts({ search: 'ada' })).map((c) => c.contact)).toEqual(['15550101111']);
      expect((await store.contacts({ search: '(555) 010-2222' })).map((c) => c.contact)).toEqual(['15550102222']);
      expect((await store.contacts({ search: 'thi' })).map((c) => c.contact)).toEqual(['15550103333']);
      expect(await store.contacts({ search: 'nothing-like-it' })).toEqual([]);
      expect((await store.names()).get('15550101111')).toBe('Ada');
      await store.setName('15550101111', 'Ada L.');
      expect((await store.names()).get('15550101111')).toBe('Ada L.');
      await store.setName('15550101111', null);
      expect((await store.names()).has('15550101111')).toBe(false);
    });

    it('counts unread inbound messages and marks a conversation read, all of it or up to a message', async () => {
      const { store } = await fresh();
      const added = await put(store, [
        msg({ key: 'u1', text: 'a' }),
        msg({ key: 'u2', text: 'b', at: T0 + 1 }),
        msg({ key: 'u3', text: 'c', at: T0 + 2 }),
        msg({ key: 'u4', contact: '15550109999', text: 'd', at: T0 + 3, agentId: 'agent-b' }),
      ]);
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(3);
      expect(
        await store.unreadOfEach([
          { agentId: 'agent-b', contact: '15550109999' },
          { agentId: 'agent-a', contact: '15550100000' },
          { agentId: 'agent-a', contact: '15550102000' },
        ]),
      ).toEqual([1, 0, 3]);
      expect(await store.unreadOfEach([])).toEqual([]);
      expect(await store.unreadByAgent()).toEqual(
        new Map([
          ['agent-a', 3],
          ['agent-b', 1],
        ]),
      );
      // Up to the second message: the third (received after it) stays unread.
      expect(await store.markRead('agent-a', '15550102000', added[1]!.message.seq)).toBe(true);
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(1);
      // A mark never goes back.
      await store.markRead('agent-a', '15550102000', added[0]!.message.seq);
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(1);
      expect(await store.markRead('agent-a', '15550102000')).toBe(true);
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(0);
      expect(await store.unreadByAgent()).toEqual(new Map([['agent-b', 1]]));
      // A message after the mark is unread; one sent is not.
      const [next] = await put(store, [msg({ key: 'u5', text: 'e', at: T0 + 4 })]);
      expect(next!.unread).toBe(1);
      await put(store, [msg({ key: 'u6', text: 'f', at: T0 + 5, direction: 'out', fromMe: true })]);
      expect(await store.unreadOf('agent-a', '15550102000')).toBe(1);
      expect((await store.contacts({ agentIds: ['agent-a'] }))[0]!.unread).toBe(1);
      expect(await store.markRead('agent-a', '15550100000')).toBe(false);
      expect(await store.unreadOf('agent-a', '15550100000')).toBe(0);
    });

    it('deletes a conversation, an agent or a contact everywhere, remembering their keys', async () => {
      const { store } = await fresh();
      await put(store, [
        msg({ key: 'd1', text: 'x', deliveryId: 'dlv_1' }),
        msg({ key: 'd2', text: 'y', contact: '15550109999', at: T0 + 1 }),
        msg({ key: 'd3', text: 'z', agentId: 'agent-b', at: T0 + 2, deliveryId: 'dlv_3' }),
        msg({ key: 'd4', text: 'w', agentId: 'agent-c', contact: '15550109999', at: T0 + 3 }),
      ]);
      await store.setName('15550102000', 'Ada');
      const one = await store.remove({ agentId: 'agent-a', contact: '15550102000' }, T0 + 10);
      expect(one).toEqual({
        count: 1,
        deliveryIds: ['dlv_1'],
        messageIds: ['d1'],
        conversations: [{ agentId: 'agent-a', contact: '15550102000' }],
      });
      // A conversation's deletion keeps the contact's name (it is the contact's, everywhere).
      expect((await store.names()).get('15550102000')).toBe('Ada');
      const contact = await store.remove({ contact: '15550109999' }, T0 + 10);
      expect(contact.count).toBe(2);
      expect(contact.conversations.map((c) => c.agentId).sort()).toEqual(['agent-a', 'agent-c']);
      const agent = await store.remove({ agentId: 'agent-b' }, T0 + 10);
      expect([agent.count, agent.deliveryIds]).toEqual([1, ['dlv_3']]);
      expect(await store.contacts({})).toEqual([]);
      expect(await store.unreadByAgent()).toEqual(new Map());
      expect((await store.search({ text: 'x', limit: 10 })).messages).toEqual([]);
      // A contact's data everywhere: its name too.
      await put(store, [msg({ key: 'n1', text: 'again' })]);
      await store.remove({ contact: '15550102000' }, T0 + 10);
      expect((await store.names()).has('15550102000')).toBe(false);
      expect(await put(store, [msg({ key: 'd3', agentId: 'agent-b' }), msg({ key: 'n1' })])).toEqual([]);
    });

    it('retention removes what was received before the cutoff, recounts what stays and forgets old keys', async () => {
      const { store } = await fresh();
      await put(store, [
        msg({ key: 'r1', text: 'old', at: T0 }),
        msg({ key: 'r2', text: 'new', at: T0 + 2 * DAY }),
        msg({ key: 'r3', contact: '15550109999', text: 'gone', at: T0 + 1 }),
      ]);
      await store.remove({ agentId: 'agent-a', contact: '15550108888' }, T0); // nothing
      await put(store, [msg({ key: 'f1', contact: '15550107777', text: 'deleted', at: T0 + 2 })]);
      await store.remove({ agentId: 'agent-a', contact: '15550107777' }, T0 + 3);
      const gone = await store.removeOlderThan(T0 + DAY);
      expect(gone.count).toBe(2);
      expect(gone.conversations.map((c) => c.contact).sort()).toEqual(['15550102000', '15550109999']);
      const list = await store.contacts({});
      expect(list.map((c) => [c.contact, c.count, c.unread])).toEqual([['15550102000', 1, 1]]);
      expect(await store.unreadByAgent()).toEqual(new Map([['agent-a', 1]]));
      // The deleted key was remembered before the cutoff: forgotten with it (it may come back, if it is new).
      expect((await put(store, [msg({ key: 'f1', contact: '15550107777', at: T0 + 3 * DAY })])).length).toBe(1);
    });

    it('finds numbers in any written form, and words (prefixes too) in text and file names, with ranges', async () => {
      const { store } = await fresh();
      await put(store, [
        msg({ key: 'x1', contact: '15550107777', text: 'Where is my parcel?' }),
        msg({
          key: 'x2',
          contact: '15550108888',
          agentId: 'agent-b',
          type: 'image',
          text: 'the broken Hinge',
          media: { url: 'https://m.example/x2', filename: 'hinge.png' },
          at: T0 + 1,
        }),
        msg({
          key: 'x3',
          contact: '15550109999',
          type: 'document',
          text: '',
          media: { url: 'https://m.example/x3', filename: 'invoice-2026.pdf' },
          at: T0 + 2,
        }),
        msg({ key: 'x4', contact: '15550109999', text: 'Café crème, déjà vu', at: T0 + 3 }),
      ]);
      await store.setName('15550109999', 'Grace Hopper');
      for (const q of ['+1 555 010 7777', '15550107777', '(555) 010-7777', '555.010.7777', '010-7777']) {
        const r = await store.search({ text: q, limit: 10 });
        expect(
          r.contacts.map((h) => [h.contact.contact, h.field]),
          q,
        ).toEqual([['15550107777', 'contact']]);
        const [a, b] = r.contacts[0]!.ranges[0]!;
        expect('15550107777'.slice(a, b), q).toBe(q.replace(/\D/g, ''));
      }
      const hits = async (text: string, agentIds?: string[]) =>
        (await store.search({ text, limit: 10, ...(agentIds ? { agentIds } : {}) })).messages.map((h) => [
          h.message.key,
          h.field,
          h.ranges,
        ]);
      expect(await hits('parc')).toEqual([['x1', 'text', [[12, 18]]]]);
      expect(await hits('parce')).toEqual([['x1', 'text', [[12, 18]]]]);
      expect(await hits('parcx')).toEqual([]);
      expect(await hits('PARCEL')).toEqual([['x1', 'text', [[12, 18]]]]);
      expect(await hits('Hïnge')).toEqual([['x2', 'text', [[11, 16]]]]);
      expect(await hits('hinge', ['agent-a'])).toEqual([]);
      expect(await hits('invoice')).toEqual([['x3', 'filename', [[0, 7]]]]);
      expect(await hits('cafe deja')).toEqual([
        [
          'x4',
          'text',
          [
            [0, 4],
            [12, 16],
          ],
        ],
      ]);
      expect(await hits('creme parcel')).toEqual([]);
      // Operators and quotes are words, not syntax.
      expect(await hits('"parcel" OR NOT *')).toEqual([]);
      expect(await hits('   ')).toEqual([]);
      const grace = await store.search({ text: 'hopper', limit: 10 });
      expect(grace.contacts.map((h) => [h.contact.contact, h.field, h.ranges])).toEqual([
        ['15550109999', 'name', [[6, 12]]],
      ]);
    });

    it('search: newest first, whole words before prefixes, at most the limit', async () => {
      const { store } = await fresh();
      await put(
        store,
        Array.from({ length: 6 }, (_, i) =>
          msg({ key: `p${i}`, text: i % 2 === 0 ? 'order' : 'ordering', at: T0 + i }),
        ),
      );
      const r = await store.search({ text: 'order', limit: 4 });
      // The whole words (p4, p2, p0), then the newest prefix to fill the page (p5).
      expect(r.messages.map((h) => h.message.key)).toEqual(['p5', 'p4', 'p2', 'p0']);
      const all = await store.search({ text: 'order', limit: 10 });
      expect(all.messages.map((h) => h.message.key)).toEqual(['p5', 'p4', 'p3', 'p2', 'p1', 'p0']);
    });

    it('keeps settings; and another store on the same database sees changes through the change mark', async () => {
      const t = await fresh();
      const { store } = t;
      expect(await store.meta('retention_days')).toBeNull();
      await store.setMeta('retention_days', '30');
      await store.setMeta('retention_days', '45');
      await store.setMeta('log_until', '100', true);
      expect(await store.meta('retention_days')).toBe('45');
      expect(await store.meta('log_until', true)).toBe('100');
      expect(await store.metas()).toEqual(
        new Map([
          ['retention_days', '45'],
          ['log_until', '100'],
        ]),
      );
      const other = await t.another();
      const mark = await store.changeMark();
      // Its own writes do not move its mark; another's do.
      await put(store, [msg({ key: 'cm1', text: 'mine' })]);
      expect(await store.changeMark()).toBe(mark);
      await put(other, [msg({ key: 'cm2', text: 'theirs', at: T0 + 1 })]);
      expect(await store.changeMark()).not.toBe(mark);
      expect((await store.after(0, 10)).map((m) => m.key)).toEqual(['cm1', 'cm2']);
      expect(await other.meta('retention_days')).toBe('45');
      expect(await store.bytesOnDisk()).toBeGreaterThan(0);
    });

    it("writes a batch's setting with its messages, and alone when no message is new", async () => {
      const { store } = await fresh();
      const one = { message: msg({ key: 'mt1', text: 'one' }), wins: false };
      const added = await store.add([one], 0, { key: 'log_until', value: '200', local: true });
      expect(added.map((a) => [a.message.key, a.unread])).toEqual([['mt1', 1]]);
      expect(await store.meta('log_until', true)).toBe('200');
      // A repeat stores nothing; the setting still moves (also when every message is before the cutoff).
      expect(await store.add([one], 0, { key: 'log_until', value: '300', local: true })).toEqual([]);
      expect(await store.meta('log_until', true)).toBe('300');
      expect(await store.add([one], T0 + DAY, { key: 'log_until', value: '400', local: true })).toEqual([]);
      expect(await store.meta('log_until', true)).toBe('400');
      expect(await texts(store)).toEqual(['one']);
    });
  });
}
