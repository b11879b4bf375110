import { afterEach, describe, expect, it } from 'vitest';
import { appendFile, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EventLog } from '../../../../src-main/core/tunnel/log';
import { createIdGenerator } from '../../../../src-main/core/tunnel/ids';
import type { ForwardAttempt, StoredDelivery } from '../../../../src-main/core/tunnel/types';
import { FakeClock, tempDir } from './helpers';
import { silentLogger, type Logger } from '../../../../src-main/core/ports';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(bounds?: ConstructorParameters<typeof EventLog>[0]['bounds'], logger?: Logger) {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  const clock = new FakeClock(1_750_000_000_000);
  const newId = createIdGenerator(clock);
  const make = () => new EventLog({ dataDir: t.dir, clock, bounds, ...(logger ? { logger } : {}) });
  return { dir: t.dir, clock, newId, make };
}

/** Appends `n` deliveries 10 ms apart, `after` each one is stored; their ids. */
async function appendMany(
  s: Awaited<ReturnType<typeof setup>>,
  log: EventLog,
  n: number,
  after: (id: string, i: number) => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = s.newId();
    ids.push(id);
    await log.appendDelivery(delivery(id, 'x', s.clock.now()));
    await after(id, i);
    await s.clock.advance(10);
  }
  return ids;
}

/** A fresh log, opened. */
async function openLog() {
  const s = await setup();
  const log = s.make();
  await log.open();
  return { s, log };
}

function delivery(id: string, agentId: string, receivedAt: number, opts: Partial<StoredDelivery> = {}): StoredDelivery {
  const body = Buffer.from(
    JSON.stringify({
      event: 'message.received',
      from: '1555',
      message: { id: `m-${id}`, type: 'text', text: `hello ${id}` },
    }),
  );
  return {
    kind: 'delivery',
    id,
    agentId,
    receivedAt,
    method: 'POST',
    path: `/hooks/${agentId}`,
    headers: { 'content-type': 'application/json' },
    bodyBase64: body.toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: ['ok'] },
    summary: { event: 'message.received', from: '1555', messageId: `m-${id}`, type: 'text' },
    forward: true,
    ...opts,
  };
}

const attempt = (id: string, deliveryId: string, at: number, status: number | null): ForwardAttempt => ({
  kind: 'attempt',
  id,
  deliveryId,
  at,
  url: 'http://127.0.0.1:1/x',
  status,
  error: status === 200 ? null : 'down',
  durationMs: 1,
  responseBody: null,
});

describe('EventLog', () => {
  it('survives a restart with deliveries, attempts and pending state', async () => {
    const { s, log } = await openLog();
    const a = s.newId();
    const b = s.newId();
    await log.appendDelivery(delivery(a, 'x', s.clock.now()));
    await log.appendDelivery(delivery(b, 'x', s.clock.now()));
    await log.appendAttempt(attempt(s.newId(), a, s.clock.now(), 200));
    await log.appendAttempt(attempt(s.newId(), b, s.clock.now(), null));
    await log.close();
    const again = s.make();
    await again.open();
    expect(again.size).toBe(2);
    expect(again.get(a)!.forwardState).toBe('delivered');
    expect(again.get(b)!.forwardState).toBe('pending');
    expect(again.pending().map((d) => d.id)).toEqual([b]);
    expect(again.get(a)!.attempts).toHaveLength(1);
    await again.close();
  });

  it('ignores and truncates a torn last line', async () => {
    const { s, log } = await openLog();
    const a = s.newId();
    await log.appendDelivery(delivery(a, 'x', s.clock.now()));
    await log.close();
    const [file] = log.segmentFiles();
    const sizeGood = (await stat(file!)).size;
    await appendFile(file!, '{"kind":"delivery","id":"01TORN","agentId":"x","rece');
    const again = s.make();
    await again.open();
    expect(again.size).toBe(1);
    expect((await stat(file!)).size).toBe(sizeGood);
    // Appending after the cut gives whole lines.
    const b = s.newId();
    await again.appendDelivery(delivery(b, 'x', s.clock.now()));
    await again.close();
    const lines = (await readFile(file!, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([a, b]);
  });

  it('skips an unreadable line in the middle', async () => {
    const { s, log } = await openLog();
    await log.appendDelivery(delivery(s.newId(), 'x', s.clock.now()));
    await log.close();
    await appendFile(log.segmentFiles()[0]!, 'not json at all\n{"kind":"delivery"}\n');
    const again = s.make();
    await again.open();
    expect(again.size).toBe(1);
    await again.close();
  });

  it('drops the oldest segments past the count bound, carrying pending deliveries forward', async () => {
    const s = await setup({ maxDeliveries: 10, segmentDeliveries: 3 });
    const log = s.make();
    await log.open();
    // Everything but the very first delivery is delivered.
    const ids = await appendMany(s, log, 30, async (id, i) => {
      if (i > 0) await log.appendAttempt(attempt(s.newId(), id, s.clock.now(), 200));
    });
    await log.maintain();
    expect(log.size).toBeLessThanOrEqual(10 + 3);
    expect(log.has(ids[0]!)).toBe(true); // pending: carried forward
    expect(log.has(ids[1]!)).toBe(false); // delivered, old: dropped
    expect(log.has(ids[29]!)).toBe(true);
    const files = (await readdir(join(s.dir, 'deliveries'))).length;
    expect(files).toBeLessThanOrEqual(6);
    await log.close();
    const again = s.make();
    await again.open();
    expect(again.has(ids[0]!)).toBe(true);
    expect(again.pending().map((d) => d.id)).toEqual([ids[0]]);
    expect(again.size).toBe(log.size);
    await again.close();
  });

  it('a delivery carried forward keeps its record and its attempts once each, live and after a restart', async () => {
    const s = await setup({ maxDeliveries: 4, segmentDeliveries: 2 });
    const log = s.make();
    await log.open();
    const stuck = s.newId();
    const original = delivery(stuck, 'x', s.clock.now());
    await log.appendDelivery(original);
    await log.appendAttempt(attempt(s.newId(), stuck, s.clock.now() + 1, 503));
    await log.appendAttempt(attempt(s.newId(), stuck, s.clock.now() + 2, null));
    const before = log.get(stuck)!;
    expect(before.attempts.map((a) => a.status)).toEqual([503, null]);
    // Enough delivered traffic to carry `stuck` forward several times.
    for (let i = 0; i < 20; i++) {
      const id = s.newId();
      await log.appendDelivery(delivery(id, 'x', s.clock.now()));
      await log.appendAttempt(attempt(s.newId(), id, s.clock.now(), 200));
      await s.clock.advance(10);
      await log.maintain();
    }
    const live = log.get(stuck)!;
    expect(live).toEqual(before);
    expect(log.list({ limit: 1000 }).find((d) => d.id === stuck)).toMatchObject({
      attempts: 2,
      lastStatus: null,
      forwardState: 'pending',
    });
    await log.close();
    const again = s.make();
    await again.open();
    expect(again.get(stuck)).toEqual(before);
    expect(again.pending().map((d) => d.id)).toEqual([stuck]);
    expect(again.pending()[0]).toEqual(original);
    await again.close();
  });

  it('an attempt written before the next one is read back whole and in order (multi-byte text), live, carried forward and after a restart', async () => {
    const s = await setup({ maxDeliveries: 4, segmentDeliveries: 2 });
    const log = s.make();
    await log.open();
    const stuck = s.newId();
    await log.appendDelivery(delivery(stuck, 'x', s.clock.now()));
    const first = { ...attempt(s.newId(), stuck, s.clock.now() + 1, 503), responseBody: 'überlastet – später ✓' };
    await log.appendAttempt(first);
    // Written (and synced) before the second attempt is taken.
    await log.syncNow();
    expect(log.get(stuck)!.attempts).toEqual([first]);
    const second = attempt(s.newId(), stuck, s.clock.now() + 2, null);
    await log.appendAttempt(second);
    await log.syncNow();
    const before = log.get(stuck)!;
    expect(before.attempts).toEqual([first, second]);
    for (let i = 0; i < 10; i++) {
      const id = s.newId();
      await log.appendDelivery(delivery(id, 'x', s.clock.now()));
      await log.appendAttempt(attempt(s.newId(), id, s.clock.now(), 200));
      await s.clock.advance(10);
      await log.maintain();
    }
    expect(log.get(stuck)).toEqual(before);
    await log.close();
    const again = s.make();
    await again.open();
    expect(again.get(stuck)).toEqual(before);
    await again.close();
  });

  it('pending deliveries over the bounds are kept where they are, not carried from segment to segment', async () => {
    const warnings: string[] = [];
    const s = await setup(
      { maxDeliveries: 10, segmentDeliveries: 3 },
      { ...silentLogger, warn: (m: string) => void warnings.push(m) },
    );
    const log = s.make();
    await log.open();
    // Nothing is forwarded (the local app is down): every delivery stays pending.
    const ids = await appendMany(s, log, 30, () => log.maintain());
    // The segments and the records in them (a segment's zero padding ends its records).
    const files = async () =>
      Promise.all(log.segmentFiles().map(async (f) => ({ f, records: (await readFile(f, 'utf8')).split('\0')[0] })));
    const settled = await files();
    for (let i = 0; i < 5; i++) await log.maintain();
    expect(await files()).toEqual(settled);
    expect(log.pending().map((d) => d.id)).toEqual(ids);
    expect(warnings.filter((w) => w.includes('wait to be forwarded'))).toHaveLength(1);
    // Once they are forwarded, the oldest segments go.
    for (const id of ids) await log.appendAttempt(attempt(s.newId(), id, s.clock.now(), 200));
    await log.appendDelivery(delivery(s.newId(), 'x', s.clock.now()));
    // (A maintenance the roll started may be running: this one then returns at once.)
    for (let i = 0; i < 20 && log.size > 10; i++) {
      await new Promise((r) => setTimeout(r, 10));
      await log.maintain();
    }
    expect(log.size).toBeLessThanOrEqual(10);
    await log.close();
  });

  it('a carried delivery whose old segment stayed (the drop failed) is read once, with its attempts once', async () => {
    const s = await setup({ maxDeliveries: 2, segmentDeliveries: 2 });
    const make = () =>
      new EventLog({
        dataDir: s.dir,
        clock: s.clock,
        bounds: { maxDeliveries: 2, segmentDeliveries: 2 },
        beforeDrop: () => Promise.reject(new Error('seen file unwritable')),
      });
    const log = make();
    await log.open();
    const stuck = s.newId();
    await log.appendDelivery(delivery(stuck, 'x', s.clock.now()));
    await log.appendAttempt(attempt(s.newId(), stuck, s.clock.now(), 503));
    for (let i = 0; i < 3; i++) await log.appendDelivery(delivery(s.newId(), 'x', s.clock.now(), { forward: false }));
    await log.maintain();
    const files = (await readdir(join(s.dir, 'deliveries'))).sort();
    const first = await readFile(join(s.dir, 'deliveries', files[0]!), 'utf8');
    const newest = await readFile(join(s.dir, 'deliveries', files.at(-1)!), 'utf8');
    // Carried forward, and the old segment kept: both hold the delivery and its attempt.
    expect(first.includes(stuck) && newest.includes(stuck)).toBe(true);
    const before = log.get(stuck)!;
    expect(before.attempts).toHaveLength(1);
    await log.close();
    const again = make();
    await again.open();
    expect(again.get(stuck)).toEqual(before);
    expect(again.size).toBe(log.size);
    await again.close();
  });

  it('counts received, verified, duplicate, rejected, forwarded and failed deliveries; a duplicate is verified, never rejected', async () => {
    const { s, log } = await openLog();
    const ids = Array.from({ length: 6 }, () => s.newId());
    await log.appendDelivery(delivery(ids[0]!, 'x', s.clock.now()));
    await log.appendAttempt(attempt(s.newId(), ids[0]!, s.clock.now(), 200)); // forwarded
    await log.appendDelivery(delivery(ids[1]!, 'x', s.clock.now()));
    await log.appendAttempt(attempt(s.newId(), ids[1]!, s.clock.now(), 500)); // failed, still pending
    await log.appendDelivery(delivery(ids[2]!, 'x', s.clock.now()));
    await log.appendAttempt(attempt(s.newId(), ids[2]!, s.clock.now(), 400)); // failed: refused by the app
    await log.appendDelivery(delivery(ids[3]!, 'x', s.clock.now())); // pending, never tried
    await log.appendDelivery(
      delivery(ids[4]!, 'x', s.clock.now(), {
        forward: false,
        verdict: { ok: false, reason: 'duplicate', scheme: 'v1', steps: [] },
      }),
    );
    await log.appendAttempt({ ...attempt(s.newId(), ids[4]!, s.clock.now(), 200), replay: 'as-received' }); // a replay is no forward
    await log.appendDelivery(
      delivery(ids[5]!, 'x', s.clock.now(), {
        forward: false,
        verdict: { ok: false, reason: 'signature-mismatch', scheme: 'v1', steps: [] },
      }),
    );
    expect(log.counts()).toEqual({ received: 6, verified: 5, duplicates: 1, rejected: 1, forwarded: 1, failed: 2 });
    await log.close();
  });

  it('drops segments past the age bound', async () => {
    const s = await setup({ maxAgeMs: 1_000, segmentDeliveries: 2 });
    const log = s.make();
    await log.open();
    const old = s.newId();
    await log.appendDelivery(delivery(old, 'x', s.clock.now(), { forward: false }));
    await log.appendDelivery(delivery(s.newId(), 'x', s.clock.now(), { forward: false }));
    await s.clock.advance(5_000);
    const fresh = s.newId();
    await log.appendDelivery(delivery(fresh, 'x', s.clock.now(), { forward: false }));
    await log.maintain();
    expect(log.has(old)).toBe(false);
    expect(log.has(fresh)).toBe(true);
    await log.close();
  });

  it('drops segments past the byte bound', async () => {
    const s = await setup({ maxBytes: 4_000, segmentBytes: 1_000 });
    const log = s.make();
    await log.open();
    for (let i = 0; i < 40; i++) await log.appendDelivery(delivery(s.newId(), 'x', s.clock.now(), { forward: false }));
    await log.maintain();
    const onDisk = async () => {
      let bytes = 0;
      for (const f of log.segmentFiles()) bytes += (await stat(f)).size;
      return bytes;
    };
    // While open, the current segment is zero-filled at most one segment ahead of its records.
    expect(await onDisk()).toBeLessThanOrEqual(4_000 + 1_000 + 1_000);
    expect(log.size).toBeLessThan(40);
    await log.close();
    // Closed, the padding is cut.
    expect(await onDisk()).toBeLessThanOrEqual(4_000 + 1_000);
  });

  it('answers queries newest first with filters and a cursor', async () => {
    const { s, log } = await openLog();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = s.newId();
      ids.push(id);
      const bad = i % 3 === 0;
      await log.appendDelivery(
        delivery(id, i % 2 === 0 ? 'even' : 'odd', s.clock.now(), {
          verdict: bad
            ? { ok: false, reason: 'signature-mismatch', scheme: 'v1', steps: [] }
            : { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
          summary: {
            event: 'message.received',
            from: i === 4 ? '1999' : '1555',
            messageId: `m-${id}`,
            type: i === 5 ? 'image' : 'text',
          },
        }),
      );
      await s.clock.advance(1_000);
    }
    expect(log.list().map((d) => d.id)).toEqual([...ids].reverse());
    expect(log.list({ agentId: 'even' }).map((d) => d.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(log.list({ verdict: 'rejected' }).map((d) => d.id)).toEqual([ids[3], ids[0]]);
    expect(log.list({ verdict: 'verified' })).toHaveLength(4);
    expect(log.list({ from: '+1999' }).map((d) => d.id)).toEqual([ids[4]]);
    expect(log.list({ type: 'image' }).map((d) => d.id)).toEqual([ids[5]]);
    expect(log.list({ text: `HELLO ${ids[2]!.toLowerCase()}` }).map((d) => d.id)).toEqual([ids[2]]);
    expect(log.list({ limit: 2 }).map((d) => d.id)).toEqual([ids[5], ids[4]]);
    expect(log.list({ limit: 2, before: ids[4] }).map((d) => d.id)).toEqual([ids[3], ids[2]]);
    const t0 = 1_750_000_000_000;
    expect(log.list({ since: t0 + 2_000, until: t0 + 4_000 }).map((d) => d.id)).toEqual([ids[3], ids[2]]);
    await log.close();
  });

  it('group-commits concurrent appends, all durable and all readable after restart', async () => {
    const { s, log } = await openLog();
    const ids = Array.from({ length: 200 }, () => s.newId());
    await Promise.all(ids.map((id) => log.appendDelivery(delivery(id, 'x', s.clock.now()))));
    await log.close();
    const again = s.make();
    await again.open();
    expect(again.list({ limit: 1000 }).map((d) => d.id)).toEqual([...ids].reverse());
    await again.close();
  });
});
