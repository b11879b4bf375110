// The messages imported at the first start from the log's bodies() (each body cut from its record, no
// record parsed) are the messages the live path stores from the same deliveries: the same
// contacts, counts, threads, duplicates once, fromMe as sent from the phone; and refused deliveries,
// other events and unreadable bodies are not messages either way.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages, messageBodies } from '../../../../src-main/core/messages';
import { systemClock } from '../../../../src-main/core/ports';
import { EventLog, type StoredDelivery } from '../../../../src-main/core/tunnel';

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);

let n = 0;
function stored(
  body: Record<string, unknown> | string,
  over: Partial<StoredDelivery> = {},
  agentId = 'agent-a',
): StoredDelivery {
  n++;
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const m = (typeof body === 'string' ? {} : (body.message ?? {})) as Record<string, unknown>;
  return {
    kind: 'delivery',
    id: `dlv_${String(n).padStart(4, '0')}`,
    agentId,
    receivedAt: T0 + n * 1000,
    method: 'POST',
    path: `/hooks/${agentId}`,
    headers: { 'content-type': 'application/json' },
    bodyBase64: Buffer.from(raw).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: {
      event: typeof body === 'string' ? 'message.received' : typeof body.event === 'string' ? body.event : null,
      from: typeof body === 'string' ? null : typeof body.from === 'string' ? body.from : null,
      messageId: typeof m.id === 'string' ? m.id : null,
      type: typeof m.type === 'string' ? m.type : null,
    },
    forward: false,
    ...over,
  };
}

const text = (id: string, from: string, words: string, extra: Record<string, unknown> = {}) => ({
  event: 'message.received',
  from,
  message: { id, type: 'text', text: words, fromMe: false, ...extra },
  timestamp: new Date(T0 + n * 1000).toISOString(),
});

/** Every kind of delivery the index must tell apart, in two agents. */
function deliveries(): StoredDelivery[] {
  return [
    stored(text('m1', '15550102000', 'hello, is my order on its way? ünïcödé ✓')),
    stored(text('m1', '15550102000', 'hello, is my order on its way? ünïcödé ✓')), // the service's retry
    stored(text('m2', '+15550103000', 'a second contact')),
    stored(text('m3', '15550102000', 'from the phone', { fromMe: true })),
    stored({
      event: 'message.received',
      from: '15550103000',
      message: { id: 'm4', type: 'image', text: '', caption: 'look at this' },
      media: { url: 'https://media.example/m4', filename: 'a.png', mimeType: 'image/png', size: 1234 },
    }),
    stored({
      event: 'message.received',
      from: '15550102000',
      message: { id: 'm5', type: 'document', text: 'the file', media: { url: 'https://x/m5', fileName: 'b.pdf' } },
    }),
    stored(text('m6', '120363000000000000@g.us', 'in a group')),
    stored(text('m7', '15550104000', 'refused'), {
      verdict: { ok: false, reason: 'signature-mismatch', scheme: 'v1', steps: [] },
    }),
    stored({ event: 'message.status', from: '15550102000', message: { id: 'm8' } }),
    stored('{not json'),
    stored(text('m9', '15550102000', 'simulated'), { simulated: true }),
    // A header named like the record's body field: the record is parsed instead of cut.
    stored(text('m10', '15550105000', 'odd header'), {
      headers: { 'content-type': 'application/json', bodyBase64: 'AAAA' },
    }),
    stored(text('m1', '15550102000', 'same id, other agent'), {}, 'agent-b'),
    stored(text('m11', '15550102000', 'other agent again'), {}, 'agent-b'),
  ];
}

describe('the messages imported from the log', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'messages-rebuild-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are the messages the live path stores from the same deliveries', async () => {
    const all = deliveries();
    const writer = new EventLog({ dataDir: path.join(dir, 'tunnel'), clock: systemClock });
    await writer.open();
    for (const d of all) await writer.appendDelivery(d);
    await writer.close();

    const now = () => T0 + 3600_000;
    const live = new Messages({ dataDir: path.join(dir, 'live'), now, readOnly: true });
    await live.open([]);
    for (const d of all) live.takeDelivery(d);
    await live.flush();

    const log = new EventLog({ dataDir: path.join(dir, 'tunnel'), clock: systemClock, readOnly: true });
    await log.open();
    // Every body cut from its record is the body as received (the odd header's too).
    for (const d of all) expect(log.body(d.id)?.toString('base64')).toBe(d.bodyBase64);
    const rebuilt = new Messages({ dataDir: path.join(dir, 'rebuilt'), now, readOnly: true });
    await rebuilt.open(messageBodies(log));

    const contacts = await rebuilt.contacts();
    expect(contacts).toEqual(await live.contacts());
    expect(contacts.map((c) => [c.agentId, c.contact, c.count, c.unread])).toEqual([
      ['agent-b', '15550102000', 2, 2],
      ['agent-a', '15550105000', 1, 1],
      ['agent-a', '15550102000', 4, 3],
      ['agent-a', '120363000000000000@g.us', 1, 1],
      ['agent-a', '15550103000', 2, 2],
    ]);
    for (const c of contacts) {
      const thread = await rebuilt.thread(c.agentId, c.contact, { limit: 100 });
      expect(thread).toEqual(await live.thread(c.agentId, c.contact, { limit: 100 }));
    }
    const ana = (await rebuilt.thread('agent-a', '15550102000', { limit: 100 })).messages;
    expect(ana.map((m) => [m.key, m.direction, m.fromMe, m.text, m.simulated ?? false])).toEqual([
      ['m1', 'in', false, 'hello, is my order on its way? ünïcödé ✓', false],
      ['m3', 'out', true, 'from the phone', false],
      ['m5', 'in', false, 'the file', false],
      ['m9', 'in', false, 'simulated', true],
    ]);
    expect(contacts.reduce((n, c) => n + c.count, 0)).toBe(10);
  });
});
