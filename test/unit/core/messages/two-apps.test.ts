// Two apps on one data folder (the desktop app and `serve`): each change (read marks, local names,
// deletions, retention) is a write to the one message database, so neither undoes the other's; and
// each app takes the other's changes at its next refresh (the app's watch), its screens told by a
// 'changed' event.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages } from '../../../../src-main/core/messages';
import { SqliteMessageStore } from '../../../../src-main/core/messages/sqlite-store';
import { deliveryBody, type StoredDelivery } from '../../../../src-main/core/tunnel';

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);

function delivery(n: number, from: string, words: string): StoredDelivery {
  const body = { event: 'message.received', from, message: { id: `m${n}`, type: 'text', text: words, fromMe: false } };
  return {
    kind: 'delivery',
    id: `dlv_${n}`,
    agentId: 'agent-a',
    receivedAt: T0 + n * 1000,
    method: 'POST',
    path: '/hooks/agent-a',
    headers: { 'content-type': 'application/json' },
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: { event: 'message.received', from, messageId: `m${n}`, type: 'text' },
    forward: false,
  };
}

const log = [
  delivery(1, '15550102000', 'first contact'),
  delivery(2, '15550103000', 'second contact'),
  delivery(3, '15550104000', 'third contact'),
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cc-messages-two-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function app(): Promise<{ m: Messages; changed: Array<string | null> }> {
  const m = new Messages({ dataDir: dir, now: () => T0 + 60_000 });
  await m.open(log.map(deliveryBody));
  const changed: Array<string | null> = [];
  m.on('changed', (e) => changed.push(e.agentId));
  await m.loaded;
  return { m, changed };
}

const unread = async (m: Messages) => Object.fromEntries((await m.contacts()).map((c) => [c.contact, c.unread]));

describe('Messages state: two apps on one data folder', () => {
  it("neither undoes the other's change, and each takes the other's at its next refresh", async () => {
    const desktop = await app();
    const serve = await app();
    await desktop.m.setName('15550102000', 'Ada');
    await desktop.m.markRead('agent-a', '15550102000');
    // `serve` read the state before both: its own changes keep them.
    await serve.m.setName('15550103000', 'Grace');
    await serve.m.delete('agent-a', '15550104000');
    const third = await app();
    expect(third.m.name('15550102000')).toBe('Ada');
    expect(third.m.name('15550103000')).toBe('Grace');
    expect(await unread(third.m)).toEqual({ '15550102000': 0, '15550103000': 1 });
    await third.m.close();

    // The desktop app has not looked yet; at its refresh it follows, and says so once.
    expect(desktop.m.name('15550103000')).toBeUndefined();
    expect(desktop.m.index.unreadByAgent(['agent-a']).get('agent-a')).toBe(2);
    const before = desktop.changed.length;
    await desktop.m.refresh();
    expect(desktop.m.name('15550103000')).toBe('Grace');
    expect(desktop.m.index.unreadByAgent(['agent-a']).get('agent-a')).toBe(1);
    expect((await desktop.m.contacts()).map((c) => c.contact).sort()).toEqual(['15550102000', '15550103000']);
    expect(desktop.changed.slice(before)).toEqual([null]);
    await desktop.m.refresh();
    expect(desktop.changed.slice(before)).toEqual([null]);

    // And `serve` sees the desktop app's read mark and name.
    await serve.m.refresh();
    expect(serve.m.name('15550102000')).toBe('Ada');
    expect(await unread(serve.m)).toEqual({ '15550102000': 0, '15550103000': 1 });
    expect(await serve.m.unread('agent-a', '15550102000')).toBe(0);
    await desktop.m.close();
    await serve.m.close();
  });

  it('answers the first list before it reads the counts and names, and announces a change made meanwhile', async () => {
    const first = await app();
    await first.m.setName('15550102000', 'Ada');
    await first.m.close();
    const other = await app();

    // The names kept at hand are read only when the test lets them: the first list must not wait for them.
    const store = SqliteMessageStore.open({ file: first.m.file });
    let letNamesBeRead = () => {};
    const namesMayBeRead = new Promise<void>((resolve) => (letNamesBeRead = resolve));
    const readNames = store.names.bind(store);
    store.names = async () => {
      await namesMayBeRead;
      return readNames();
    };
    const m = new Messages({ dataDir: dir, now: () => T0 + 60_000, store });
    const changed: Array<string | null> = [];
    m.on('changed', (e) => changed.push(e.agentId));
    await m.open([]);
    // The list carries its own names and counts; the ones kept at hand come after it.
    const list = await m.contacts();
    expect(list.find((c) => c.contact === '15550102000')).toMatchObject({ name: 'Ada', unread: 1 });
    expect(m.name('15550102000')).toBeUndefined();
    // Another app changes a name before they are read: read as it is now, and announced.
    await other.m.setName('15550103000', 'Grace');
    letNamesBeRead();
    await m.loaded;
    expect(m.name('15550102000')).toBe('Ada');
    expect(m.name('15550103000')).toBe('Grace');
    expect(m.index.unreadByAgent(['agent-a']).get('agent-a')).toBe(3);
    expect(changed).toEqual([null]);
    await other.m.close();
    await m.close();
  });
});
