// The service client against the emulator: every endpoint, and every error of the table in
// docs/service-api.md §7 (plus the emulator's choices for the open ones, docs/service-assumptions.md).
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import {
  ChannelNotConfigured,
  ChannelReconnecting,
  InvalidRequest,
  KeyRejected,
  NetworkError,
  NotFound,
  QuotaExceeded,
  ServerError,
} from '../../src-main/core/api/errors';
import { type RetryInfo, type ServiceClient } from '../../src-main/core/api/service';
import { verifyDelivery } from '../../src-main/core/signature';
import type { Emulator } from '../../src-main/emulator';
import { DEMO_KEY, state, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';
import { FakeClock } from '../helpers/fake-clock';
import type { HttpSink } from '../helpers/http-sink';

let emu: Emulator;
let client: ServiceClient;
let sink: HttpSink;
let dir: string;

const A = 'agent-connected';
const requests = async () => (await state(emu)).counters.serviceRequests;

emulatorSuite('cc-client-', (s) => ({ emu, sink, dir } = s));
beforeEach(async () => {
  emu.control.reset();
  await client?.close();
  client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: DEMO_KEY });
});

describe('endpoints', () => {
  it('GET session: connected, unlinked (needsScan), reconnecting (no scan needed)', async () => {
    const c = await client.getSession(A);
    expect(c).toMatchObject({ connected: true, linked: true, needsScan: false, phone: '15550100001', qr: null });
    const u = await client.getSession('agent-unlinked');
    expect(u).toMatchObject({ connected: false, linked: false, needsScan: true, phone: null, qr: null });
    await emu.control.drop(A, { seconds: 30 });
    const r = await client.getSession(A);
    expect(r).toMatchObject({ connected: false, linked: true, needsScan: false, state: 'reconnecting' });
    expect(client.rateLimit.limit).toBe(60);
  });

  it('POST session starts pairing; GET shows the QR; a scan connects', async () => {
    await client.startPairing('agent-unlinked');
    const p = await client.getSession('agent-unlinked');
    expect(p.needsScan).toBe(true);
    expect(p.connected).toBe(false);
    expect(p.qr).toMatch(/^data:image\/png;base64,/);
    await emu.control.scan('agent-unlinked', { phone: '15550108888' });
    const c = await client.getSession('agent-unlinked');
    expect(c).toMatchObject({ connected: true, linked: true, needsScan: false, qr: null, phone: '15550108888' });
  });

  it('POST messages: text, image with caption, document with filename', async () => {
    const t = await client.send(A, { to: '+1 555 010 2000', text: 'hi' });
    expect(t).toMatchObject({ status: 'sent', to: '+15550102000' });
    expect(t.messageId).toBeTruthy();
    await client.send(A, { to: '15550102000@s.whatsapp.net', imageUrl: 'https://example.test/a.png', text: 'caption' });
    await client.send(A, {
      to: '+15550102000',
      documentUrl: 'https://example.test/a.pdf',
      documentFilename: 'report.pdf',
    });
    const sent = (await state(emu)).sentMessages;
    expect(sent.map((m) => m.type)).toEqual(['text', 'image', 'document']);
    expect(sent[1]).toMatchObject({ imageUrl: 'https://example.test/a.png', text: 'caption' });
    expect(sent[2]).toMatchObject({ documentFilename: 'report.pdf' });
    expect(client.rateLimit).toMatchObject({ limit: 60, remaining: 57 });
  });

  it('PUT webhook: passthrough + secret; inbound deliveries verify with it', async () => {
    const cfg = await client.setWebhook(A, sink.url);
    expect(cfg).toMatchObject({ mode: 'passthrough', url: sink.url });
    expect(cfg.secret.length).toBeGreaterThan(8);
    const before = sink.requests.length;
    const { messageId } = emu.control.inbound(A, { from: '15550102000', type: 'text', text: 'hello' });
    const got = await waitFor(() => sink.requests[before]);
    const event = JSON.parse(got.body.toString('utf8')) as { event: string; message: { id: string } };
    expect(event).toMatchObject({ event: 'message.received', message: { id: messageId } });
    const verdict = verifyDelivery({
      headers: got.headers as Record<string, string>,
      rawBody: got.body,
      secrets: [cfg.secret],
      now: Math.floor(Date.now() / 1000),
    });
    expect(verdict).toMatchObject({ ok: true, reason: 'verified' });
  });

  it('GET media: follows the redirect, bytes arrive, the key never reaches the media origin', async () => {
    const { messageId } = emu.control.inbound(A, {
      from: '15550102000',
      type: 'document',
      filename: 'notes.txt',
      mimeType: 'text/plain',
    });
    let progress = 0;
    const r = await client.downloadMedia(A, messageId, dir, { onProgress: (n) => (progress = n) });
    const bytes = await readFile(r.path);
    expect(bytes.length).toBe(r.bytes);
    expect(r.bytes).toBeGreaterThan(0);
    expect(progress).toBe(r.bytes);
    const s = await state(emu);
    expect(s.mediaRequests).toBeGreaterThanOrEqual(1);
    expect(s.mediaRequestsWithAuthorization).toBe(0);
  });

  it('GET media for an unknown message → NotFound', async () => {
    await expect(client.downloadMedia(A, 'no-such-message', dir)).rejects.toBeInstanceOf(NotFound);
  });

  it('GET contacts: exists and jid', async () => {
    await expect(client.checkContact(A, '+15550100002')).resolves.toEqual({
      phone: '15550100002',
      exists: true,
      jid: '15550100002@s.whatsapp.net',
    });
    await expect(client.checkContact(A, '15559990000')).resolves.toMatchObject({ exists: false });
  });

  it('PATCH settings: a subset changes, the reply has all three', async () => {
    await expect(client.updateSettings(A, { readReceipts: true })).resolves.toEqual({
      groups: false,
      readReceipts: true,
      deliveryReceipts: false,
    });
    await expect(client.updateSettings(A, { groups: true, readReceipts: false })).resolves.toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: false,
    });
  });

  it('POST chat: reply, conversation id kept per user_id, actions and usage', async () => {
    emu.control.setChatScript(A, { reply: 'Order 42 ships today.', actions: [{ name: 'lookup_order', orderId: 42 }] });
    const a = await client.chat(A, { message: 'where is my order?', user_id: 'u-1' });
    expect(a).toMatchObject({ reply: 'Order 42 ships today.', actions: [{ name: 'lookup_order' }] });
    expect(a.usage.totalTokens).toBeGreaterThan(0);
    const b = await client.chat(A, { message: 'thanks', user_id: 'u-1' });
    const c = await client.chat(A, { message: 'hi', user_id: 'u-2' });
    expect(b.conversationId).toBe(a.conversationId);
    expect(c.conversationId).not.toBe(a.conversationId);
  });

  it('POST chat (stream): tokens in order, then done with the metadata', async () => {
    emu.control.setChatScript(A, {
      tokens: ['Hel', 'lo', ', ', 'wörld'],
      tokenDelayMs: 2,
      actions: [{ name: 'greet' }],
    });
    const tokens: string[] = [];
    let done: unknown = null;
    for await (const ev of client.chatStream(A, { message: 'hi', user_id: 'u-s' })) {
      if (ev.type === 'token') tokens.push(ev.token);
      if (ev.type === 'done') done = ev.result;
    }
    expect(tokens).toEqual(['Hel', 'lo', ', ', 'wörld']);
    expect(done).toMatchObject({ reply: 'Hello, wörld', actions: [{ name: 'greet' }] });
  });

  it('POST chat (stream): a failure mid-stream becomes an error event; abort() stops it', async () => {
    emu.control.setChatScript(A, { tokens: ['a', 'b', 'c', 'd'], tokenDelayMs: 2, failAfterTokens: 2 });
    const events = [];
    for await (const ev of client.chatStream(A, { message: 'hi', user_id: 'u-f' })) events.push(ev);
    expect(events.filter((e) => e.type === 'token')).toHaveLength(2);
    expect(events.at(-1)!.type).toBe('error');

    emu.control.setChatScript(A, { tokens: Array.from({ length: 200 }, (_, i) => `t${i} `), tokenDelayMs: 20 });
    const stream = client.chatStream(A, { message: 'long', user_id: 'u-a' });
    let n = 0;
    for await (const ev of stream) {
      if (ev.type === 'token' && ++n === 3) stream.abort();
    }
    expect(n).toBeLessThan(20);
    await waitFor(async () => (await state(emu)).counters.activeStreams === 0);
  });
});

describe('errors of docs/service-api.md §7 and of docs/service-assumptions.md', () => {
  it('503 CHANNEL_RECONNECTING: retried with backoff, then sent once the drop ends', async () => {
    await emu.control.drop(A, { seconds: 1 });
    const retries: RetryInfo[] = [];
    const r = await client.send(A, { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    expect(r.status).toBe('sent');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING' } });
  });

  it('503 that outlasts the retries → ChannelReconnecting, retryable', async () => {
    await emu.control.drop(A, { seconds: 60 });
    const before = await requests();
    const err = await client.send(A, { to: '+15550102000', text: 'x' }, { maxRetries: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelReconnecting);
    expect((err as ChannelReconnecting).retryable).toBe(true);
    expect((await requests()) - before).toBe(2);
  });

  it('409 CHANNEL_NOT_CONFIGURED: not retried (one request)', async () => {
    const before = await requests();
    const err = await client.send('agent-unlinked', { to: '+15550102000', text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelNotConfigured);
    expect((err as ChannelNotConfigured).code).toBe('CHANNEL_NOT_CONFIGURED');
    expect((await requests()) - before).toBe(1);
  });

  it('429 with Retry-After: waited out and sent — never lost', async () => {
    emu.control.addFault({
      kind: '429',
      count: 1,
      pathPrefix: `/api/v1/agents/${A}/whatsapp/messages`,
      retryAfterSeconds: 1,
    });
    // The client's waits run on a manual clock: the retry goes out when, and only when, 1 s has passed on it.
    const clock = new FakeClock(Date.now());
    const waiting = createServiceClient({ baseUrl: emu.baseUrl, apiKey: DEMO_KEY, clock });
    try {
      const retries: RetryInfo[] = [];
      const sending = waiting.send(A, { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
      await waitFor(() => retries.length === 1, 5000, 'the 429');
      expect(retries).toEqual([
        expect.objectContaining({ delayMs: 1000, error: expect.objectContaining({ kind: 'rate-limited' }) }),
      ]);
      const before = await requests();
      await clock.advance(999);
      expect(await requests()).toBe(before);
      expect((await state(emu)).sentMessages).toHaveLength(0);
      await clock.advance(1);
      const r = await sending;
      expect(r.status).toBe('sent');
      expect(await requests()).toBe(before + 1);
      expect((await state(emu)).sentMessages).toHaveLength(1);
    } finally {
      await waiting.close();
    }
  });

  it('401 for a wrong key; the key is not in the error', async () => {
    const bad = createServiceClient({ baseUrl: emu.baseUrl, apiKey: 'wrong-key-0123456789' });
    try {
      const err = await bad.getSession(A).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeyRejected);
      expect(JSON.stringify((err as KeyRejected).toDTO())).not.toContain('wrong-key-0123456789');
      await expect(bad.send(A, { to: '+15550102000', text: 'x' })).rejects.toBeInstanceOf(KeyRejected);
    } finally {
      await bad.close();
    }
  });

  it("404 for an unknown agent or another team's agent", async () => {
    await expect(client.getSession('agent-missing')).rejects.toBeInstanceOf(NotFound);
    const other = emu.control.createTeam({ id: 'other', apiKey: 'other-team-key-123' });
    emu.control.createAgent(other.id, { agentId: 'other-agent', state: 'connected', phone: '15550109000' });
    await expect(client.getSession('other-agent')).rejects.toBeInstanceOf(NotFound);
  });

  it('402 QUOTA_EXCEEDED once the monthly quota is used; not retried', async () => {
    const team = emu.control.createTeam({ id: 'tiny', apiKey: 'tiny-team-key-123', monthlyQuota: 1 });
    emu.control.createAgent(team.id, { agentId: 'tiny-agent', state: 'connected', phone: '15550109001' });
    const c = createServiceClient({ baseUrl: emu.baseUrl, apiKey: team.apiKey });
    try {
      await c.send('tiny-agent', { to: '+15550102000', text: 'one' });
      const before = await requests();
      const err = await c.send('tiny-agent', { to: '+15550102000', text: 'two' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(QuotaExceeded);
      expect((await requests()) - before).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('400 INVALID_REQUEST from the service (text too long) → InvalidRequest, not retried', async () => {
    const before = await requests();
    const err = await client.send(A, { to: '+15550102000', text: 'x'.repeat(70_000) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequest);
    expect((err as InvalidRequest).status).toBe(400);
    expect((await requests()) - before).toBe(1);
  });

  it('a garbage recipient is rejected before any request', async () => {
    const before = await requests();
    await expect(client.send(A, { to: 'call me maybe', text: 'x' })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(client.checkContact(A, '12')).rejects.toBeInstanceOf(InvalidRequest);
    expect(await requests()).toBe(before);
  });

  it('500 on a send → ServerError (a send is not blindly repeated); a reset connection → NetworkError', async () => {
    emu.control.addFault({ kind: '500', count: 1, pathPrefix: `/api/v1/agents/${A}/whatsapp/messages` });
    await expect(client.send(A, { to: '+15550102000', text: 'x' })).rejects.toBeInstanceOf(ServerError);
    expect((await state(emu)).sentMessages).toHaveLength(0);
    emu.control.addFault({ kind: 'reset', count: 1, pathPrefix: `/api/v1/agents/${A}/whatsapp/messages` });
    await expect(client.send(A, { to: '+15550102000', text: 'x' })).rejects.toBeInstanceOf(NetworkError);
  });
});
