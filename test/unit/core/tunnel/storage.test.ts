// Storage under failure, readers and permissions: a failed or short write never leaves torn bytes a
// later record follows; a failed cut or sync rolls to a fresh segment; the receiver answers 503 while
// storage fails and acknowledges again once a record is durable; a reader never cuts anything; the
// data is 0600 / 0700 wherever it lives.
import { writeSync } from 'node:fs';
import { appendFile, chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../../src-main/core/signature';
import { Tunnel } from '../../../../src-main/core/tunnel';
import type { Transport } from '../../../../src-main/core/tunnel/transport';
import { createIdGenerator } from '../../../../src-main/core/tunnel/ids';
import { EventLog, type LogIO } from '../../../../src-main/core/tunnel/log';
import type { StoredDelivery } from '../../../../src-main/core/tunnel/types';
import { FakeClock, rawRequest, tempDir, waitFor } from './helpers';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const NOW = 1_750_000_000_000;

async function dir(): Promise<string> {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

function delivery(id: string, text = 'x'.repeat(200)): StoredDelivery {
  const body = Buffer.from(
    JSON.stringify({ event: 'message.received', from: '1555', message: { id: `m-${id}`, type: 'text', text } }),
  );
  return {
    kind: 'delivery',
    id,
    agentId: 'a1',
    receivedAt: NOW,
    method: 'POST',
    path: '/hooks/a1',
    headers: { 'content-type': 'application/json' },
    bodyBase64: body.toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: ['ok'] },
    summary: { event: 'message.received', from: '1555', messageId: `m-${id}`, type: 'text' },
    forward: false,
  };
}

const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

/** write(2) that, once armed, writes half of what it is asked and then fails with ENOSPC. */
function shortWriteThenFull() {
  let armed = false;
  let wrotePart = false;
  const io: Partial<LogIO> = {
    write: (fd, buf, off, len, position) => {
      if (!armed) return writeSync(fd, buf, off, len, position);
      if (!wrotePart) {
        wrotePart = true;
        return writeSync(fd, buf, off, Math.max(1, Math.floor(len / 2)), position);
      }
      armed = false;
      wrotePart = false;
      throw errno('ENOSPC');
    },
  };
  return { io, arm: () => (armed = true) };
}

/** A segment's records: its lines up to the zero padding. */
async function lines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8'))
    .split('\0')[0]!
    .split('\n')
    .filter((l) => l !== '');
}

describe('EventLog under storage failure (injected file system)', () => {
  it('a short write then ENOSPC: the batch fails, the file is cut back, the next record lands whole after the last good one', async () => {
    const d = await dir();
    const fail = shortWriteThenFull();
    const clock = new FakeClock(NOW);
    const log = new EventLog({ dataDir: d, clock, io: fail.io });
    await log.open();
    await log.appendDelivery(delivery('A'));
    fail.arm();
    await expect(log.appendDelivery(delivery('B'))).rejects.toThrow(/ENOSPC/);
    expect(log.has('B')).toBe(false);
    await log.appendDelivery(delivery('C'));
    await log.close();
    const [seg] = log.segmentFiles();
    // Every line is a whole record: nothing torn stayed behind B.
    expect((await lines(seg!)).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['A', 'C']);
    const again = new EventLog({ dataDir: d, clock });
    await again.open();
    expect([...again.all()].map((x) => x.id)).toEqual(['A', 'C']);
    await again.close();
  });

  it('the cut fails too: the log rolls to a fresh segment before the next append, and nothing acknowledged is lost', async () => {
    const d = await dir();
    const fail = shortWriteThenFull();
    const clock = new FakeClock(NOW);
    const log = new EventLog({
      dataDir: d,
      clock,
      io: {
        ...fail.io,
        truncate: () => {
          throw errno('EIO');
        },
      },
    });
    await log.open();
    await log.appendDelivery(delivery('A'));
    fail.arm();
    await expect(log.appendDelivery(delivery('B'))).rejects.toThrow(/ENOSPC/);
    await log.appendDelivery(delivery('C'));
    expect(log.segmentFiles()).toHaveLength(2);
    await log.close();
    // The old segment keeps its torn tail; the new one starts clean.
    expect((await readFile(log.segmentFiles()[0]!, 'utf8')).endsWith('\n')).toBe(false);
    const again = new EventLog({ dataDir: d, clock });
    await again.open();
    expect([...again.all()].map((x) => x.id)).toEqual(['A', 'C']);
    await again.close();
  });

  it('a failed fdatasync: what waited on it fails, the log rolls, the next record is acknowledged once synced', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    let failSync = false;
    const log = new EventLog({
      dataDir: d,
      clock,
      io: { datasync: (fh) => (failSync ? ((failSync = false), Promise.reject(errno('EIO'))) : fh.datasync()) },
    });
    await log.open();
    await log.appendDelivery(delivery('A'));
    failSync = true;
    await expect(log.appendDelivery(delivery('B'))).rejects.toThrow(/EIO/);
    expect(log.has('B')).toBe(false);
    await log.appendDelivery(delivery('C'));
    expect(log.has('C')).toBe(true);
    expect(log.segmentFiles()).toHaveLength(2);
    expect((await lines(log.segmentFiles()[1]!)).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['C']);
    await log.close();
    // B failed: it is cut out of its segment, never read back.
    expect((await lines(log.segmentFiles()[0]!)).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['A']);
    const again = new EventLog({ dataDir: d, clock });
    await again.open();
    expect([...again.all()].map((x) => x.id)).toEqual(['A', 'C']);
    await again.close();
  });
});

describe('segments zero-filled ahead of the writes', () => {
  it('a crash leaves the padding (and maybe a torn record in it): the records are read exactly, the writer continues after them', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    const log = new EventLog({ dataDir: d, clock });
    await log.open();
    await log.appendDelivery(delivery('A'));
    await log.appendDelivery(delivery('B'));
    const seg = log.segmentFiles()[0]!;
    // What a SIGKILL now would leave: the records, then zeros (the file is zero-filled ahead).
    const onDisk = await readFile(seg);
    const records = onDisk.indexOf(0);
    expect(records).toBeGreaterThan(0);
    expect(onDisk.length).toBeGreaterThan(records);
    expect(onDisk.subarray(records).every((b) => b === 0)).toBe(true);
    // A reader meanwhile sees exactly the two records.
    const reader = new EventLog({ dataDir: d, clock, readOnly: true });
    await reader.open();
    expect([...reader.all()].map((x) => x.id)).toEqual(['A', 'B']);
    await reader.close();
    await log.close();
    // The crash image, with half a record written into the padding.
    const crashed = join(await dir(), 'deliveries');
    await mkdir(crashed, { recursive: true });
    const torn = Buffer.from('{"kind":"delivery","id":"C","agentId":"a1","rec');
    const image = Buffer.concat([onDisk.subarray(0, records), torn, onDisk.subarray(records + torn.length)]);
    await writeFile(join(crashed, 'seg-000000000001.jsonl'), image);
    const again = new EventLog({ dataDir: join(crashed, '..'), clock });
    await again.open();
    expect([...again.all()].map((x) => x.id)).toEqual(['A', 'B']);
    await again.appendDelivery(delivery('D'));
    await again.close();
    const after = await readFile(join(crashed, 'seg-000000000001.jsonl'), 'utf8');
    expect(after.includes('\0')).toBe(false);
    expect(
      after
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['A', 'B', 'D']);
  });
});

describe('the receiver while storage fails', () => {
  it('answers 503 (kept as storage-unavailable), then 200 again once a record is durable; every 200 survives a restart', async () => {
    const d = await dir();
    let full = false;
    const io: Partial<LogIO> = {
      write: (fd, buf, off, len, position) => {
        if (!full) return writeSync(fd, buf, off, len, position);
        writeSync(fd, buf, off, Math.floor(len / 3), position);
        throw errno('ENOSPC');
      },
    };
    const SECRET = 'whsec_storage_test';
    const clock = new FakeClock(NOW);
    const t = new Tunnel({ dataDir: d, clock, getSecrets: async () => [SECRET], logIO: io });
    const { url } = await t.start();
    const post = async (n: number) => {
      const body = JSON.stringify({
        event: 'message.received',
        from: '1555',
        message: { id: `m${n}`, type: 'text', text: 'hi' },
      });
      return rawRequest(`${url}/hooks/a1`, { headers: signDelivery(SECRET, body, NOW / 1000), body });
    };
    expect((await post(1)).status).toBe(200);
    full = true;
    const refused = await post(2);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json).toMatchObject({ ok: false, reason: 'storage-unavailable' });
    expect(t.refused({ limit: 1 })[0]).toMatchObject({ reason: 'storage-unavailable', status: 503, agentId: 'a1' });
    expect((await post(3)).status).toBe(503);
    full = false;
    // The service retries message 2: it is not a duplicate (it was never stored).
    expect((await post(2)).status).toBe(200);
    expect((await post(4)).status).toBe(200);
    await t.stop();
    const again = new EventLog({ dataDir: d, clock, readOnly: true });
    await again.open();
    expect([...again.all()].map((x) => x.summary.messageId)).toEqual(['m1', 'm2', 'm4']);
    await again.close();
  });
});

describe('a failed fdatasync at the receiver', () => {
  it('a delivery answered 503 is never forwarded after a restart; its retry (same message.id) is forwarded once', async () => {
    const d = await dir();
    const SECRET = 'whsec_storage_test';
    const clock = new FakeClock(NOW);
    let failSync = false;
    const logIO: Partial<LogIO> = {
      datasync: (fh) => (failSync ? ((failSync = false), Promise.reject(errno('EIO'))) : fh.datasync()),
    };
    const messageIdOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { message: { id: string } }).message.id;
    // The local app is down while the first receiver runs: every delivery stays pending.
    const down: Transport = () => Promise.reject(new Error('connect ECONNREFUSED'));
    const forward = { defaultUrl: 'http://127.0.0.1:9/webhook' };
    const t = new Tunnel({ dataDir: d, clock, getSecrets: async () => [SECRET], logIO, transport: down, forward });
    const { url } = await t.start();
    const post = async (n: number) => {
      const body = JSON.stringify({
        event: 'message.received',
        from: '1555',
        message: { id: `m${n}`, type: 'text', text: 'hi' },
      });
      return rawRequest(`${url}/hooks/a1`, { headers: signDelivery(SECRET, body, NOW / 1000), body });
    };
    expect((await post(1)).status).toBe(200);
    failSync = true;
    const refused = await post(2);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ ok: false, reason: 'storage-unavailable' });
    // The service retries message 2 with the same message.id: stored (the first was not), acknowledged.
    const retried = await post(2);
    expect(retried.status).toBe(200);
    expect(retried.json?.duplicate).toBeUndefined();
    await t.stop();

    // The app is back; a new receiver forwards what is pending.
    const forwarded: string[] = [];
    const up: Transport = async (req) => {
      forwarded.push(messageIdOf(req.body));
      return { status: 200, body: '' };
    };
    const again = new Tunnel({ dataDir: d, clock, getSecrets: async () => [SECRET], transport: up, forward });
    cleanups.push(() => again.stop());
    const { url: url2 } = await again.start();
    expect(
      again
        .list({ limit: 100 })
        .map((x) => x.summary.messageId)
        .sort(),
    ).toEqual(['m1', 'm2']);
    await waitFor(() => again.log.pending().length === 0);
    expect(forwarded.sort()).toEqual(['m1', 'm2']);
    // A retry after the restart is a duplicate of the one acknowledged.
    const body = JSON.stringify({
      event: 'message.received',
      from: '1555',
      message: { id: 'm2', type: 'text', text: 'hi' },
    });
    expect(
      (await rawRequest(`${url2}/hooks/a1`, { headers: signDelivery(SECRET, body, NOW / 1000), body })).json,
    ).toMatchObject({ ok: true, duplicate: true });
  });

  it('a retry that arrives while its first delivery waits on an fdatasync that then fails is answered 503 too, never 200 as a duplicate', async () => {
    const d = await dir();
    const SECRET = 'whsec_storage_test';
    const clock = new FakeClock(NOW);
    let held: (() => void) | null = null;
    let holdNext = false;
    const logIO: Partial<LogIO> = {
      datasync: (fh) => {
        if (!holdNext) return fh.datasync();
        holdNext = false;
        // A disk that stalls on this flush, then reports an error.
        return new Promise<void>((_, reject) => (held = () => reject(errno('EIO'))));
      },
    };
    let secretReads = 0;
    const t = new Tunnel({
      dataDir: d,
      clock,
      getSecrets: async () => (secretReads++, [SECRET]),
      logIO,
      forward: { defaultUrl: 'http://127.0.0.1:9/webhook' },
      transport: () => Promise.reject(new Error('down')),
    });
    cleanups.push(() => t.stop());
    const { url } = await t.start();
    const post = async (n: number, text = 'hi') => {
      await clock.advance(1_000);
      const body = JSON.stringify({
        event: 'message.received',
        from: '1555',
        message: { id: `m${n}`, type: 'text', text },
      });
      return rawRequest(`${url}/hooks/a1`, { headers: signDelivery(SECRET, body, NOW / 1000), body });
    };
    expect((await post(1)).status).toBe(200);
    holdNext = true;
    const first = post(2);
    await waitFor(() => held !== null);
    // The service gave up waiting and retries (the same message.id) while the first is not stored yet.
    const retry = post(2, 'hi again');
    // The retry is checked (a duplicate) and waits for the first; nothing outside tells when it got there.
    await new Promise((r) => setTimeout(r, 100));
    expect(secretReads).toBe(1);
    held!();
    expect((await first).status).toBe(503);
    const answer = await retry;
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ ok: false, reason: 'storage-unavailable' });
    // The next retry is taken as the message's first delivery: stored, verified, to be forwarded.
    const third = await post(2, 'third try');
    expect(third.status).toBe(200);
    expect(third.json?.duplicate).toBeUndefined();
    const m2 = t.list({ limit: 100 }).filter((x) => x.summary.messageId === 'm2');
    expect(m2.map((x) => x.verdict.reason)).toEqual(['verified']);
    expect(t.get(m2[0]!.id)!.forward).toBe(true);
  });
});

describe('readers', () => {
  it('a read-only log loads what is whole and never cuts, repairs or writes', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    const w = new EventLog({ dataDir: d, clock });
    await w.open();
    await w.appendDelivery(delivery('A'));
    await w.close();
    const seg = w.segmentFiles()[0]!;
    // A record still being written by the writer.
    await appendFile(seg, '{"kind":"delivery","id":"B","age');
    const before = await stat(seg);
    const r = new EventLog({ dataDir: d, clock, readOnly: true });
    await r.open();
    expect([...r.all()].map((x) => x.id)).toEqual(['A']);
    await expect(r.appendDelivery(delivery('C'))).rejects.toThrow(/read-only/);
    await r.close();
    const after = await stat(seg);
    expect(after.size).toBe(before.size);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  it('a reader of a folder that does not exist finds an empty log and creates nothing', async () => {
    const d = join(await dir(), 'nothing-here');
    const r = new EventLog({ dataDir: d, clock: new FakeClock(NOW), readOnly: true });
    await r.open();
    expect(r.size).toBe(0);
    await r.close();
    await expect(stat(d)).rejects.toThrow(/ENOENT/);
  });
});

describe('permissions', () => {
  it('the data folders are 0700 and the files 0600 wherever the data dir is, whatever the umask and older files', async () => {
    const base = join(await dir(), 'elsewhere');
    const d = join(base, 'tunnel');
    // An older version left the log 0644 in a 0755 folder.
    await mkdir(join(d, 'deliveries'), { recursive: true, mode: 0o755 });
    await chmod(d, 0o755);
    await writeFile(join(d, 'deliveries', 'seg-000000000001.jsonl'), '', { mode: 0o644 });
    // Files of the folder itself, from an older version or someone else.
    await writeFile(join(d, 'seen.jsonl'), '', { mode: 0o644 });
    await writeFile(join(d, 'other.txt'), 'x', { mode: 0o644 });
    const old = process.umask(0);
    try {
      const t = new Tunnel({
        dataDir: d,
        clock: new FakeClock(NOW),
        getSecrets: async () => ['s'],
        newId: createIdGenerator(new FakeClock(NOW)),
      });
      await t.open();
      const { url } = await t.start();
      await rawRequest(`${url}/nothing`, { body: 'x' }); // a refused request: the refused store writes too
      await new Promise((r) => setImmediate(r));
      await t.stop();
    } finally {
      process.umask(old);
    }
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(d)).toBe(0o700);
    for (const f of ['seen.jsonl', 'other.txt']) expect(await mode(join(d, f))).toBe(0o600);
    for (const sub of ['deliveries', 'refused']) {
      expect(await mode(join(d, sub))).toBe(0o700);
      const files = await readdir(join(d, sub));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(await mode(join(d, sub, f))).toBe(0o600);
    }
  });
});
