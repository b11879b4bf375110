// Search over every conversation (text, captions, file names, local names, numbers in any written
// form, with the ranges to highlight), export in three formats, deletion that leaves no copy of the
// text in any file of the data folder, and a damaged or locked database that says so and loses nothing.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages, MessageStoreError, messageBodies } from '../../../../src-main/core/messages';
import { systemClock } from '../../../../src-main/core/ports';
import { EventLog } from '../../../../src-main/core/tunnel';
import { filesHolding, phraseForms } from '../../../helpers/files-holding';
import { delivery, T0 } from './fixtures';

let dir: string;
const open: Messages[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'messages-search-'));
});
afterEach(async () => {
  for (const m of open.splice(0)) await m.close();
  await rm(dir, { recursive: true, force: true });
});

async function app(
  o: Partial<ConstructorParameters<typeof Messages>[0]> = {},
  ds: Parameters<Messages['open']>[0] = [],
) {
  const m = new Messages({ dataDir: dir, now: () => T0 + 60_000, ...o });
  await m.open(ds);
  open.push(m);
  return m;
}

async function filled(): Promise<Messages> {
  const m = await app();
  m.takeDelivery(delivery({ id: 'x1', from: '15550107777', text: 'Where is my parcel?', receivedAt: T0 }));
  m.takeDelivery(
    delivery({
      id: 'x2',
      from: '15550108888',
      type: 'image',
      caption: 'the broken Hinge',
      media: { url: 'https://m.example/x2', filename: 'hinge.png' },
      receivedAt: T0 + 1,
      agentId: 'agent-b',
    }),
  );
  m.takeDelivery(
    delivery({
      id: 'x3',
      from: '15550109999',
      type: 'document',
      text: '',
      media: { url: 'https://m.example/x3', filename: 'invoice-2026.pdf' },
      receivedAt: T0 + 2,
    }),
  );
  await m.flush();
  await m.setName('15550109999', 'Grace Hopper');
  return m;
}

describe('search', () => {
  it('finds a number in every written form', async () => {
    const m = await filled();
    for (const q of ['+1 555 010 7777', '15550107777', '(555) 010-7777', '555.010.7777', '+15550107777', '010-7777']) {
      const r = await m.search({ text: q, limit: 10 });
      expect(
        r.contacts.map((h) => h.contact.contact),
        q,
      ).toEqual(['15550107777']);
      const [a, b] = r.contacts[0]!.ranges[0]!;
      expect('15550107777'.slice(a, b), q).toBe(q.replace(/\D/g, ''));
    }
  });

  it('finds words in text, captions and file names across agents, with the ranges to highlight', async () => {
    const m = await filled();
    // A prefix longer than the prefix index's 4 characters: matched on the whole prefix.
    expect((await m.search({ text: 'parce', limit: 10 })).messages.map((h) => h.message.key)).toEqual(['x1']);
    expect((await m.search({ text: 'parcx', limit: 10 })).messages).toEqual([]);
    expect((await m.search({ text: 'Hïnge', limit: 10 })).messages.map((h) => h.message.key)).toEqual(['x2']);
    const parcel = await m.search({ text: 'parc', limit: 10 });
    expect(parcel.messages.map((h) => [h.message.key, h.field, h.ranges])).toEqual([['x1', 'text', [[12, 18]]]]);
    const hinge = await m.search({ text: 'hinge', limit: 10 });
    expect(hinge.messages.map((h) => [h.message.agentId, h.field, h.ranges])).toEqual([
      ['agent-b', 'text', [[11, 16]]],
    ]);
    const invoice = await m.search({ text: 'invoice', limit: 10 });
    expect(invoice.messages.map((h) => [h.message.key, h.field, h.ranges])).toEqual([['x3', 'filename', [[0, 7]]]]);
    // One agent only.
    expect((await m.search({ text: 'hinge', agentIds: ['agent-a'], limit: 10 })).messages).toEqual([]);
    // Local names.
    const grace = await m.search({ text: 'hopper', limit: 10 });
    expect(grace.contacts.map((h) => [h.contact.contact, h.field, h.ranges])).toEqual([
      ['15550109999', 'name', [[6, 12]]],
    ]);
    // The contact list's search is the same search.
    expect((await m.contacts({ search: 'parcel' })).map((c) => c.contact)).toEqual(['15550107777']);
    expect((await m.contacts({ search: '(555) 010-8888' })).map((c) => c.contact)).toEqual(['15550108888']);
    // Operators and quotes are words, not syntax.
    expect((await m.search({ text: '"parcel" OR NOT *', limit: 10 })).messages).toEqual([]);
  });
});

describe('export', () => {
  it('writes a conversation as JSON lines, CSV and plain text', async () => {
    const m = await app();
    m.takeDelivery(delivery({ id: 'e1', from: '15550102000', text: 'hi, "quoted", and\nnew line', receivedAt: T0 }));
    m.takeDelivery(delivery({ id: 'e2', from: '15550102000', text: '=cmd()', receivedAt: T0 + 1000 }));
    await m.flush();
    await m.setName('15550102000', 'Ada');
    const jsonl = await m.export('agent-a', '+15550102000', 'jsonl');
    const rows = jsonl.content
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; receivedAt: string; direction: string });
    expect(rows.map((r) => r.text)).toEqual(['hi, "quoted", and\nnew line', '=cmd()']);
    expect(rows[0]!.receivedAt).toBe(new Date(T0).toISOString());
    expect(jsonl.filename).toBe('messages-agent-a-15550102000.jsonl');
    const csv = await m.export('agent-a', '15550102000', 'csv');
    expect(csv.content.split('\r\n')[0]).toBe(
      'receivedAt,eventAt,direction,fromMe,type,text,filename,mediaUrl,status,messageId,simulated',
    );
    expect(csv.content).toContain('"hi, ""quoted"", and\nnew line"');
    expect(csv.content).toContain(",'=cmd(),");
    const text = await m.export('agent-a', '15550102000', 'text');
    expect(text.content).toContain('Ada (+15550102000): =cmd()');
    expect(text.content.split('\n')[0]).toBe('Conversation of agent-a with Ada (+15550102000)');
    expect(text.count).toBe(2);
  });
});

describe('deletion', () => {
  it.each([
    ['a conversation', (m: Messages) => m.delete('agent-a', '15550102000')],
    ["an agent's messages", (m: Messages) => m.delete('agent-a')],
    ["a contact's data", (m: Messages) => m.deleteContact('+15550102000')],
  ])('of %s leaves the planted text in no file of the data folder', async (_what, remove) => {
    const phrase = 'zebra-quartz planted phrase 8812';
    const tunnelDir = path.join(dir, 'tunnel');
    const log = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await log.open();
    const m = await app({ eraseDeliveries: async (ids) => void (await log.eraseBodies(ids)) }, messageBodies(log));
    let kept: string | undefined;
    // Enough other messages that the pages holding the planted ones are shared with kept ones.
    for (let i = 0; i < 300; i++) {
      const d = delivery({
        id: `k${i}`,
        from: '15550109000',
        agentId: 'agent-b',
        text: `kept message number ${i}`,
        receivedAt: T0 + i,
      });
      kept ??= d.id;
      await log.appendDelivery(d);
      m.takeDelivery(d);
    }
    const planted = delivery({ id: 'p1', from: '15550102000', text: `${phrase} inbound`, receivedAt: T0 + 500 });
    await log.appendDelivery(planted);
    m.takeDelivery(planted);
    await m.flush();
    await m.sendLog.append({
      at: T0 + 600,
      teamId: 't1',
      agentId: 'agent-a',
      to: '+15550102000',
      kind: 'text',
      text: `${phrase} outbound`,
      via: 'messages',
      messageId: 'p2',
      status: 'sent',
    });
    await m.takeSend();
    await m.setName('15550102000', 'Zebra Quartzfield');
    await log.syncNow();
    const needles = [...phraseForms(phrase), Buffer.from('Zebra Quartzfield')];
    expect((await filesHolding(dir, phraseForms(phrase))).length).toBeGreaterThan(0);

    await remove(m);
    await log.close();
    const holding = await filesHolding(dir, _what === "a contact's data" ? needles : phraseForms(phrase));
    expect(holding).toEqual([]);
    // Kept messages are still there, readable.
    expect((await m.thread('agent-b', '15550109000', { limit: 1 })).messages[0]!.text).toBe('kept message number 299');
    expect((await m.search({ text: 'zebra', limit: 10 })).messages).toEqual([]);
    // The tunnel log still lists the delivery (its verdict), with a blank body.
    const reader = new EventLog({ dataDir: tunnelDir, clock: systemClock, readOnly: true });
    await reader.open();
    expect(reader.has(planted.id)).toBe(true);
    expect(reader.body(planted.id)!.toString().trim()).toBe('');
    expect(reader.body(kept!)!.toString()).toContain('kept message number 0');
    await reader.close();
  });
});

describe('a damaged or locked database', () => {
  it('says so, changes nothing in the file, and the logs still hold what comes', async () => {
    const file = path.join(dir, 'messages', 'messages.db');
    await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(file), { recursive: true }));
    const junk = Buffer.alloc(8192, 0x41);
    await writeFile(file, junk);
    const m = await app();
    expect(m.problem()).toBeInstanceOf(MessageStoreError);
    expect((m.problem() as MessageStoreError).kind).toBe('corrupt');
    expect(m.problem()!.message).toContain(file);
    expect(m.problem()!.message).toContain('left as it is');
    await expect(m.contacts()).rejects.toThrow(/damaged/);
    // A delivery now is not lost: it is in the tunnel's log, and the file was not touched.
    m.takeDelivery(delivery({ id: 'c1', from: '15550102000', text: 'while damaged', receivedAt: T0 }));
    await m.flush();
    expect(await readFile(file)).toEqual(junk);
  });

  it('locked by another process: the write says so, the messages stay queued and are stored once it is free', async () => {
    const m = await app();
    m.takeDelivery(delivery({ id: 'l0', from: '15550102000', text: 'before', receivedAt: T0 }));
    await m.flush();
    const other = new Database(m.file);
    other.exec('PRAGMA busy_timeout = 0');
    other.exec('BEGIN EXCLUSIVE');
    m.takeDelivery(delivery({ id: 'l1', from: '15550102000', text: 'while locked', receivedAt: T0 + 1 }));
    await m.flush();
    await expect(m.markRead('agent-a', '15550102000')).rejects.toThrow(/locked by another process/);
    other.exec('ROLLBACK');
    other.close();
    await m.refresh();
    expect((await m.thread('agent-a', '15550102000', { limit: 10 })).messages.map((x) => x.text)).toEqual([
      'before',
      'while locked',
    ]);
  }, 20_000);

  it('a file of a newer version is refused, not changed', async () => {
    const m = await app();
    await m.close();
    open.splice(0);
    execFileSync(process.execPath, [
      '-e',
      `const D=require('libsql');const d=new D(${JSON.stringify(m.file)});d.exec('UPDATE schema_version SET version = 99');d.close()`,
    ]);
    const before = await readFile(m.file);
    const again = await app();
    expect(again.problem()?.message).toMatch(/newer version \(99\)/);
    expect(await readFile(m.file)).toEqual(before);
  });
});
