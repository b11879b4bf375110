// The message index and its owner: built from verified message.received deliveries and the send
// log; duplicates once; fromMe as sent from the phone; media at the top level or under message;
// unread counts and read marks; search; retention; deletions that really leave the send log and
// hide inbound messages (tombstones); a state file that cannot be read is set aside, never trusted.
import { mkdtemp, readFile, rm, writeFile, mkdir, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages, type SendRecord } from '../../../../src-main/core/messages';
import { MessageIndex } from '../../../../src-main/core/messages/message-index';
import { inboundOf } from '../../../../src-main/core/messages/inbound';
import { emptyState } from '../../../../src-main/core/messages/state';
import { deliveryBody, type DeliveryBody, type StoredDelivery } from '../../../../src-main/core/tunnel';

const DAY = 24 * 3600_000;
const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);

let n = 0;
function stored(body: Record<string, unknown>, over: Partial<StoredDelivery> = {}): StoredDelivery {
  n++;
  const raw = Buffer.from(JSON.stringify(body));
  const m = (body.message ?? {}) as Record<string, unknown>;
  return {
    kind: 'delivery',
    id: `d${n}`,
    agentId: 'a1',
    receivedAt: T0,
    method: 'POST',
    path: '/hooks/a1',
    headers: {},
    bodyBase64: raw.toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: {
      event: typeof body.event === 'string' ? body.event : null,
      from: typeof body.from === 'string' ? body.from : null,
      messageId: typeof m.id === 'string' ? m.id : null,
      type: typeof m.type === 'string' ? m.type : null,
    },
    forward: false,
    ...over,
  };
}

/** A delivery as the log's bodies() hands it over. */
function delivery(body: Record<string, unknown>, over: Partial<StoredDelivery> = {}): DeliveryBody {
  return deliveryBody(stored(body, over));
}

function inboundStored(
  id: string,
  from: string,
  text: string,
  at: number,
  extra: Record<string, unknown> = {},
): StoredDelivery {
  return stored({
    event: 'message.received',
    from,
    message: { id, type: 'text', text, fromMe: false, ...extra },
    timestamp: new Date(at).toISOString(),
  });
}

function inbound(...args: Parameters<typeof inboundStored>): DeliveryBody {
  return deliveryBody(inboundStored(...args));
}

function send(over: Partial<SendRecord>): SendRecord {
  return {
    id: `s${++n}`,
    at: T0,
    teamId: 't1',
    agentId: 'a1',
    to: '+15550102000',
    kind: 'text',
    text: 'our answer',
    via: 'console',
    status: 'sent',
    ...over,
  };
}

describe('inboundOf', () => {
  it('reads media at the top level and under message; fromMe is sent from the phone', () => {
    const top = inboundOf(
      delivery({
        event: 'message.received',
        from: '15550102000',
        message: { id: 'm1', type: 'image', text: '', caption: 'look' },
        media: { url: 'https://x/m1', filename: 'a.png', mimeType: 'image/png' },
        timestamp: new Date(T0).toISOString(),
      }),
    );
    expect(top).toMatchObject({
      contact: '15550102000',
      type: 'image',
      text: 'look',
      media: { url: 'https://x/m1', filename: 'a.png', mimeType: 'image/png' },
      fromMe: false,
    });
    const nested = inboundOf(
      delivery({
        event: 'message.received',
        from: '+15550102000',
        message: { id: 'm2', type: 'document', text: 'the file', media: { url: 'https://x/m2', fileName: 'b.pdf' } },
      }),
    );
    expect(nested).toMatchObject({ contact: '15550102000', media: { url: 'https://x/m2', filename: 'b.pdf' }, at: T0 });
    const mine = inboundOf(
      delivery({
        event: 'message.received',
        from: '15550102000',
        message: { id: 'm3', type: 'text', text: 'from the phone', fromMe: true },
      }),
    );
    expect(mine).toMatchObject({ fromMe: true, contact: '15550102000' });
  });

  it('is null for refused deliveries, other events and unreadable bodies', () => {
    expect(inboundOf(inbound('m1', '15550102000', 'x', T0))).not.toBeNull();
    expect(inboundOf({ ...inbound('m1', '15550102000', 'x', T0), ok: false })).toBeNull();
    expect(inboundOf(delivery({ event: 'message.status', from: '1555', message: { id: 'x' } }))).toBeNull();
    expect(inboundOf({ ...inbound('m1', '15550102000', 'x', T0), body: Buffer.from('{not json') })).toBeNull();
  });
});

describe('MessageIndex', () => {
  const make = (now = T0 + 60_000) => new MessageIndex(emptyState(), () => now);

  it('shows a duplicate delivery (same message.id) once, and threads in and out oldest first', () => {
    const ix = make();
    expect(ix.addDelivery(inbound('m1', '15550102000', 'hello', T0))).not.toBeNull();
    expect(ix.addDelivery(inbound('m1', '15550102000', 'hello', T0))).toBeNull();
    ix.addSend(send({ at: T0 + 2000, messageId: 'w1' }));
    ix.addDelivery(inbound('m2', '15550102000', 'thanks', T0 + 1000));
    const t = ix.thread('a1', '+15550102000', { limit: 10 });
    expect(t.messages.map((m) => [m.direction, m.text])).toEqual([
      ['in', 'hello'],
      ['in', 'thanks'],
      ['out', 'our answer'],
    ]);
    expect(ix.contacts()).toMatchObject([{ contact: '15550102000', unread: 2, count: 3 }]);
  });

  it("lists an agent's sends from this install over every contact, newest first, bounded; not inbound or phone messages", () => {
    const ix = make(T0 + 10 * DAY);
    ix.addSend(send({ at: T0, to: '+15550102000', text: 'first', messageId: 'w1', clientRef: 'send-1' }));
    ix.addSend(send({ at: T0 + 2000, to: '+15550103000', text: 'second', via: 'cli', messageId: 'w2' }));
    ix.addSend(
      send({
        at: T0 + 1000,
        to: '+15550102000',
        text: 'failed',
        status: undefined,
        error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'x' },
      }),
    );
    ix.addSend(send({ at: T0 + 3000, agentId: 'a2', text: 'other agent', messageId: 'w3' }));
    ix.addDelivery(inbound('m1', '15550102000', 'hello', T0 + 500));
    ix.addDelivery(
      delivery({
        event: 'message.received',
        from: '15550102000',
        message: { id: 'p1', type: 'text', text: 'typed on the phone', fromMe: true },
        timestamp: new Date(T0 + 600).toISOString(),
      }),
    );
    expect(ix.sent('a1', 10).map((m) => [m.text, m.via, m.status, m.clientRef])).toEqual([
      ['second', 'cli', 'sent', undefined],
      ['failed', 'console', 'failed', undefined],
      ['first', 'console', 'sent', 'send-1'],
    ]);
    expect(ix.sent('a1', 2).map((m) => m.text)).toEqual(['second', 'failed']);
    expect(ix.sent('nobody', 10)).toEqual([]);
    // A deleted conversation's sends leave the list.
    ix.forget({ agentId: 'a1', contact: '15550102000', upTo: T0 + 5000 });
    expect(ix.sent('a1', 10).map((m) => m.text)).toEqual(['second']);
  });

  it('a fromMe echo of a recorded send is that send, whichever comes first', () => {
    const ix = make();
    ix.addDelivery(
      delivery({
        event: 'message.received',
        from: '15550102000',
        message: { id: 'w1', type: 'text', text: 'our answer', fromMe: true },
        timestamp: new Date(T0).toISOString(),
      }),
    );
    ix.addSend(send({ messageId: 'w1' }));
    const [only, ...rest] = ix.thread('a1', '15550102000', { limit: 10 }).messages;
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ direction: 'out', status: 'sent', via: 'console' });
    ix.addDelivery(
      delivery({
        event: 'message.received',
        from: '15550102000',
        message: { id: 'w1', type: 'text', text: 'our answer', fromMe: true },
      }),
    );
    expect(ix.size).toBe(1);
  });

  it('pages a thread with before/limit and says when there is more', () => {
    const ix = make(T0 + DAY);
    for (let i = 0; i < 5; i++) ix.addDelivery(inbound(`m${i}`, '15550102000', `t${i}`, T0 + i * 1000));
    const last2 = ix.thread('a1', '15550102000', { limit: 2 });
    expect(last2.messages.map((m) => m.text)).toEqual(['t3', 't4']);
    expect(last2.more).toBe(true);
    const before = ix.thread('a1', '15550102000', { limit: 10, before: last2.messages[0]!.at });
    expect(before.messages.map((m) => m.text)).toEqual(['t0', 't1', 't2']);
    expect(before.more).toBe(false);
  });

  it('searches numbers, local names and text; sorts contacts by last activity', () => {
    const state = emptyState();
    state.names['15550103000'] = 'Bea Lopez';
    const ix = new MessageIndex(state, () => T0 + DAY);
    ix.addDelivery(inbound('m1', '15550102000', 'my order 1234 is late', T0));
    ix.addDelivery(inbound('m2', '15550103000', 'hi', T0 + 5000));
    expect(ix.contacts().map((c) => c.contact)).toEqual(['15550103000', '15550102000']);
    expect(ix.contacts({ search: 'ORDER 1234' }).map((c) => c.contact)).toEqual(['15550102000']);
    expect(ix.contacts({ search: 'bea' }).map((c) => c.contact)).toEqual(['15550103000']);
    expect(ix.contacts({ search: '+1555010300' }).map((c) => c.contact)).toEqual(['15550103000']);
    expect(ix.contacts({ agentIds: ['other'] })).toEqual([]);
  });

  it('hides messages past retention', () => {
    const ix = make(T0 + 91 * DAY);
    expect(ix.addDelivery(inbound('old', '15550102000', 'old', T0))).toBeNull();
    expect(ix.addDelivery(inbound('new', '15550102000', 'new', T0 + 90 * DAY))).not.toBeNull();
    expect(ix.thread('a1', '15550102000', { limit: 10 }).messages.map((m) => m.text)).toEqual(['new']);
  });
});

describe('Messages (with its files)', () => {
  let dir: string;
  let now: number;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'messages-'));
    now = T0 + 60_000;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const open = async (deliveries: DeliveryBody[], readOnly = false) => {
    const m = new Messages({ dataDir: dir, now: () => now, readOnly });
    await m.open(deliveries);
    return m;
  };

  it('rebuilds the same index from the logs at every start; read marks and names survive', async () => {
    const deliveries = [inbound('m1', '15550102000', 'hello', T0), inbound('m2', '15550102000', 'again', T0 + 1)];
    const a = await open(deliveries);
    await a.sendLog.append({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550102000',
      kind: 'text',
      text: 'hi back',
      via: 'messages',
      at: T0 + 2,
      messageId: 'w9',
      status: 'sent',
    });
    await a.takeSend();
    expect(a.contacts()[0]).toMatchObject({ unread: 2, count: 3 });
    await a.markRead('a1', '+15550102000');
    await a.setName('+15550102000', 'Ana');
    const b = await open(deliveries);
    expect(b.contacts()).toMatchObject([{ contact: '15550102000', name: 'Ana', unread: 0, count: 3 }]);
    expect(b.thread('a1', '15550102000', { limit: 10 }).messages.map((m) => m.text)).toEqual([
      'hello',
      'again',
      'hi back',
    ]);
  });

  it('announces a new message once, and a state change', async () => {
    const m = await open([]);
    const seen: string[] = [];
    m.on('message', (x) => seen.push(`message:${x.text}`));
    m.on('changed', (x) => seen.push(`changed:${x.agentId}`));
    m.takeDelivery(inboundStored('m1', '15550102000', 'hello', T0));
    m.takeDelivery(inboundStored('m1', '15550102000', 'hello', T0));
    await m.markRead('a1', '15550102000');
    expect(seen).toEqual(['message:hello', 'changed:a1']);
  });

  it('deleting a conversation removes its sends from the send log and hides its inbound messages across restarts', async () => {
    const deliveries = [
      inbound('m1', '15550102000', 'private words', T0),
      inbound('m2', '15550103000', 'other contact', T0),
    ];
    const a = await open(deliveries);
    await a.sendLog.append({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550102000',
      kind: 'text',
      text: 'our private answer',
      via: 'console',
      at: T0 + 5,
      status: 'sent',
      messageId: 'w1',
    });
    await a.sendLog.append({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550103000',
      kind: 'text',
      text: 'kept answer',
      via: 'console',
      at: T0 + 5,
      status: 'sent',
      messageId: 'w2',
    });
    await a.takeSend();
    await a.delete('a1', '+15550102000');
    expect(await readFile(a.sendLog.file, 'utf8')).not.toContain('our private answer');
    expect(a.contacts().map((c) => c.contact)).toEqual(['15550103000']);
    // A message written after the deletion starts the conversation again.
    now += 1000;
    const b = await open([...deliveries, inbound('m3', '15550102000', 'new one', now)]);
    expect(b.thread('a1', '15550102000', { limit: 10 }).messages.map((x) => x.text)).toEqual(['new one']);
    expect(
      b
        .contacts()
        .map((c) => c.contact)
        .sort(),
    ).toEqual(['15550102000', '15550103000']);
    // The state file holds no message text.
    expect(await readFile(path.join(dir, 'messages', 'state.json'), 'utf8')).not.toMatch(
      /private|answer|other contact/,
    );
  });

  it('deleting every message of an agent leaves the other agents alone', async () => {
    const a = await open([
      inbound('m1', '15550102000', 'x', T0),
      { ...inbound('m2', '15550102000', 'y', T0), agentId: 'a2' },
    ]);
    await a.delete('a1');
    expect(a.contacts().map((c) => c.agentId)).toEqual(['a2']);
  });

  it('retention: sends past it leave the send log at open, tombstones past it are dropped', async () => {
    const a = await open([]);
    await a.sendLog.append({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550102000',
      kind: 'text',
      text: 'ancient',
      via: 'cli',
      at: T0 - 10 * DAY,
      status: 'sent',
    });
    await a.sendLog.append({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550102000',
      kind: 'text',
      text: 'recent',
      via: 'cli',
      at: T0,
      status: 'sent',
    });
    await a.delete('a1', '+15550109999');
    await a.setRetentionDays(5);
    expect((await a.sendLog.read()).map((r) => r.text)).toEqual(['recent']);
    now += 6 * DAY;
    const b = await open([]);
    expect(JSON.parse(await readFile(path.join(dir, 'messages', 'state.json'), 'utf8')).tombstones).toEqual([]);
    expect(b.retentionDays()).toBe(5);
    expect(await b.sendLog.read()).toEqual([]);
  });

  it('a corrupt state file is set aside and a fresh state used; the messages are rebuilt from the logs', async () => {
    await mkdir(path.join(dir, 'messages'), { recursive: true });
    await writeFile(path.join(dir, 'messages', 'state.json'), '{"version":1,"retentionDays":');
    const m = await open([inbound('m1', '15550102000', 'hello', T0)]);
    expect(m.contacts()).toMatchObject([{ unread: 1 }]);
    expect(await readdir(path.join(dir, 'messages'))).toContain('state.json.corrupt');
  });

  it('read-only: reads, never writes', async () => {
    const m = await open([inbound('m1', '15550102000', 'hello', T0)], true);
    await expect(m.markRead('a1', '15550102000')).rejects.toThrow(/read-only/);
    await expect(readdir(path.join(dir, 'messages'))).rejects.toThrow();
  });
});
