// The hub's /hooks under hostile input, on a real replica and Postgres, as the desktop receiver's tests do
// (test/unit/core/tunnel/hostile.test.ts, receiver-limits.test.ts, receiver-cases.test.ts): a body over the
// limit and bodies over the bytes in flight are refused at once and nothing is stored; a body sent a byte a
// second is cut at the request timeout while other deliveries are answered; a stale or future signature is
// refused 401 with its reason and kept as a refusal, not a delivery; a body that is not JSON with a valid
// signature is taken as the desktop takes it; an unknown agent is 404; a replayed delivery is one row.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefusedRequestDTO } from '../../../src-shared/contract';
import { signDelivery } from '../../../src-main/core/signature';
import type { Emulator } from '../../../src-main/emulator';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { runCli } from '../../helpers/cli';
import { waitFor } from '../../helpers/wait';
import { startPostgres, type TestPostgres } from './postgres';
import {
  addMember,
  hubCall,
  inboundBody,
  postHook,
  sqlRows,
  startHubReplica,
  stopAll,
  teamWithHook,
  type HubReplica,
} from './support';

const AGENT = 'agent-connected';
const PUBLIC_URL = 'https://hub.example.test';
/** The receiver's body limit and its bytes of bodies in flight (core/tunnel/receiver.ts). */
const BODY_LIMIT = 5 * 1024 * 1024;
const MAX_IN_FLIGHT = 64 * 1024 * 1024;
/** The hub's request timeout (src-main/hub/server.ts). */
const REQUEST_TIMEOUT_MS = 30_000;

interface RawAnswer {
  /** The status line's code, or null when the connection closed without an answer. */
  status: number | null;
  text: string;
  closedAt: number;
}

/** A raw connection to the replica: the request head written at once, the rest as the test writes it. */
function rawRequest(origin: string, head: string): { socket: Socket; answer: Promise<RawAnswer> } {
  const u = new URL(origin);
  const socket = connect(Number(u.port), u.hostname);
  socket.write(head);
  let text = '';
  socket.setEncoding('utf8').on('data', (c: string) => (text += c));
  socket.on('error', () => undefined);
  const answer = new Promise<RawAnswer>((resolve) =>
    socket.once('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text, closedAt: Date.now() });
    }),
  );
  return { socket, answer };
}

const headOf = (agentId: string, headers: Record<string, string>, length: number): string =>
  [
    `POST /hooks/${agentId} HTTP/1.1`,
    'host: hub.example.test',
    'content-type: application/json',
    `content-length: ${length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');

describe('hostile deliveries to the hub', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  let token: string;
  let secret: string;
  let replica: HubReplica;

  const call = <T = unknown>(name: string, body: unknown = {}): Promise<T> =>
    hubCall<T>(replica.origin, token, name, body);
  const rowCount = async (): Promise<number> =>
    Number((await sqlRows<{ n: string }>(db.url, 'select count(*) as n from hub_deliveries'))[0]!.n);
  const rowsOf = (key: string) =>
    sqlRows<{ delivery_id: string }>(db.url, 'select delivery_id from hub_deliveries where key = $1', [key]);
  /** A delivery that must be taken: 200, stored once. */
  const deliverOne = async (): Promise<void> => {
    const id = `wamid.ok-${randomUUID()}`;
    const res = await postHook(replica.origin, AGENT, secret, inboundBody(id));
    expect(res.status, await res.text()).toBe(200);
    expect(await rowsOf(id)).toHaveLength(1);
  };
  const refusals = () => call<RefusedRequestDTO[]>('tunnel.refused', { limit: 100 });

  beforeAll(async () => {
    [db, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-hostile-'));
    token = await addMember(db.url, 'ada', 'admin');
    replica = await startHubReplica({
      databaseUrl: db.url,
      secretKey: randomBytes(32).toString('base64'),
      dir,
      name: 'a',
      publicUrl: PUBLIC_URL,
    });
    // Registered through the hub: the hook is the hub's, the secret the service answered is kept by the hub.
    ({ secret } = await teamWithHook(replica.origin, token, {
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agentId: AGENT,
      publicUrl: PUBLIC_URL,
    }));
  }, 180_000);

  afterAll(async () => {
    if (replica) await stopAll([replica.proc], 'SIGTERM');
    await Promise.allSettled([db?.stop(), emu?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a body over the limit is answered 413 at once and not stored (declared or streamed); the replica goes on', async () => {
    const before = await rowCount();
    // Declared: refused from its head, the body not read.
    const huge = Buffer.alloc(BODY_LIMIT + 1, 0x20);
    const declared = await postHook(replica.origin, AGENT, secret, huge.toString('latin1'));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ ok: false, reason: 'body-too-large', limitBytes: BODY_LIMIT });

    // Streamed without a length (chunked): cut once it passes the limit.
    const chunked = rawRequest(
      replica.origin,
      [
        `POST /hooks/${AGENT} HTTP/1.1`,
        'host: x',
        'transfer-encoding: chunked',
        'content-type: application/json',
        '',
        '',
      ].join('\r\n'),
    );
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 8 && !chunked.socket.destroyed; i++)
      chunked.socket.write(`${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`);
    const cut = await chunked.answer;
    expect(cut.status).toBe(413);
    expect(cut.text).toContain('body-too-large');

    expect(await rowCount()).toBe(before);
    const refused = await refusals();
    expect(refused.filter((r) => r.reason === 'too-large' && r.agentId === AGENT).length).toBeGreaterThanOrEqual(2);
    expect((await fetch(`${replica.origin}/healthz`)).status).toBe(200);
    await deliverOne();
  }, 60_000);

  it('bodies over the bytes in flight: the next one is answered 503 with Retry-After at once, small ones still go through', async () => {
    const before = await rowCount();
    // Bodies at the limit, declared and never sent, hold their length in flight.
    const holders = Array.from({ length: Math.floor(MAX_IN_FLIGHT / BODY_LIMIT) }, () =>
      rawRequest(replica.origin, headOf(AGENT, {}, BODY_LIMIT)),
    );
    try {
      await waitFor(
        async () => {
          const one = rawRequest(replica.origin, headOf(AGENT, {}, BODY_LIMIT));
          const timer = setTimeout(() => one.socket.destroy(), 2_000);
          const a = await one.answer;
          clearTimeout(timer);
          if (a.status !== 503) return false;
          expect(a.text.toLowerCase()).toContain('retry-after: 2');
          expect(a.text).toContain('"reason":"busy"');
          return true;
        },
        20_000,
        'a 503 for the body over the bytes in flight',
      );
      // A delivery of its own size still fits.
      await deliverOne();
    } finally {
      for (const h of holders) h.socket.destroy();
    }
    expect(await rowCount()).toBe(before + 1);
    expect((await refusals()).some((r) => r.reason === 'busy' && r.status === 503)).toBe(true);
  }, 60_000);

  it('a body sent a byte a second is cut at the request timeout (408), kept as a refusal and counted; deliveries meanwhile are answered; nothing stored', async () => {
    const id = `wamid.slow-${randomUUID()}`;
    const body = inboundBody(id);
    const sig = signDelivery(secret, body, Math.floor(Date.now() / 1000));
    const startedAt = Date.now();
    const slow = rawRequest(replica.origin, headOf(AGENT, sig, Buffer.byteLength(body)));
    let sent = 0;
    const drip = setInterval(() => {
      if (slow.socket.destroyed || sent >= body.length - 1) return;
      slow.socket.write(body[sent++]!);
    }, 1_000);
    try {
      // Other deliveries go on while it drips (one after every three of its bytes).
      for (let i = 1; i <= 3; i++) {
        await waitFor(() => sent >= 3 * i, 10_000, `${3 * i} bytes dripped`);
        await deliverOne();
      }
      const a = await slow.answer;
      // Cut once the request timeout passed (Node checks once a second), not left open.
      expect(a.closedAt - startedAt).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 1_000);
      expect(a.closedAt - startedAt).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
      expect(a.status).toBe(408);
    } finally {
      clearInterval(drip);
      slow.socket.destroy();
    }
    expect(sent).toBeLessThan(body.length - 1);
    expect(await rowsOf(id)).toHaveLength(0);
    // Kept among the refusals as the others are (tunnel.refused, what `deliveries refused` lists): the hook, the
    // reason, what of the body had come (its first bytes, as any refusal keeps them); the signature's secret never.
    const cut = (await refusals()).find((r) => r.status === 408 && r.prefix.length > 0 && body.startsWith(r.prefix));
    expect(cut).toMatchObject({ reason: 'bad-request', method: 'POST', path: `/hooks/${AGENT}`, agentId: AGENT });
    expect(cut!.size).toBeGreaterThanOrEqual(9);
    expect(cut!.size).toBeLessThan(Buffer.byteLength(body));
    expect(cut!.detail).toMatch(/did not arrive in time: \d+ of \d+ bytes of its body had come/);
    expect(JSON.stringify(cut)).not.toContain(secret);
    const cli = await runCli(['deliveries', 'refused', '--agent', AGENT, '--reason', 'bad-request', '--json'], {
      configDir: path.join(dir, 'laptop'),
      env: { CHANNEL_HUB_URL: replica.origin, CHANNEL_HUB_TOKEN: token },
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json()).toContainEqual(expect.objectContaining({ id: cut!.id, status: 408, path: `/hooks/${AGENT}` }));
    // Counted in the replica's metrics with the other refusals.
    const metrics = await fetch(`${replica.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(await metrics.text()).toMatch(
      /^channel_companion_tunnel_refused_total\{reason="bad-request",status="408"\} 1$/m,
    );
    await deliverOne();
  }, 90_000);

  // A minute past the 300 s tolerance: the signer's clock and the replica's are read a moment apart.
  it.each([
    ['stale-timestamp', -360],
    ['future-timestamp', 360],
  ])('a %s signature is refused 401 with the reason, kept as a refusal, nothing stored', async (reason, skew) => {
    const id = `wamid.${reason}-${randomUUID()}`;
    const body = inboundBody(id);
    const res = await postHook(replica.origin, AGENT, secret, body, Math.floor(Date.now() / 1000) + skew);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ ok: false, reason });
    expect(await rowsOf(id)).toHaveLength(0);
    const r = (await refusals()).find((x) => x.reason === reason && x.prefix === body.slice(0, 256));
    expect(r).toMatchObject({ agentId: AGENT, status: 401, size: Buffer.byteLength(body) });
    expect(r!.detail.length).toBeGreaterThan(0);
    const inbox = await sqlRows(db.url, 'select 1 from hub_messages where key = $1', [id]);
    expect(inbox).toHaveLength(0);
  });

  it('a body that is not JSON, validly signed, is taken as the desktop takes it (stored once, noted, no message)', async () => {
    const body = `{"event":"message.received","message":{"id":"wamid.broken-${randomUUID()}"`;
    const res = await postHook(replica.origin, AGENT, secret, body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { ok: boolean; deliveryId: string };
    expect(answer.ok).toBe(true);
    const rows = await sqlRows<{ verdict: string; full: { reason: string; note?: string } }>(
      db.url,
      "select verdict, delivery->'verdict' as full from hub_deliveries where delivery_id = $1",
      [answer.deliveryId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ verdict: 'verified', full: { reason: 'verified', note: 'not-json' } });
    const detail = await call<{ rawBody: string }>('tunnel.delivery', { id: answer.deliveryId });
    expect(detail.rawBody).toBe(body);
    await deliverOne();
  });

  it('an unknown agent is 404 and nothing is stored', async () => {
    const before = await rowCount();
    const res = await postHook(replica.origin, 'nobody-here', secret, inboundBody(`wamid.${randomUUID()}`));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, reason: 'unknown-agent' });
    expect(await rowCount()).toBe(before);
    expect((await refusals()).some((r) => r.reason === 'unknown-agent' && r.path === '/hooks/nobody-here')).toBe(true);
  });

  it('a replayed delivery (the same bytes and signature, then the same message id signed again) is one row', async () => {
    const id = `wamid.replay-${randomUUID()}`;
    const body = inboundBody(id);
    const headers = {
      'content-type': 'application/json',
      ...signDelivery(secret, body, Math.floor(Date.now() / 1000)),
    };
    const send = (h: Record<string, string>) =>
      fetch(`${replica.origin}/hooks/${AGENT}`, { method: 'POST', headers: h, body });
    const first = await send(headers);
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { deliveryId: string; duplicate?: boolean };
    expect(firstBody.duplicate).toBeFalsy();
    for (const again of [
      await send(headers),
      await send({ 'content-type': 'application/json', ...signDelivery(secret, body, Math.floor(Date.now() / 1000)) }),
    ]) {
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ duplicate: true });
    }
    expect(await rowsOf(id)).toEqual([{ delivery_id: firstBody.deliveryId }]);
    const inbox = await sqlRows(db.url, 'select 1 from hub_messages where key = $1', [id]);
    expect(inbox.length).toBeLessThanOrEqual(1);
  });
});
