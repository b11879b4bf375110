// Replay (both modes), simulate (trigger), curl export (run for real) and JSON fixtures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Tunnel, type DeliveryDetail } from '../../../../src-main/core/tunnel';
import { toCurl } from '../../../../src-main/core/tunnel/export';
import { composeInboundEvent } from '../../../../src-main/core/tunnel/simulate';
import { verifyDelivery } from '../../../../src-main/core/signature';
import { FakeClock, rawRequest, tempDir } from './helpers';

const run = promisify(execFile);
const SECRET = 'whsec_replay_secret';
const T0 = 1_750_000_000_000;

/** A local app that checks the HMAC itself over the raw body, on the test's clock. */
function strictApp(clock: FakeClock) {
  const got: Array<{ body: Buffer; headers: Record<string, string | string[] | undefined>; reason: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const v = verifyDelivery({
        headers: req.headers,
        rawBody: body,
        secrets: [SECRET],
        now: Math.floor(clock.now() / 1000),
      });
      got.push({ body, headers: req.headers, reason: v.reason });
      res.writeHead(v.ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ reason: v.reason }));
    });
  });
  return { server, got };
}

describe('replay, trigger and export', () => {
  const clock = new FakeClock(T0);
  const app = strictApp(clock);
  let appUrl = '';
  let tunnel: Tunnel;
  let base = '';
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', () => r()));
    appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhook`;
    const t = await tempDir();
    cleanup = t.cleanup;
    tunnel = new Tunnel({ dataDir: t.dir, clock, getSecrets: async () => [SECRET], forward: { defaultUrl: appUrl } });
    base = (await tunnel.start()).url;
  });
  afterAll(async () => {
    await tunnel.stop();
    await new Promise<void>((r) => app.server.close(() => r()));
    await cleanup();
  });

  it('trigger composes the emulator-shaped event, signs it, stores it as simulated and forwards it', async () => {
    const r = await tunnel.trigger({ agentId: 'agent-1', type: 'image', from: '+15550100009', caption: 'a cat' });
    expect(Object.keys(r.event)).toEqual(['event', 'from', 'message', 'media', 'timestamp']);
    expect(r.event).toMatchObject({
      event: 'message.received',
      from: '15550100009',
      message: { type: 'image', text: 'a cat', fromMe: false, caption: 'a cat' },
      media: { mimeType: 'image/png' },
    });
    expect(r.delivery.simulated).toBe(true);
    expect(r.delivery.verdict.reason).toBe('verified');
    const a = await r.forwarded;
    expect(a?.status).toBe(200);
    expect(app.got.at(-1)!.reason).toBe('verified');
    expect(tunnel.get(r.delivery.id)!.forwardState).toBe('delivered');
  });

  it('composes text, image and document events in the emulator key order', () => {
    const ctx = { agentId: 'ag', nowMs: T0, serviceBaseUrl: 'http://127.0.0.1:1', newMessageId: () => 'wamid_x' };
    const text = composeInboundEvent({ type: 'text', from: '15550100002', text: 'hi' }, ctx);
    expect(JSON.stringify(text)).toBe(
      '{"event":"message.received","from":"15550100002","message":{"id":"wamid_x","type":"text","text":"hi","fromMe":false},"timestamp":"2025-06-15T15:06:40.000Z"}',
    );
    const doc = composeInboundEvent({ type: 'document', from: '15550100002', filename: 'a.pdf' }, ctx);
    expect(doc.media).toEqual({
      url: 'http://127.0.0.1:1/api/v1/agents/ag/whatsapp/media/wamid_x',
      mimeType: 'application/pdf',
      filename: 'a.pdf',
      size: 1024,
    });
    expect(() => composeInboundEvent({ type: 'text', from: 'not a phone' }, ctx)).toThrow();
  });

  it('replays as-received (accepted in the window, rejected after) and re-signed (accepted, edited body)', async () => {
    const body = JSON.stringify({
      event: 'message.received',
      from: '15550100002',
      message: { id: 'wamid_replay', type: 'text', text: 'replay me', fromMe: false },
      timestamp: 'x',
    });
    const { signDelivery } = await import('../../../../src-main/core/signature');
    const res = await rawRequest(`${base}/hooks/agent-1`, {
      headers: { 'content-type': 'application/json', ...signDelivery(SECRET, body, T0 / 1000) },
      body,
    });
    expect(res.status).toBe(200);
    const id = res.json!.deliveryId as string;
    await tunnel.idle();
    expect(tunnel.get(id)!.forwardState).toBe('delivered');

    const a1 = await tunnel.replay(id, { mode: 'as-received' });
    expect(a1).toMatchObject({ status: 200, replay: 'as-received' });
    await clock.advance(10 * 60_000);
    const a2 = await tunnel.replay(id, { mode: 'as-received' });
    expect(a2).toMatchObject({ status: 401, replay: 'as-received' });
    expect(app.got.at(-1)!.reason).toBe('stale-timestamp');
    expect(app.got.at(-1)!.body.toString()).toBe(body);

    const a3 = await tunnel.replay(id, { mode: 're-signed' });
    expect(a3).toMatchObject({ status: 200, replay: 're-signed' });
    const a4 = await tunnel.replay(id, { mode: 're-signed', body: '{"edited":true}' });
    expect(a4.status).toBe(200);
    expect(app.got.at(-1)!.body.toString()).toBe('{"edited":true}');
    expect(app.got.at(-1)!.headers['x-channel-companion-replay']).toBe('re-signed');

    const d = tunnel.get(id)!;
    expect(d.attempts.filter((a) => a.replay).map((a) => a.replay)).toEqual([
      'as-received',
      'as-received',
      're-signed',
      're-signed',
    ]);
    expect(d.forwardState).toBe('delivered'); // replays never change the queue state
    await expect(tunnel.replay('nope', { mode: 'as-received' })).rejects.toThrow(/no delivery/);
  });

  it('exports a fixture with headers, raw body, base64 and verdict', async () => {
    const [item] = tunnel.list({ limit: 1 });
    const f = tunnel.exportFixture(item!.id);
    expect(Buffer.from(f.bodyBase64, 'base64').toString('utf8')).toBe(f.body);
    expect(f.verdict.reason).toBe(item!.verdict.reason);
    expect(f.headers['x-service-signature-v1']).toBeDefined();
    expect(JSON.parse(JSON.stringify(f))).toEqual(f);
  });

  describe('curl export reproduces identical bytes', () => {
    const hasCurl = existsSync('/usr/bin/curl') || existsSync('/bin/curl');
    let sink: Server;
    let sinkUrl = '';
    const seen: Array<{ body: Buffer; headers: Record<string, unknown>; url: string }> = [];
    beforeAll(async () => {
      sink = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.push({ body: Buffer.concat(chunks), headers: req.headers, url: req.url ?? '' });
          res.end('ok');
        });
      });
      await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
      sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/it's?v=$HOME`;
    });
    afterAll(() => new Promise<void>((r) => sink.close(() => r())));

    const detail = (body: Buffer): DeliveryDetail => ({
      kind: 'delivery',
      id: '01TEST',
      agentId: 'a',
      receivedAt: T0,
      method: 'POST',
      path: '/hooks/a',
      headers: {
        host: '127.0.0.1:4700',
        'content-length': String(body.length),
        connection: 'keep-alive',
        'content-type': 'application/json',
        'user-agent': 'channel-service/1',
        'x-delivery-id': 'dlv_42',
        'x-delivery-attempt': '2',
        'x-service-signature': "sha256=ab'cd",
        'x-service-signature-v1': 't=1,v1=ef',
      },
      bodyBase64: body.toString('base64'),
      verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
      summary: { event: null, from: null, messageId: null, type: null },
      forward: true,
      attempts: [],
      forwardState: 'delivered',
    });

    const bodies: Array<[string, Buffer, string]> = [
      [
        'json with quotes, backslashes, % and unicode',
        Buffer.from(`{"text":"it's a \\"test\\" 100% \\\\ é 🎉","n":"\\n"}\n`, 'utf8'),
        'bash',
      ],
      [
        'raw control bytes and invalid utf-8',
        Buffer.from([0x7b, 0x01, 0x1b, 0x7f, 0xff, 0xfe, 0x27, 0x5c, 0x0d, 0x0a, 0x09, 0x7d]),
        'bash',
      ],
      [
        'NUL bytes (printf fallback, plain sh)',
        Buffer.from([0x61, 0x00, 0x62, 0x25, 0x64, 0x00, 0x5c, 0x27, 0x30, 0x31]),
        'sh',
      ],
      ['empty body', Buffer.alloc(0), 'bash'],
    ];
    it.each(bodies)('%s', async (_n, body, shell) => {
      if (!hasCurl) throw new Error('curl is not installed on this machine');
      const cmd = toCurl(detail(body), { url: sinkUrl });
      if (shell === 'sh') expect(cmd.startsWith('printf ')).toBe(true);
      else expect(cmd).toContain("--data-binary $'");
      await run(shell, ['-c', cmd]);
      const got = seen.at(-1)!;
      expect(got.body.equals(body)).toBe(true);
      expect(got.headers['x-service-signature']).toBe("sha256=ab'cd");
      expect(got.headers['x-channel-companion-delivery']).toBe('01TEST');
      // Every header the delivery arrived with, the service's delivery id first among the ids.
      expect(got.headers['x-delivery-id']).toBe('dlv_42');
      expect(got.headers['x-delivery-attempt']).toBe('2');
      expect(got.headers['user-agent']).toBe('channel-service/1');
      expect(got.url).toBe("/it's?v=$HOME"); // quoted: nothing expanded
    });

    it('repeats every header but those of the connection, and without a forward address posts to a visible placeholder', () => {
      const cmd = toCurl(detail(Buffer.from('{}')));
      const sent = [...cmd.matchAll(/-H '([^:]+):/g)].map((m) => m[1]);
      expect(sent).toEqual([
        'content-type',
        'user-agent',
        'x-delivery-id',
        'x-delivery-attempt',
        'x-service-signature',
        'x-service-signature-v1',
        'x-channel-companion-tunnel',
        'x-channel-companion-delivery',
      ]);
      expect(cmd.endsWith(`'<FORWARD_URL>'`)).toBe(true);
    });
  });
});
