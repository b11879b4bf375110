// The receiver under attack, over loopback for real: a cap on connections (idle sockets cannot keep
// deliveries out or exhaust descriptors), the refusal budget before any verification (no secret read
// per refused request), a bound on the bytes of bodies in flight and on what a registration hold
// keeps, repeat records under a burst of replays, credential headers stored redacted, and the hook of
// an unknown agent answered 404 `unknown-agent`.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../../src-main/core/signature';
import { MemorySecretStore } from '../../../../src-main/core/secrets/memory';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { RefusedStore } from '../../../../src-main/core/tunnel/refused';
import { FakeClock, rawRequest, tempDir, waitFor } from './helpers';

const NOW = 1_750_000_000_000;
const SECRET = 'whsec_limits_0123456789abcdef';
const FORGED = 'whsec_forged_0123456789abcdef';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The keychain as the app reads it, counting its reads. */
class CountingStore extends MemorySecretStore {
  reads = 0;
  override async get(account: string): Promise<string | null> {
    this.reads++;
    return super.get(account);
  }
}

async function tunnel(
  extra: Partial<ConstructorParameters<typeof Tunnel>[0]> = {},
): Promise<{ t: Tunnel; url: string; store: CountingStore; clock: FakeClock; dir: string }> {
  const d = await tempDir('limits-');
  cleanups.push(d.cleanup);
  const store = new CountingStore({ a1: SECRET });
  const clock = new FakeClock(NOW);
  const t = new Tunnel({
    dataDir: d.dir,
    clock,
    getSecrets: async (agentId) => {
      const s = await store.get(agentId);
      return s === null ? [] : [s];
    },
    ...extra,
  });
  const { url } = await t.start();
  cleanups.push(() => t.stop());
  return { t, url, store, clock, dir: d.dir };
}

const event = (id: string, text = 'hi') =>
  JSON.stringify({ event: 'message.received', from: '15550100007', message: { id, type: 'text', text } });

function post(url: string, body: string, secret: string, clock: FakeClock, headers: Record<string, string> = {}) {
  return rawRequest(url, {
    headers: {
      'content-type': 'application/json',
      ...signDelivery(secret, body, Math.floor(clock.now() / 1000)),
      ...headers,
    },
    body,
  });
}

/**
 * Opens n idle TCP connections to the receiver from a process of its own (so the descriptors this
 * process holds are the receiver's); resolves once each has connected or failed.
 */
async function idleSockets(url: string, n: number): Promise<void> {
  const u = new URL(url);
  const code = `
    const net = require('node:net');
    let left = ${n};
    const sockets = [];
    const done = () => { if (--left === 0) process.stdout.write('ready\\n'); };
    for (let i = 0; i < ${n}; i++) {
      const s = net.connect({ host: '${u.hostname}', port: ${Number(u.port)} });
      sockets.push(s);
      let counted = false;
      const once = () => { if (!counted) { counted = true; done(); } };
      s.on('connect', once);
      s.on('error', once);
      s.on('close', once);
    }
    setInterval(() => {}, 60000);
  `;
  // Its own descriptor limit, raised for the sockets.
  const child = spawn('sh', ['-c', `ulimit -n 8192 2>/dev/null; exec "${process.execPath}" -e "$0"`, code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve();
    });
    child.once('exit', (c) => reject(new Error(`the socket opener exited (${c})`)));
  });
}

/** Descriptors this process holds. */
async function openFds(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

describe('connections', () => {
  it('with 2,000 idle sockets open, the excess is closed at once, deliveries are answered, and the secrets are not read per request', async () => {
    const { t, url, store, clock } = await tunnel({ maxConnections: 64, agents: ['a1'] });
    // (Plus the few pipes to the process that holds the idle sockets.)
    const before = (await openFds()) + 4;
    await idleSockets(url, 2_000);
    // At most 64 stay open: the rest are closed by the receiver at once, not left for a time-out.
    expect(await openFds()).toBeLessThanOrEqual(before + 64);
    const hook = `${url}/hooks/a1`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(hook, event(`idle-${i}`), SECRET, clock)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    // A forged signature among them is refused without a read of the keychain.
    expect((await post(hook, event('forged'), FORGED, clock)).status).toBe(401);
    expect((await post(hook, event('after'), SECRET, clock)).status).toBe(200);
    expect(await openFds()).toBeLessThanOrEqual(before + 64);
    expect(t.list({ limit: 100 }).filter((d) => d.verdict.ok)).toHaveLength(21);
    // Read once, when the receiver started (its agents are known).
    expect(store.reads).toBe(1);
  });

  it('when every connection has a request under way, a new one is closed at once', async () => {
    const { url } = await tunnel({ maxConnections: 4, agents: ['a1'] });
    const u = new URL(url);
    // Four requests whose bodies never finish: their connections are busy, not idle.
    const busy = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect({ host: u.hostname, port: Number(u.port) }, () => {
              s.write('POST /hooks/a1 HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{');
              resolve(s);
            });
            s.on('error', () => undefined);
          }),
      ),
    );
    cleanups.push(() => {
      for (const s of busy) s.destroy();
    });
    await new Promise((r) => setTimeout(r, 100));
    const r = await rawRequest(`${url}/hooks/a1`, { body: '{}' }).catch((e: NodeJS.ErrnoException) => e);
    expect(r).toBeInstanceOf(Error);
    expect(busy.every((s) => !s.destroyed)).toBe(true);
  });
});

describe('refusals per source', () => {
  it('200 forged signed deliveries from one source: the budget applies before verification, and no secret is read for them', async () => {
    const { t, url, store, clock } = await tunnel({ agents: ['a1'] });
    await waitFor(() => store.reads === 1, 5_000, 'the secrets loaded at start');
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++)
      statuses.push((await post(`${url}/hooks/a1`, event(`forged-${i}`), FORGED, clock)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    expect(store.reads).toBe(1);
    const limited = t.refused({ limit: 5, reason: 'rate-limited' });
    expect(limited).toHaveLength(1);
    expect(limited[0]!.detail).toMatch(/over its budget/);
  });
});

describe('bytes in flight', () => {
  it('bodies beyond the bound are answered 503 with Retry-After at once, unread; the room comes back as bodies are answered', async () => {
    const { url } = await tunnel({
      bodyLimitBytes: 1024 * 1024,
      maxBytesInFlight: 4 * 1024 * 1024,
      refusalRate: { burst: 1e6, perSec: 1 },
      agents: ['a1'],
    });
    const u = new URL(url);
    // Four slow senders, each a body of (almost) 1 MiB declared and half of it sent: 4 MiB in flight.
    const slow = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect({ host: u.hostname, port: Number(u.port) }, () => {
              s.write(`POST /hooks/a1 HTTP/1.1\r\nhost: x\r\ncontent-length: ${1024 * 1024 - 16}\r\n\r\n`);
              s.write(Buffer.alloc(512 * 1024, 0x61), () => resolve(s));
            });
            s.on('error', () => undefined);
          }),
      ),
    );
    cleanups.push(() => {
      for (const s of slow) s.destroy();
    });
    await new Promise((r) => setTimeout(r, 100));
    const body = Buffer.alloc(64 * 1024, 0x61);
    const headers = { 'content-type': 'application/json', ...signDelivery(FORGED, body, NOW / 1000) };
    for (const chunked of [false, true]) {
      const r = await rawRequest(`${url}/hooks/a1`, { headers, body, chunked });
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('2');
      expect(r.json).toMatchObject({ ok: false, reason: 'busy', retryAfterSec: 2 });
    }
    // One slow sender gives up: its room is free again.
    slow[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await rawRequest(`${url}/hooks/a1`, { headers, body })).status).toBe(401);
  });

  it('a registration hold keeps at most 64 deliveries: the rest are answered 503 with Retry-After at once', async () => {
    const { t, url, clock } = await tunnel({
      refusalRate: { burst: 1e6, perSec: 1 },
      registrationHoldMs: 60_000,
      agents: ['a1'],
    });
    const end = t.registrations.begin('a1');
    const answered: number[] = [];
    const all = Array.from({ length: 70 }, (_, i) =>
      post(`${url}/hooks/a1`, event(`held-${i}`), FORGED, clock).then((a) => {
        answered.push(a.status);
        return a;
      }),
    );
    await waitFor(() => answered.length === 6, 10_000, 'the deliveries over the bound answered');
    expect(answered).toEqual(Array(6).fill(503));
    end();
    const statuses = (await Promise.all(all)).map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(64);
    const refused = t.refused({ limit: 100, reason: 'registering' });
    expect(refused).toHaveLength(6);
    expect(refused[0]!.detail).toMatch(/were held already/);
  });
});

describe('repeats under a burst', () => {
  it('500 concurrent posts of one delivery: one stored, 4 repeats kept, every one acknowledged', async () => {
    // A disk slow to flush: the repeats all arrive while the first is being stored.
    const { t, url, clock } = await tunnel({
      maxConnections: 1_000,
      agents: ['a1'],
      logIO: { datasync: (fh) => new Promise((r) => setTimeout(r, 100)).then(() => fh.datasync()) },
    });
    const body = event('burst-1');
    const answers = await Promise.all(Array.from({ length: 500 }, () => post(`${url}/hooks/a1`, body, SECRET, clock)));
    expect(answers.map((a) => a.status)).toEqual(Array(500).fill(200));
    const kept = t.list({ limit: 1000 });
    expect(kept.filter((d) => d.verdict.reason === 'verified')).toHaveLength(1);
    expect(kept.filter((d) => d.verdict.reason === 'duplicate')).toHaveLength(4);
  });
});

describe('credential headers', () => {
  it('are stored redacted in the log and the refused store; export withholds them and says which', async () => {
    const { t, url, clock, dir } = await tunnel({ agents: ['a1'] });
    const creds = {
      authorization: 'Bearer tok_live_SENSITIVE1',
      cookie: 'sid=SENSITIVE2',
      'x-api-key': 'SENSITIVE3',
      'x-request-id': 'req-1',
    };
    expect((await post(`${url}/hooks/a1`, event('creds-1'), SECRET, clock, creds)).status).toBe(200);
    expect((await post(`${url}/hooks/a1`, event('creds-2'), FORGED, clock, creds)).status).toBe(401);
    const [d] = t.list({ limit: 1 });
    const detail = t.get(d!.id)!;
    expect(detail.headers).toMatchObject({
      authorization: '(redacted)',
      cookie: '(redacted)',
      'x-api-key': '(redacted)',
      'x-request-id': 'req-1',
    });
    expect(t.refused({ limit: 1 })[0]!.headers).toMatchObject({ authorization: '(redacted)', cookie: '(redacted)' });
    const curl = t.exportCurl(d!.id);
    expect(curl.split('\n')[0]).toBe('# withheld (credentials, stored redacted): authorization, cookie, x-api-key');
    expect(curl).not.toMatch(/-H '(authorization|cookie|x-api-key):/);
    expect(curl).toContain("-H 'x-request-id: req-1'");
    await t.stop();
    // Nothing on disk holds them either.
    const files: string[] = [];
    const walk = async (p: string): Promise<void> => {
      for (const e of await readdir(p, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(p, e.name));
        else files.push(join(p, e.name));
      }
    };
    await walk(dir);
    for (const f of files) expect(await readFile(f, 'utf8'), f).not.toMatch(/SENSITIVE/);
  });
});

describe('kept before credentials were redacted', () => {
  it('a delivery in the log is shown redacted and exported without them', async () => {
    const { t, url, clock } = await tunnel({ agents: ['a1'] });
    expect((await post(`${url}/hooks/a1`, event('old-1'), SECRET, clock)).status).toBe(200);
    const [item] = t.list({ limit: 1 });
    const stored = t.get(item!.id)!;
    // As an older version stored it: verbatim.
    const old = { ...stored, id: `${stored.id}-old`, headers: { ...stored.headers, cookie: 'sid=SENSITIVE' } };
    await t.log.appendDelivery(old, null);
    expect(t.get(old.id)!.headers.cookie).toBe('(redacted)');
    expect(t.exportCurl(old.id)).not.toContain('SENSITIVE');
    expect(JSON.stringify(t.exportFixture(old.id))).not.toContain('SENSITIVE');
  });

  it('refused requests are read back redacted', async () => {
    const d = await tempDir('limits-');
    cleanups.push(d.cleanup);
    await mkdir(join(d.dir, 'refused'), { recursive: true });
    const old = {
      id: 'r1',
      at: NOW,
      method: 'POST',
      path: '/hooks/a1',
      agentId: 'a1',
      from: '127.0.0.1',
      reason: 'missing-signature',
      detail: 'no signature',
      status: 401,
      size: 2,
      sha256: '',
      prefix: '{}',
      headers: { authorization: 'Bearer tok_SENSITIVE', 'content-type': 'application/json' },
    };
    await writeFile(join(d.dir, 'refused', 'refused.jsonl'), `${JSON.stringify(old)}\n`);
    const store = new RefusedStore({ dataDir: d.dir, readOnly: true });
    await store.open();
    expect(store.list()[0]!.headers).toEqual({ authorization: '(redacted)', 'content-type': 'application/json' });
    store.close();
  });
});

describe('the hook of an unknown agent', () => {
  it('is answered 404 unknown-agent (not 401), kept without an agent id; the agents can change while it listens', async () => {
    const { t, url, store, clock } = await tunnel({ agents: ['a1'] });
    const r = await rawRequest(`${url}/hooks/stranger-9`, { body: '{}' });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ ok: false, reason: 'unknown-agent' });
    const [kept] = t.refused({ limit: 1 });
    expect(kept).toMatchObject({ reason: 'unknown-agent', agentId: null, status: 404 });
    t.setAgents(['a1', 'stranger-9']);
    await store.set('stranger-9', SECRET);
    await t.secretsChanged('stranger-9');
    expect((await post(`${url}/hooks/stranger-9`, event('now-known'), SECRET, clock)).status).toBe(200);
    t.setAgents(['a1']);
    expect((await post(`${url}/hooks/stranger-9`, event('gone'), SECRET, clock)).status).toBe(404);
  });
});
