// The receiver with a durable commit (a team hub's database): an accepted delivery is committed after
// verification and before the 2xx; a key the store already holds is answered and kept as a repeat (never
// forwarded); while the store fails the answer is 503 with Retry-After, nothing acknowledged, and the
// service's retry is committed once the store is back. A refused delivery is never committed. The log then
// only caches what the store holds (its append waits for no fdatasync), its record the JSON the commit was
// handed. Another HTTP server can hand a hook request to the receiver (serveHook).
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../../src-main/core/signature';
import { Tunnel, type DeliveryCommit, type StoredDelivery } from '../../../../src-main/core/tunnel';
import { FakeClock, rawRequest, tempDir } from './helpers';

const NOW = 1_750_000_000_000;
const SECRET = 'whsec_durable_commit_test';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function tunnelWith(commit: DeliveryCommit): Promise<{ t: Tunnel; url: string; dir: string }> {
  const d = await tempDir();
  cleanups.push(d.cleanup);
  const t = new Tunnel({ dataDir: d.dir, clock: new FakeClock(NOW), getSecrets: async () => [SECRET], commit });
  cleanups.push(() => t.stop());
  const { url } = await t.start();
  return { t, url, dir: d.dir };
}

/** The lines of the log's segment files under `dir`. */
async function logLines(dir: string): Promise<string[]> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => /seg-\d+\.jsonl$/.test(f));
  const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return texts.flatMap((x) => x.split('\n')).filter((l) => l.startsWith('{'));
}

function post(url: string, messageId: string, secret = SECRET) {
  const body = JSON.stringify({ event: 'message.received', from: '1555', message: { id: messageId, type: 'text' } });
  return rawRequest(`${url}/hooks/a1`, { headers: signDelivery(secret, body, NOW / 1000), body });
}

describe('a durable commit before the acknowledgement', () => {
  it('commits each accepted delivery with its message id before the 2xx; a key the store holds is a repeat', async () => {
    const committed: Array<{ id: string; key: string }> = [];
    const held = new Set(['m-elsewhere']);
    const { t, url } = await tunnelWith(async (d, key) => {
      committed.push({ id: d.id, key });
      if (held.has(key)) return 'duplicate';
      held.add(key);
      return 'stored';
    });
    const first = await post(url, 'm1');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, deliveryId: committed[0]!.id });
    expect(first.json).not.toHaveProperty('duplicate');
    expect(committed.map((c) => c.key)).toEqual(['m1']);

    // Taken first by another receiver of the store: acknowledged as a repeat, kept as one, never forwarded.
    const repeat = await post(url, 'm-elsewhere');
    expect(repeat.status).toBe(200);
    expect(repeat.json).toMatchObject({ ok: true, duplicate: true });
    const kept = t.get(repeat.json!.deliveryId as string)!;
    expect(kept.verdict).toMatchObject({ ok: false, reason: 'duplicate' });
    expect(kept.forward).toBe(false);

    // A repeat this receiver knows itself is not committed again; a refused delivery is never committed.
    expect((await post(url, 'm1')).json).toMatchObject({ duplicate: true });
    expect((await post(url, 'm2', 'whsec_wrong')).status).toBe(401);
    expect(committed.map((c) => c.key)).toEqual(['m1', 'm-elsewhere']);
  });

  it("the commit is handed the delivery's JSON, the very record the log then keeps; a repeat is kept as one", async () => {
    const handed = new Map<string, string>();
    const { t, url, dir } = await tunnelWith(async (d, key, json) => {
      handed.set(d.id, json);
      return key === 'm-elsewhere' ? 'duplicate' : 'stored';
    });
    const stored = (await post(url, 'm1')).json!.deliveryId as string;
    const repeat = (await post(url, 'm-elsewhere')).json!.deliveryId as string;
    expect(t.get(stored)).toMatchObject(JSON.parse(handed.get(stored)!) as object);
    await t.stop();
    const lines = await logLines(dir);
    expect(lines).toContain(handed.get(stored));
    // The repeat's record is written anew, as the repeat it turned out to be.
    const repeatLine = lines.find((l) => (JSON.parse(l) as { id?: string }).id === repeat)!;
    expect(repeatLine).not.toBe(handed.get(repeat));
    expect(JSON.parse(repeatLine)).toMatchObject({ verdict: { reason: 'duplicate' }, forward: false });
  });

  it('a store that fails: 503 with Retry-After, nothing kept; the retry once it is back is committed', async () => {
    let down = true;
    const stored: string[] = [];
    const { t, url } = await tunnelWith(async (_d, key) => {
      if (down) throw new Error('connect ECONNREFUSED');
      stored.push(key);
      return 'stored';
    });
    const refused = await post(url, 'm1');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({ ok: false, reason: 'storage-unavailable' });
    expect(t.list()).toHaveLength(0);
    down = false;
    const retried = await post(url, 'm1');
    expect(retried.status).toBe(200);
    expect(retried.json).not.toHaveProperty('duplicate');
    expect(stored).toEqual(['m1']);
  });

  it("with a durable store the log is a cache: the 2xx waits for the commit, not for the log's fdatasync", async () => {
    const d = await tempDir();
    cleanups.push(d.cleanup);
    // A disk whose flush does not end until the test lets it.
    let flushed!: () => void;
    const disk = new Promise<void>((r) => (flushed = r));
    const t = new Tunnel({
      dataDir: d.dir,
      clock: new FakeClock(NOW),
      getSecrets: async () => [SECRET],
      commit: async () => 'stored',
      logIO: { datasync: () => disk },
    });
    cleanups.push(() => {
      flushed();
      return t.stop();
    });
    const { url } = await t.start();
    const r = await post(url, 'm1');
    expect(r.status).toBe(200);
    expect(t.get(r.json!.deliveryId as string)?.summary.messageId).toBe('m1');
  });

  it('another server hands a hook request to the receiver (serveHook); false while it is stopped', async () => {
    const { t } = await tunnelWith(async () => 'stored');
    const server: Server = createServer((req, res) => {
      if (!t.serveHook(req, res)) res.writeHead(503).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await post(origin, 'm1');
    expect(r.status).toBe(200);
    const d: StoredDelivery | undefined = t.get(r.json!.deliveryId as string);
    expect(d?.summary.messageId).toBe('m1');
    await t.stop();
    expect((await post(origin, 'm2')).status).toBe(503);
  });
});
