// Messages are kept in the database, not derived from the tunnel's log: they outlive its segments,
// retention is the setting's alone and counts from when a message was received, order and read marks
// follow receive order (never the sender's timestamp), a deleted conversation never comes back, and
// the receiver's acknowledgement never waits for the database.
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Messages, messageBodies, type Message } from '../../../../src-main/core/messages';
import { systemClock } from '../../../../src-main/core/ports';
import { EventLog } from '../../../../src-main/core/tunnel';
import { DAY, delivery, T0 } from './fixtures';

let dir: string;
let now: number;
const open: Messages[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'messages-kept-'));
  now = T0;
});
afterEach(async () => {
  for (const m of open.splice(0)) await m.close();
  await rm(dir, { recursive: true, force: true });
});

async function app(deliveries: Parameters<Messages['open']>[0] = []): Promise<Messages> {
  const m = new Messages({ dataDir: dir, now: () => now });
  await m.open(deliveries);
  open.push(m);
  return m;
}

async function closeAll(): Promise<void> {
  for (const m of open.splice(0)) await m.close();
}

const texts = async (m: Messages, contact: string, agentId = 'agent-a') =>
  (await m.thread(agentId, contact, { limit: 100 })).messages.map((x) => x.text);

describe('kept, not derived', () => {
  it('outlives the tunnel log: its segments removed, the inbox is the same after a restart', async () => {
    const tunnelDir = path.join(dir, 'tunnel');
    const log = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await log.open();
    const m = await app(messageBodies(log));
    for (let i = 0; i < 3; i++) {
      const d = delivery({ id: `w${i}`, from: '15550102000', text: `kept ${i}`, receivedAt: T0 + i });
      await log.appendDelivery(d);
      m.takeDelivery(d);
    }
    await m.flush();
    await log.close();
    await closeAll();
    await rm(path.join(tunnelDir, 'deliveries'), { recursive: true, force: true });

    const empty = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await empty.open();
    const again = await app(messageBodies(empty));
    expect(await texts(again, '15550102000')).toEqual(['kept 0', 'kept 1', 'kept 2']);
    expect(await again.unread('agent-a', '15550102000')).toBe(3);
    await empty.close();
  });

  it('is a file of its own, 0600, in a 0700 folder', async () => {
    const m = await app();
    m.takeDelivery(delivery({ id: 'p1', from: '15550102000', text: 'private', receivedAt: T0 }));
    await m.flush();
    expect((await stat(m.file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(m.file))).mode & 0o777).toBe(0o700);
  });

  it('keeps messages for the retention setting, counted from when they were received', async () => {
    const m = await app();
    m.takeDelivery(delivery({ id: 'old', from: '15550102000', text: 'old', receivedAt: T0 }));
    // Written by a sender whose clock is a year behind: received now, so it is kept.
    m.takeDelivery(
      delivery({ id: 'late', from: '15550102000', text: 'behind', receivedAt: T0 + 50 * DAY, eventAt: T0 - 365 * DAY }),
    );
    await m.flush();
    now = T0 + 60 * DAY;
    await m.setRetentionDays(30);
    expect(await texts(m, '15550102000')).toEqual(['behind']);
    expect(await m.unread('agent-a', '15550102000')).toBe(1);
    await m.setRetentionDays(200);
    now = T0 + 89 * DAY;
    await closeAll();
    expect(await texts(await app(), '15550102000')).toEqual(['behind']);
  });

  it('the receiver path only queues: the database is written on a later turn', async () => {
    const m = await app();
    const seen: Message[] = [];
    m.on('message', (x) => seen.push(x));
    m.takeDelivery(delivery({ id: 'q1', from: '15550102000', text: 'queued', receivedAt: T0 }));
    expect(await m.message('agent-a', 'q1')).toBeNull();
    expect(seen).toEqual([]);
    await new Promise((r) => setImmediate(r));
    await m.flush();
    expect((await m.message('agent-a', 'q1'))?.text).toBe('queued');
    expect(seen.map((x) => x.text)).toEqual(['queued']);
  });
});

describe('receive order', () => {
  it('a message dated 30 days ahead is ordered, deleted and retained by when it was received', async () => {
    const m = await app();
    m.takeDelivery(
      delivery({ id: 'future', from: '15550102000', text: 'from the future', receivedAt: T0, eventAt: T0 + 30 * DAY }),
    );
    m.takeDelivery(delivery({ id: 'real', from: '15550103000', text: 'a real one', receivedAt: T0 + 1000 }));
    await m.flush();
    // The latest received leads the list; the future timestamp is kept as data only.
    const contacts = await m.contacts();
    expect(contacts.map((c) => c.contact)).toEqual(['15550103000', '15550102000']);
    expect(contacts[1]!.last.eventAt).toBe(T0 + 30 * DAY);
    expect(contacts[1]!.last.at).toBe(T0);

    now = T0 + 2000;
    await m.delete('agent-a', '15550102000');
    expect(await texts(m, '15550102000')).toEqual([]);

    m.takeDelivery(
      delivery({ id: 'future2', from: '15550104000', text: 'ahead', receivedAt: T0 + 3000, eventAt: T0 + 400 * DAY }),
    );
    await m.flush();
    now = T0 + 100 * DAY;
    await m.compact();
    expect(await texts(m, '15550104000')).toEqual([]);
  });

  it('read marks go by receive order: a real new message after a +30-day one is unread', async () => {
    const m = await app();
    m.takeDelivery(delivery({ id: 'f', from: '15550102000', text: 'ahead', receivedAt: T0, eventAt: T0 + 30 * DAY }));
    await m.flush();
    await m.markRead('agent-a', '15550102000');
    expect(await m.unread('agent-a', '15550102000')).toBe(0);
    m.takeDelivery(delivery({ id: 'n', from: '15550102000', text: 'new', receivedAt: T0 + 60_000 }));
    await m.flush();
    expect(await m.unread('agent-a', '15550102000')).toBe(1);
    expect((await m.contacts())[0]!.unread).toBe(1);
    // Read up to what the window showed: a message received after it stays unread.
    const shown = (await m.thread('agent-a', '15550102000', { limit: 10 })).messages.at(-1)!.seq;
    m.takeDelivery(delivery({ id: 'n2', from: '15550102000', text: 'newer', receivedAt: T0 + 70_000 }));
    await m.flush();
    await m.markRead('agent-a', '15550102000', shown);
    expect(await m.unread('agent-a', '15550102000')).toBe(1);
  });

  it('a deleted conversation does not come back when the contact writes again', async () => {
    const tunnelDir = path.join(dir, 'tunnel');
    const log = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await log.open();
    const m = await app(messageBodies(log));
    const first = delivery({ id: 'in1', from: '15550102000', text: 'hello', receivedAt: T0 });
    await log.appendDelivery(first);
    m.takeDelivery(first);
    await m.flush();
    await m.sendLog.append({
      at: T0 + 1000,
      teamId: 't1',
      agentId: 'agent-a',
      to: '+15550102000',
      kind: 'text',
      text: 'the deleted reply',
      via: 'messages',
      messageId: 'out1',
      status: 'sent',
    });
    await m.takeSend();
    expect(await texts(m, '15550102000')).toEqual(['hello', 'the deleted reply']);
    now = T0 + 2000;
    await m.delete('agent-a', '15550102000');

    // The phone's echo of the reply arrives late, the contact writes again, the log is read again.
    const echo = delivery({
      id: 'out1',
      from: '15550100000',
      to: '15550102000',
      fromMe: true,
      text: 'the deleted reply',
      receivedAt: T0 + 3000,
    });
    const again = delivery({ id: 'in2', from: '15550102000', text: 'are you there?', receivedAt: T0 + 4000 });
    for (const d of [echo, again]) {
      await log.appendDelivery(d);
      m.takeDelivery(d);
    }
    await m.flush();
    await m.refresh(messageBodies(log));
    expect(await texts(m, '15550102000')).toEqual(['are you there?']);
    expect(await m.unread('agent-a', '15550102000')).toBe(1);
    await log.close();
    await closeAll();
    expect(await texts(await app(), '15550102000')).toEqual(['are you there?']);
  });
});

describe('the first start after the upgrade', () => {
  it("imports the send log, the log's deliveries, names, read marks, deletions and retention", async () => {
    const tunnelDir = path.join(dir, 'tunnel');
    const log = new EventLog({ dataDir: tunnelDir, clock: systemClock });
    await log.open();
    const ds = [
      delivery({ id: 'a', from: '15550102000', text: 'read one', receivedAt: T0 - 3 * DAY }),
      delivery({ id: 'b', from: '15550102000', text: 'unread one', receivedAt: T0 - 2 * DAY }),
      delivery({ id: 'c', from: '15550103000', text: 'deleted one', receivedAt: T0 - 2 * DAY }),
      delivery({ id: 'd', from: '15550104000', text: 'too old', receivedAt: T0 - 40 * DAY }),
    ];
    for (const d of ds) await log.appendDelivery(d);
    const msgDir = path.join(dir, 'messages');
    await import('node:fs/promises').then((fs) => fs.mkdir(msgDir, { recursive: true }));
    await writeFile(
      path.join(msgDir, 'state.json'),
      JSON.stringify({
        version: 1,
        retentionDays: 30,
        read: { 'agent-a': { '15550102000': T0 - 3 * DAY } },
        names: { '15550102000': 'Ada' },
        tombstones: [{ agentId: 'agent-a', contact: '15550103000', upTo: T0 - DAY }],
      }),
    );
    await writeFile(
      path.join(msgDir, 'sent.jsonl'),
      `${JSON.stringify({
        id: 's1',
        at: T0 - DAY,
        teamId: 't1',
        agentId: 'agent-a',
        to: '+15550102000',
        kind: 'text',
        text: 'a reply',
        via: 'cli',
        messageId: 'wamid-s1',
        status: 'sent',
      })}\n`,
    );
    const m = await app(messageBodies(log));
    expect(m.retentionDays()).toBe(30);
    await m.loaded;
    expect(m.name('15550102000')).toBe('Ada');
    expect(await texts(m, '15550102000')).toEqual(['read one', 'unread one', 'a reply']);
    expect(await texts(m, '15550103000')).toEqual([]);
    expect(await texts(m, '15550104000')).toEqual([]);
    expect(await m.unread('agent-a', '15550102000')).toBe(1);
    // The state file's names and marks live in the database now; the file is gone.
    expect(await readdir(msgDir)).not.toContain('state.json');
    await log.close();
    await closeAll();
    // A second start imports nothing again (the send log is not read twice).
    const again = await app([]);
    expect(await texts(again, '15550102000')).toEqual(['read one', 'unread one', 'a reply']);
  });
});
