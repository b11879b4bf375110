// Ordered pipelining: the forwarder keeps several deliveries of an agent in flight (in order) while the
// app is healthy, goes back to one at a time after a failure, and records a 2xx that went ahead of a
// failed delivery with `aheadOf`. The undici transport's lanes keep the order on one connection and
// never re-send the rest of a broken pipeline on a new connection. Attempt records are not synced one
// by one but are on disk after close.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { createUndiciTransport, type Transport } from '../../../../src-main/core/tunnel/transport';
import { Cancel } from '../../../../src-main/core/tunnel/transport';
import { FakeClock, tempDir, waitFor } from './helpers';

type ForwardRequest = Parameters<Transport>[0];
type ForwardResponse = Awaited<ReturnType<Transport>>;

const SECRET = 'whsec_pipe';
const T0 = 1_750_000_000_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Call {
  text: string;
  lane: string | undefined;
  answer(status: number): void;
  fail(err: Error): void;
}

/** A pipelining transport whose answers the test gives, one call at a time. */
function manualTransport(depth: number) {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const transport: Transport = (req: ForwardRequest) =>
    new Promise<ForwardResponse>((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const body = JSON.parse(req.body.toString('utf8')) as { message: { text?: { body?: string } | string } };
      const t = body.message.text;
      const text = typeof t === 'string' ? t : (t?.body ?? '');
      req.cancel?.onAbort((reason) => {
        inFlight--;
        reject(reason);
      });
      calls.push({
        text,
        lane: req.lane,
        answer: (status) => {
          inFlight--;
          resolve({ status, body: '' });
        },
        fail: (err) => {
          inFlight--;
          reject(err);
        },
      });
    });
  transport.pipelining = depth;
  return { calls, transport, maxInFlight: () => maxInFlight };
}

async function makeTunnel(dir: string, clock: FakeClock, transport: Transport, pipelining?: number) {
  const t = new Tunnel({
    dataDir: dir,
    clock,
    transport,
    getSecrets: async () => [SECRET],
    forward: { defaultUrl: 'http://127.0.0.1:9/app', ...(pipelining !== undefined ? { pipelining } : {}) },
  });
  await t.open();
  return t;
}

/** Lets promises and the log's writes settle (requests held by the manual transport stay open). */
async function settle(_t: Tunnel) {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setImmediate(r));
  }
}

async function injectMany(t: Tunnel, agentId: string, texts: string[]) {
  const ids: string[] = [];
  for (const text of texts) ids.push((await t.trigger({ agentId, text, secret: SECRET })).delivery.id);
  return ids;
}

describe('forwarder pipelining', () => {
  it('keeps up to `pipelining` deliveries of an agent in flight, sent in queue order on its lane', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = manualTransport(4);
    const t = await makeTunnel(dir, clock, app.transport);
    cleanups.push(() => t.stop());
    const texts = Array.from({ length: 10 }, (_, i) => `m${i}`);
    const ids = await injectMany(t, 'a', texts);
    await waitFor(() => app.calls.length === 4, 5_000, 'four in flight');
    await settle(t);
    expect(app.calls.map((c) => c.text)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(app.calls.every((c) => c.lane === 'a')).toBe(true);
    // Answers are taken in order: the window slides one by one.
    for (let i = 0; i < 10; i++) {
      await waitFor(() => app.calls.length > i, 5_000, `call ${i}`);
      app.calls[i]!.answer(200);
    }
    await waitFor(() => ids.every((id) => t.get(id)!.forwardState === 'delivered'), 5_000, 'all delivered');
    expect(app.calls.map((c) => c.text)).toEqual(texts);
    expect(app.maxInFlight()).toBe(4);
  });

  it('pipelining: 1 sends strictly one at a time', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = manualTransport(8);
    const t = await makeTunnel(dir, clock, app.transport, 1);
    cleanups.push(() => t.stop());
    await injectMany(t, 'a', ['x0', 'x1', 'x2']);
    await waitFor(() => app.calls.length === 1, 5_000, 'the first call');
    await settle(t);
    expect(app.calls).toHaveLength(1);
    app.calls[0]!.answer(200);
    await waitFor(() => app.calls.length === 2, 5_000, 'the second call');
    await settle(t);
    expect(app.calls).toHaveLength(2);
  });

  it('after a failure: stops sending, records what was already in flight (aheadOf), then goes one at a time until healthy', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = manualTransport(4);
    const t = await makeTunnel(dir, clock, app.transport);
    cleanups.push(() => t.stop());
    const ids = await injectMany(t, 'a', ['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
    await waitFor(() => app.calls.length === 4, 5_000, 'a full window');
    await settle(t);
    expect(app.calls.map((c) => c.text)).toEqual(['k0', 'k1', 'k2', 'k3']);
    app.calls[0]!.answer(503); // k0 fails while k1..k3 are already sent
    await settle(t);
    expect(app.calls).toHaveLength(4); // nothing more is sent
    app.calls[1]!.answer(200); // k1 went ahead of k0
    app.calls[2]!.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    app.calls[3]!.answer(200);
    await waitFor(
      () => t.get(ids[3]!)!.attempts.length === 1 && t.status()[0]!.nextRetryAt !== null,
      5_000,
      'the window recorded',
    );
    expect(t.get(ids[0]!)!.forwardState).toBe('pending');
    const k1 = t.get(ids[1]!)!;
    expect(k1.forwardState).toBe('delivered');
    expect(k1.attempts[0]!.aheadOf).toBe(ids[0]);
    expect(t.get(ids[2]!)!.forwardState).toBe('pending');
    // Said in words, not as the socket's error code.
    expect(t.get(ids[2]!)!.attempts[0]!.error).toBe('the local app closed the connection before answering');
    expect(t.get(ids[3]!)!.attempts[0]!.aheadOf).toBe(ids[0]);
    expect(t.status()[0]).toMatchObject({ pending: 4, lastError: 'HTTP 503' });

    // The retry goes one at a time, k0 first, then k2 (k1 and k3 are done), then k4.
    await clock.advance(500);
    const next = async (n: number, texts: string[]) => {
      await waitFor(() => app.calls.length >= n + texts.length, 5_000, texts.join());
      await settle(t);
      expect(app.calls.slice(n).map((c) => c.text)).toEqual(texts);
    };
    await next(4, ['k0']);
    app.calls[4]!.answer(200);
    await next(5, ['k2']);
    app.calls[5]!.answer(200);
    await next(6, ['k4']);
    // Healthy again only after 5 s without a failure: then the window opens again.
    await clock.advance(5_000);
    app.calls[6]!.answer(200);
    await next(7, ['k5']);
    await injectMany(t, 'a', ['k6', 'k7', 'k8']);
    await next(7, ['k5', 'k6', 'k7', 'k8']);
    for (const c of app.calls.slice(7)) c.answer(200);
    await waitFor(() => t.status()[0]!.pending === 0, 5_000, 'all delivered');
    expect(t.status()[0]).toMatchObject({ pending: 0, localAppDownSince: null });
  });

  it('records attempts without a sync each, and they are on disk after stop', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const clock = new FakeClock(T0);
    const app = manualTransport(4);
    const t = await makeTunnel(dir, clock, app.transport);
    const ids = await injectMany(t, 'a', ['d0', 'd1']);
    await waitFor(() => app.calls.length === 2, 5_000, 'both sent');
    app.calls[0]!.answer(200);
    app.calls[1]!.answer(200);
    await waitFor(() => ids.every((id) => t.get(id)!.forwardState === 'delivered'), 5_000, 'both recorded');
    await t.stop();
    const again = await makeTunnel(dir, clock, manualTransport(4).transport);
    cleanups.push(() => again.stop());
    for (const id of ids) expect(again.get(id)!.forwardState).toBe('delivered');
  });
});

/** A local app that holds its answers until told, and notes which connection each request came on. */
async function holdingApp() {
  const seen: Array<{ n: number; conn: number }> = [];
  const held: Array<{ n: number; res: ServerResponse }> = [];
  const sockets = new Map<Socket, number>();
  let conns = 0;
  let onRequest: (n: number, req: IncomingMessage, res: ServerResponse) => boolean = () => true;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = Number(Buffer.concat(chunks).toString('utf8'));
      seen.push({ n, conn: sockets.get(req.socket)! });
      if (onRequest(n, req, res)) held.push({ n, res });
    });
  });
  server.on('connection', (s: Socket) => sockets.set(s, ++conns));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    held,
    setOnRequest: (fn: typeof onRequest) => (onRequest = fn),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function send(transport: Transport, url: string, n: number): Promise<ForwardResponse> {
  const cancel = new Cancel();
  return transport({
    url,
    headers: { 'content-type': 'text/plain' },
    body: Buffer.from(String(n)),
    lane: 'agent-1',
    cancel,
    get signal() {
      return cancel.signal;
    },
  });
}

describe('undici transport lanes', () => {
  it('pipelines the requests of a lane on one connection, in order', async () => {
    const app = await holdingApp();
    cleanups.push(app.close);
    const { transport, close } = createUndiciTransport(undefined, { pipelining: 4 });
    cleanups.push(close);
    const answers = [0, 1, 2, 3].map((n) => send(transport, app.url, n));
    // All four reach the app before any is answered: they are pipelined.
    await waitFor(() => app.seen.length === 4, 5_000, 'four pipelined requests');
    for (const h of app.held) h.res.end('ok');
    const results = await Promise.all(answers);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results[0]!.body).toBe('ok');
    expect(app.seen).toEqual([0, 1, 2, 3].map((n) => ({ n, conn: 1 })));
  });

  it('fails the rest of a broken pipeline instead of re-sending it on a new connection', async () => {
    const app = await holdingApp();
    cleanups.push(app.close);
    // The app answers 0, then drops the connection when it reads 1 (as if it crashed on it).
    app.setOnRequest((n, req, res) => {
      if (n === 0) {
        res.end('ok');
        return false;
      }
      if (n === 1) {
        req.socket.destroy();
        return false;
      }
      return true;
    });
    const { transport, close } = createUndiciTransport(undefined, { pipelining: 4 });
    cleanups.push(close);
    const outcomes = await Promise.allSettled([0, 1, 2, 3].map((n) => send(transport, app.url, n)));
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { status: 200 } });
    expect(outcomes.slice(1).every((o) => o.status === 'rejected')).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    // Nothing of that window reached the app on another connection.
    expect(app.seen.filter((s) => s.conn !== 1)).toEqual([]);
    // The lane works again afterwards, on a fresh connection.
    app.setOnRequest((_n, _req, res) => {
      res.end('again');
      return false;
    });
    const r = await send(transport, app.url, 9);
    expect(r).toEqual({ status: 200, body: 'again' });
    expect(app.seen.at(-1)!.n).toBe(9);
    expect(app.seen.at(-1)!.conn).toBeGreaterThan(1);
  });
});
