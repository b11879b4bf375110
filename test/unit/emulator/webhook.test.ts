import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../../src-main/core/signature';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, ctl, emulatorSuite, waitFor } from './helpers';
import { startReceiver } from './receiver';

const KEY = 'key-webhook-aaaa';

describe('emulator: webhook and signed deliveries', () => {
  let emu: Emulator;
  let api: Api;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx.close());
  const clock = emulatorSuite(
    KEY,
    {
      seed: {
        teams: [
          {
            id: 't1',
            apiKey: KEY,
            agents: [{ agentId: 'on', state: 'connected', phone: '15550001111' }, { agentId: 'off' }],
          },
        ],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );
  beforeEach(() => {
    rx.received.length = 0;
    rx.onRequest((_n, res) => res.writeHead(200).end('ok'));
  });

  const secretNow = async () => (await api.webhook('on', { url: rx.url })).body.secret as string;
  /** Waits until the delivery loop sleeps for exactly `ms` (the previous attempt has finished). */
  const backoffScheduled = (ms: number) => waitFor(() => clock.pendingDelays().join() === String(ms));
  const verify = (i: number, secret: string, now = Math.floor(clock.now() / 1000)) =>
    verifyDelivery({ headers: rx.received[i]!.headers, rawBody: rx.received[i]!.raw, secrets: [secret], now });

  it('PUT webhook returns passthrough config with a fresh secret each time; bad url → 400', async () => {
    const a = await api.webhook('on', { url: rx.url });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      mode: 'passthrough',
      url: rx.url,
      secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
      events: ['message.received'],
      updatedAt: new Date(clock.now()).toISOString(),
    });
    expect(a.headers.get('x-ratelimit-limit')).toBe('60');
    const b = await api.webhook('on', { url: rx.url });
    expect(b.body.secret).not.toBe(a.body.secret);
    for (const bad of [{ url: 'ftp://x.y/z' }, { url: 'not a url' }, {}, undefined]) {
      const r = await api.webhook('on', bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
    const state = await emu.control.state();
    expect(state.webhooks).toEqual([
      { agentId: 'on', mode: 'passthrough', url: rx.url, updatedAt: expect.any(String) },
    ]);
    expect(JSON.stringify(state)).not.toContain(b.body.secret);
  });

  it('delivers an inbound text, signed with both headers, verifiable', async () => {
    const secret = await secretNow();
    const r = await ctl(emu, 'POST', '/agents/on/inbound', { from: '+15557654321', type: 'text', text: 'hi there' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ messageId: expect.any(String), deliveryId: expect.any(String) });
    await emu.control.deliveriesIdle();
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    expect(got.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers['x-service-signature-v1']).toMatch(
      new RegExp(`^t=${Math.floor(clock.now() / 1000)},v1=[0-9a-f]{64}$`),
    );
    expect(verify(0, secret)).toMatchObject({ ok: true, reason: 'verified' });
    expect(got.json).toEqual({
      event: 'message.received',
      from: '15557654321',
      message: { id: r.body.messageId, type: 'text', text: 'hi there', fromMe: false },
      timestamp: new Date(clock.now()).toISOString(),
    });
    const [d] = emu.control.deliveries();
    expect(d).toMatchObject({
      id: r.body.deliveryId,
      agentId: 'on',
      url: rx.url,
      messageId: r.body.messageId,
      delivered: true,
      status: 'delivered',
      body: got.json,
    });
    expect(d!.rawBody).toBe(got.raw.toString('utf8'));
    expect(d!.attempts).toEqual([
      { at: new Date(clock.now()).toISOString(), status: 200, error: null, durationMs: expect.any(Number) },
    ]);
  });

  it('an image event carries media pointing at the service download endpoint', async () => {
    await secretNow();
    const r = await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', type: 'image', caption: 'look' });
    await emu.control.deliveriesIdle();
    expect(rx.received[0]!.json).toMatchObject({
      message: { id: r.body.messageId, type: 'image', text: 'look', caption: 'look', fromMe: false },
      media: {
        url: `${emu.baseUrl}/api/v1/agents/on/whatsapp/media/${r.body.messageId}`,
        mimeType: 'image/png',
        filename: `image-${r.body.messageId}.png`,
        size: expect.any(Number),
      },
    });
  });

  it('retries non-2xx with backoff 1 s, 2 s …: same bytes and message.id, fresh signature timestamp', async () => {
    const secret = await secretNow();
    rx.onRequest((n, res) => res.writeHead(n <= 2 ? 500 : 204).end());
    const t0 = clock.now();
    await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', text: 'retry me' });
    await backoffScheduled(1000);
    await clock.advance(999);
    expect(rx.received).toHaveLength(1);
    await clock.advance(1);
    await backoffScheduled(2000);
    expect(rx.received).toHaveLength(2);
    await clock.advance(2000);
    await waitFor(() => rx.received.length === 3);
    await emu.control.deliveriesIdle();
    const [d] = emu.control.deliveries();
    expect(d!.delivered).toBe(true);
    expect(d!.attempts.map((a) => [Date.parse(a.at) - t0, a.status])).toEqual([
      [0, 500],
      [1000, 500],
      [3000, 204],
    ]);
    expect(d!.attempts[0]!.error).toBe('HTTP 500');
    expect(rx.received[0]!.raw.equals(rx.received[2]!.raw)).toBe(true);
    expect(new Set(rx.received.map((x) => x.json.message.id)).size).toBe(1);
    const stamps = rx.received.map((x) => String(x.headers['x-service-signature-v1']).split(',')[0]);
    expect(new Set(stamps).size).toBe(3);
    expect(verify(2, secret)).toMatchObject({ ok: true });
    expect(rx.received.map((x) => x.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
  });

  it('gives up after 5 tries; a receiver that never answers times out', async () => {
    await secretNow();
    rx.onRequest((n, res) => {
      if (n === 1) return; // hang: the emulator must time out
      res.writeHead(503).end();
    });
    await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', text: 'doomed' });
    await waitFor(() => rx.received.length === 1);
    await clock.advance(10_000);
    for (const wait of [1000, 2000, 4000, 8000]) {
      await backoffScheduled(wait);
      await clock.advance(wait);
    }
    await waitFor(() => rx.received.length === 5);
    await emu.control.deliveriesIdle();
    const [d] = emu.control.deliveries();
    expect(d!.status).toBe('failed');
    expect(d!.delivered).toBe(false);
    expect(d!.attempts).toHaveLength(5);
    expect(d!.attempts[0]).toMatchObject({ status: null, error: 'no answer within 10000 ms', durationMs: 10_000 });
    expect(d!.attempts[4]).toMatchObject({ status: 503 });
  });

  it('delivers in order per agent: the next waits for the previous', async () => {
    await secretNow();
    const answers: Array<() => void> = [];
    rx.onRequest((_n, res) => answers.push(() => res.writeHead(200).end()));
    for (const text of ['one', 'two', 'three'])
      await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', text });
    await waitFor(() => rx.received.length === 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(rx.received).toHaveLength(1);
    answers.shift()!();
    await waitFor(() => rx.received.length === 2);
    answers.shift()!();
    await waitFor(() => rx.received.length === 3);
    answers.shift()!();
    await emu.control.deliveriesIdle();
    expect(rx.received.map((x) => x.json.message.text)).toEqual(['one', 'two', 'three']);
  });

  it('signs with the skewed clock', async () => {
    const secret = await secretNow();
    expect((await ctl(emu, 'POST', '/clock-skew', { seconds: 600 })).body).toEqual({ seconds: 600 });
    await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', text: 'from the future' });
    await emu.control.deliveriesIdle();
    expect(verify(0, secret)).toMatchObject({ ok: false, reason: 'future-timestamp' });
    expect(verify(0, secret, Math.floor(clock.now() / 1000) + 600)).toMatchObject({ ok: true });
    expect((await ctl(emu, 'POST', '/clock-skew', { seconds: 'x' })).status).toBe(400);
  });

  it('without a webhook the message is stored but not delivered; bad inbound is rejected', async () => {
    const r = await ctl(emu, 'POST', '/agents/on/inbound', {
      from: '15557654321',
      type: 'document',
      filename: 'r.pdf',
    });
    expect(r.body.deliveryId).toBeNull();
    expect((await api.media('on', r.body.messageId)).status).toBe(302);
    expect(emu.control.deliveries()).toHaveLength(0);
    expect((await ctl(emu, 'POST', '/agents/on/inbound', { from: 'abc', text: 'x' })).status).toBe(400);
    const noText = await ctl(emu, 'POST', '/agents/on/inbound', { from: '15557654321', type: 'text' });
    expect(noText.status).toBe(400);
    expect(noText.body.error.message).toContain('text');
    expect((await ctl(emu, 'POST', '/agents/off/inbound', { from: '15557654321', text: 'x' })).status).toBe(409);
    expect((await ctl(emu, 'POST', '/agents/ghost/inbound', { from: '15557654321', text: 'x' })).status).toBe(404);
  });
});
