// The forwarder on a fake clock with a fake transport: order per agent while the app is down,
// backoff 0.5 s doubling to a 30 s cap, status, final 4xx, and resuming after a restart.
import { afterEach, describe, expect, it } from 'vitest';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { signDelivery } from '../../../../src-main/core/signature';
import type { Transport } from '../../../../src-main/core/tunnel/transport';
import { FakeClock, tempDir, waitFor } from './helpers';

type ForwardRequest = Parameters<Transport>[0];

const SECRET = 'whsec_fwd';
const T0 = 1_750_000_000_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A transport whose answers the test decides: 'down' rejects like a refused connection. */
function fakeApp() {
  const sent: Array<{ id: string; agent: string; url: string; req: ForwardRequest }> = [];
  let mode: 'down' | number = 'down';
  const transport: Transport = async (req) => {
    const id = req.headers['x-channel-companion-delivery']!;
    const body = JSON.parse(req.body.toString('utf8')) as { message: { id: string } };
    sent.push({ id: body.message.id, agent: new URL(req.url).pathname, url: req.url, req });
    if (mode === 'down') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', id });
    return { status: mode, body: mode === 200 ? 'ok' : 'fail' };
  };
  return { sent, transport, set: (m: 'down' | number) => (mode = m) };
}

async function makeTunnel(dir: string, clock: FakeClock, transport: Transport) {
  const t = new Tunnel({
    dataDir: dir,
    clock,
    transport,
    getSecrets: async () => [SECRET],
    forward: { perAgent: { a: 'http://127.0.0.1:9/a', b: 'http://127.0.0.1:9/b' } },
  });
  await t.open();
  return t;
}

/** Stores and queues a signed delivery through the same ingest path as the receiver. */
async function inject(t: Tunnel, agentId: string, messageId: string) {
  const r = await t.trigger({ agentId, type: 'text', text: messageId, messageId, secret: SECRET });
  return r.delivery.id;
}

/** Lets promises settle (the fake transport is async). */
async function settle(t: Tunnel) {
  for (let i = 0; i < 5; i++) {
    await t.idle();
    await new Promise((r) => setImmediate(r));
  }
}

describe('forwarder', () => {
  it('keeps order per agent while the app is down, backs off 0.5 s doubling to 30 s, then delivers all', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = fakeApp();
    const t = await makeTunnel(dir, clock, app.transport);
    cleanups.push(() => t.stop());
    const statuses: Array<{ agentId: string; pending: number; down: number | null }> = [];
    t.on('status', (s) => statuses.push({ agentId: s.agentId, pending: s.pending, down: s.localAppDownSince }));

    for (let i = 0; i < 5; i++) {
      await inject(t, 'a', `a${i}`);
      await inject(t, 'b', `b${i}`);
    }
    await settle(t);
    // Only the head of each agent's queue was tried.
    expect(app.sent.map((s) => s.id).sort()).toEqual(['a0', 'b0']);
    const st = t.status();
    expect(st.find((s) => s.agentId === 'a')).toMatchObject({ pending: 5, localAppDownSince: T0 });
    expect(clock.pendingDelays()).toEqual([500, 500]);

    // Backoff: 500, 1000, 2000, ... capped at 30 000.
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const next = clock.pendingDelays()[0]!;
      waits.push(next);
      await clock.advance(next);
      await settle(t);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    // Still only the heads.
    expect(new Set(app.sent.map((s) => s.id))).toEqual(new Set(['a0', 'b0']));

    app.set(200);
    await clock.advance(30_000);
    await settle(t);
    await waitFor(() => t.status().every((s) => s.pending === 0));
    const delivered = app.sent.filter((_, i, all) => i >= all.length - 10).map((s) => s.id);
    expect(delivered.filter((id) => id.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(delivered.filter((id) => id.startsWith('b'))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    expect(t.status().every((s) => s.localAppDownSince === null)).toBe(true);
    expect(statuses.some((s) => s.down !== null)).toBe(true);
    // Every delivery has all its attempts in the log.
    const first = t.list({ agentId: 'a', limit: 10 }).at(-1)!;
    expect(first.forwardState).toBe('delivered');
    expect(t.get(first.id)!.attempts.length).toBeGreaterThanOrEqual(10);
    // A refused connection is said in words, with what to check.
    expect(t.get(first.id)!.attempts[0]!.error).toBe(
      'the local app refused the connection (is it running on that port?)',
    );
  });

  it('forwards the exact bytes with the original signature headers and its own headers', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = fakeApp();
    app.set(200);
    const t = await makeTunnel(dir, clock, app.transport);
    cleanups.push(() => t.stop());
    const r = await t.trigger({ agentId: 'a', text: 'exact', secret: SECRET });
    const attempt = await r.forwarded;
    expect(attempt?.status).toBe(200);
    const req = app.sent[0]!.req;
    const stored = Buffer.from(r.delivery.bodyBase64, 'base64');
    expect(req.body.equals(stored)).toBe(true);
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      ...signDelivery(SECRET, stored, T0 / 1000),
      'x-channel-companion-delivery': r.delivery.id,
    });
    expect(req.headers['x-channel-companion-tunnel']).toMatch(/^channel-companion-tunnel\//);
  });

  it('treats a 4xx as final (not retried), a 5xx as down', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = fakeApp();
    app.set(400);
    const t = await makeTunnel(dir, clock, app.transport);
    cleanups.push(() => t.stop());
    const r1 = await t.trigger({ agentId: 'a', text: 'one', secret: SECRET });
    expect((await r1.forwarded)?.status).toBe(400);
    await settle(t);
    expect(t.get(r1.delivery.id)!.forwardState).toBe('rejected');
    app.set(503);
    const r2 = await t.trigger({ agentId: 'a', text: 'two', secret: SECRET });
    expect((await r2.forwarded)?.status).toBe(503);
    await settle(t);
    expect(t.get(r2.delivery.id)!.forwardState).toBe('pending');
    expect(t.status()[0]).toMatchObject({ pending: 1, lastError: 'HTTP 503' });
  });

  it('times out a silent app on the injected clock', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const hang: Transport = (req) =>
      new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
    const t = new Tunnel({
      dataDir: dir,
      clock,
      transport: hang,
      getSecrets: async () => [SECRET],
      forward: { defaultUrl: 'http://127.0.0.1:9/', timeoutMs: 10_000 },
    });
    await t.open();
    cleanups.push(() => t.stop());
    const r = await t.trigger({ agentId: 'a', text: 'slow', secret: SECRET });
    await new Promise((res) => setImmediate(res));
    await clock.advance(10_000);
    const a = await r.forwarded;
    expect(a).toMatchObject({ status: null, error: 'no answer within 10000 ms' });
  });

  it('resumes pending deliveries after a restart, in order, and re-signs the stale ones', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = fakeApp();
    const t1 = await makeTunnel(dir, clock, app.transport);
    for (let i = 0; i < 3; i++) await inject(t1, 'a', `r${i}`);
    await settle(t1);
    await t1.stop();
    expect(t1.status()).toEqual([]);

    await clock.advance(600_000); // ten minutes later: the original signatures are stale
    const app2 = fakeApp();
    app2.set(200);
    const t2 = await makeTunnel(dir, clock, app2.transport);
    cleanups.push(() => t2.stop());
    await settle(t2);
    await waitFor(() => app2.sent.length === 3);
    expect(app2.sent.map((s) => s.id)).toEqual(['r0', 'r1', 'r2']);
    const h = app2.sent[0]!.req.headers;
    expect(h['x-channel-companion-resigned']).toBe('1');
    expect(h['x-service-signature-v1']).toBe(
      signDelivery(SECRET, app2.sent[0]!.req.body, clock.now() / 1000)['x-service-signature-v1'],
    );
    expect(t2.list({ forwardState: 'pending' })).toHaveLength(0);
  });

  it('keeps the original stale signature when resignStale is off', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = fakeApp();
    const t1 = await makeTunnel(dir, clock, app.transport);
    const r = await t1.trigger({ agentId: 'a', text: 'old', secret: SECRET });
    await settle(t1);
    await t1.stop();
    await clock.advance(600_000);
    const app2 = fakeApp();
    app2.set(200);
    const t2 = new Tunnel({
      dataDir: dir,
      clock,
      transport: app2.transport,
      getSecrets: async () => [SECRET],
      forward: { defaultUrl: 'http://127.0.0.1:9/', resignStale: false },
    });
    await t2.open();
    cleanups.push(() => t2.stop());
    await waitFor(() => app2.sent.length === 1);
    expect(app2.sent[0]!.req.headers['x-service-signature-v1']).toBe(r.delivery.headers['x-service-signature-v1']);
  });
});
