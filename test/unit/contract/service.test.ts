// The requests that call the service through a team's client, over a fake client: what reaches the
// client, what the answer carries, and the send.progress events of a queued or retried send.
import { describe, expect, it, vi, type Mock } from 'vitest';
import { PairingClock, pairingReads } from '../../../src-main/app/contract/pairing';
import { serviceRequests } from '../../../src-main/app/contract/service';
import { Aborted, ChannelReconnecting, NotFound, RateLimited } from '../../../src-main/core/api/errors';
import { toErrorDTO } from '../../../src-main/app/errors';
import type { AnyEvent } from '../../../src-shared/contract';
import type { ServiceDeps } from '../../../src-main/app/contract/service';

type TeamClient = Awaited<ReturnType<ServiceDeps['clientFor']>>;

type FakeClient = { [K in keyof TeamClient]: Mock<TeamClient[K]> };

function setup(sendMonitor?: {
  isReconnecting: Mock<(t: string, a: string) => boolean>;
  pollSoon: Mock<(t: string, a: string) => void>;
}) {
  const client: FakeClient = {
    startPairing: vi.fn(async () => null),
    getSession: vi.fn(async () => ({
      connected: false,
      linked: false,
      state: 'pairing',
      needsScan: true,
      phone: null,
      qr: 'data:image/png;base64,AAAA',
    })),
    send: vi.fn(async (_agentId, req) => ({ status: 'sent', messageId: 'm1', to: req.to })),
    checkContact: vi.fn(async (_a, phone) => ({ phone, exists: true, jid: `${phone}@s.whatsapp.net` })),
    updateSettings: vi.fn(async (_a, patch) => ({
      groups: false,
      readReceipts: false,
      deliveryReceipts: false,
      ...patch,
    })),
    sendBudget: vi.fn(() => ({ limit: 60, windowMs: 60_000, used: 3, queued: [] })),
    cancelQueued: vi.fn(() => true),
  } as never;
  const seen: AnyEvent[] = [];
  const registerWebhook = vi.fn(async (_teamId: string, _agentId: string, url: string) => ({
    mode: 'passthrough',
    url,
    events: ['message.received'],
    updatedAt: '2025-01-15T12:00:00Z',
  }));
  const clientFor = vi.fn(async (_teamId: string) => client);
  const monitor = { lastRead: vi.fn(() => undefined), pollSoon: vi.fn() };
  const now = { t: 1_000_000 };
  const pairing = pairingReads(new PairingClock(), monitor, () => now.t);
  const requests = serviceRequests({
    clientFor,
    registerWebhook,
    publish: (name, payload) => seen.push({ name, payload } as AnyEvent),
    pairing,
    teamLabel: (t) => (t === 't1' ? 'Ops' : t),
    ...(sendMonitor ? { monitor: sendMonitor } : {}),
  });
  return { client, seen, registerWebhook, clientFor, requests, monitor, now };
}

describe('service requests', () => {
  it('publishes send.progress for queued and retrying sends, tagged with clientRef', async () => {
    const { client, seen, requests, clientFor } = setup();
    client.send.mockImplementationOnce(async (_agent, req, opts) => {
      opts?.onQueued?.({ id: 'q-7', position: 2, waitMs: 1500 });
      opts?.onRetry?.({ attempt: 1, delayMs: 500, error: new RateLimited().toDTO() });
      return { status: 'sent', messageId: 'm9', to: req.to };
    });
    const r = await requests['send.message']({
      teamId: 't1',
      agentId: 'a1',
      to: '15551234567',
      text: 'hi',
      clientRef: 'c1',
    });
    expect(r).toEqual({ status: 'sent', messageId: 'm9', to: '15551234567' });
    expect(clientFor).toHaveBeenCalledWith('t1');
    expect(seen.filter((e) => e.name === 'send.progress').map((e) => e.payload)).toEqual([
      {
        teamId: 't1',
        agentId: 'a1',
        to: '15551234567',
        clientRef: 'c1',
        phase: 'queued',
        queuedId: 'q-7',
        position: 2,
        waitMs: 1500,
      },
      expect.objectContaining({
        phase: 'retrying',
        attempt: 1,
        delayMs: 500,
        error: expect.objectContaining({ kind: 'rate-limited' }),
      }),
    ]);
    // The client never receives clientRef in the request body.
    expect(client.send.mock.calls[0]?.[1]).toEqual({ to: '15551234567', text: 'hi' });
  });

  it('webhook.register keeps the secret in the main process and answers only mode and url', async () => {
    const { requests, registerWebhook } = setup();
    const r = await requests['webhook.register']({
      teamId: 't1',
      agentId: 'a1',
      publicUrl: 'https://hooks.example.test/in',
    });
    expect(r).toEqual({ mode: 'passthrough', url: 'https://hooks.example.test/in' });
    // No source named: the companion records the screen's own registration.
    expect(registerWebhook).toHaveBeenCalledWith('t1', 'a1', 'https://hooks.example.test/in', undefined);
  });

  it('pairing.start posts then reads the session (QR included), timed from the start', async () => {
    const { client, requests } = setup();
    const r = await requests['pairing.start']({ teamId: 't1', agentId: 'a1' });
    expect(client.startPairing).toHaveBeenCalledWith('a1');
    expect(r).toEqual({
      teamId: 't1',
      agentId: 'a1',
      connected: false,
      linked: false,
      state: 'pairing',
      needsScan: true,
      phone: null,
      qr: 'data:image/png;base64,AAAA',
      pairing: {
        startedAt: 1_000_000,
        startedHere: true,
        qrAnchorAt: 1_000_000,
        qrEveryMs: 20_000,
        expiresAt: 1_120_000,
      },
    });
  });

  it('pairing.session keeps the clock of the pairing started earlier; the monitor catches up on a scan it has not seen', async () => {
    const { client, requests, monitor, now } = setup();
    monitor.lastRead.mockReturnValue({ state: 'pairing', needsScan: true, pairing: true } as never);
    await requests['pairing.start']({ teamId: 't1', agentId: 'a1' });
    now.t += 45_000;
    const later = await requests['pairing.session']({ teamId: 't1', agentId: 'a1' });
    expect(later.pairing).toMatchObject({ startedAt: 1_000_000, expiresAt: 1_120_000 });
    expect(monitor.pollSoon).not.toHaveBeenCalled(); // the monitor saw the same

    client.getSession.mockResolvedValue({
      connected: true,
      linked: true,
      state: 'connected',
      needsScan: false,
      phone: '15550109999',
      qr: null,
    });
    const linked = await requests['pairing.session']({ teamId: 't1', agentId: 'a1' });
    expect(linked.pairing).toBeUndefined();
    expect(monitor.pollSoon).toHaveBeenCalledExactlyOnceWith('t1', 'a1');
  });

  it('answers the budget, contacts and channel settings as plain DTOs', async () => {
    const { requests } = setup();
    expect(await requests['send.budget']({ teamId: 't1' })).toEqual({
      teamId: 't1',
      limit: 60,
      windowMs: 60_000,
      used: 3,
      queued: [],
    });
    expect(await requests['send.cancel']({ teamId: 't1', queuedId: 'q-1' })).toEqual({ cancelled: true });
    expect(await requests['contacts.check']({ teamId: 't1', agentId: 'a1', phone: '15550001111' })).toEqual({
      phone: '15550001111',
      exists: true,
      jid: '15550001111@s.whatsapp.net',
    });
    expect(await requests['channel.updateSettings']({ teamId: 't1', agentId: 'a1', patch: { groups: true } })).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: false,
    });
  });

  it('a 429 retry carries the rate limit per minute', async () => {
    const { client, seen, requests } = setup();
    client.sendBudget.mockReturnValue({ limit: 20, windowMs: 60_000, used: 20, queued: [] });
    client.send.mockImplementationOnce(async (_agent, req, opts) => {
      opts?.onRetry?.({ attempt: 1, delayMs: 2000, error: new RateLimited().toDTO() });
      return { status: 'sent', messageId: 'm9', to: req.to };
    });
    await requests['send.message']({ teamId: 't1', agentId: 'a1', to: '15551234567', text: 'hi' });
    expect(seen[0]?.payload).toMatchObject({ phase: 'retrying', error: { kind: 'rate-limited', limit: 20 } });
  });

  it('keeps retrying a 503 while the monitor sees the agent reconnecting, and asks it to poll at the first one', async () => {
    const monitor = { isReconnecting: vi.fn((_t: string, _a: string) => true), pollSoon: vi.fn() };
    const { client, requests } = setup(monitor);
    let keep: boolean[] = [];
    const error = new ChannelReconnecting().toDTO();
    const info = { attempt: 3, delayMs: 16_000, error };
    client.send.mockImplementationOnce(async (_agent, req, opts) => {
      opts?.onRetry?.({ attempt: 1, delayMs: 1000, error });
      opts?.onRetry?.({ attempt: 2, delayMs: 2000, error });
      keep.push((await opts?.shouldKeepRetrying?.(info)) ?? false);
      monitor.isReconnecting.mockReturnValue(false);
      keep.push((await opts?.shouldKeepRetrying?.(info)) ?? false);
      return { status: 'sent', messageId: 'm9', to: req.to };
    });
    await requests['send.message']({ teamId: 't1', agentId: 'a1', to: '15551234567', text: 'hi' });
    expect(keep).toEqual([true, false]);
    expect(monitor.isReconnecting).toHaveBeenCalledWith('t1', 'a1');
    expect(monitor.pollSoon.mock.calls).toEqual([['t1', 'a1']]);
    // Without a monitor, the client's bounded retries are all there is.
    const bare = setup();
    keep = [];
    bare.client.send.mockImplementationOnce(async (_agent, req, opts) => {
      keep.push((await opts?.shouldKeepRetrying?.(info)) ?? true);
      return { status: 'sent', messageId: 'm9', to: req.to };
    });
    await bare.requests['send.message']({ teamId: 't1', agentId: 'a1', to: '15551234567', text: 'hi' });
    expect(keep).toEqual([false]);
  });

  it('send.stop aborts the send with that clientRef, and only while it runs', async () => {
    const { client, requests } = setup();
    client.send.mockImplementationOnce(
      (_agent, _req, opts) =>
        new Promise((_resolve, reject) =>
          opts?.signal?.addEventListener('abort', () => reject(new Aborted({ message: 'The send was cancelled.' }))),
        ),
    );
    const p = requests['send.message']({
      teamId: 't1',
      agentId: 'a1',
      to: '15551234567',
      text: 'hi',
      clientRef: 'c-stop',
    }).catch((e) => e);
    expect(await requests['send.stop']({ clientRef: 'other' })).toEqual({ stopped: false });
    expect(await requests['send.stop']({ clientRef: 'c-stop' })).toEqual({ stopped: true });
    expect(toErrorDTO(await p)).toMatchObject({ kind: 'aborted' });
    expect(await requests['send.stop']({ clientRef: 'c-stop' })).toEqual({ stopped: false });
  });

  it('a 404 names the agent and its team', async () => {
    const { client, requests } = setup();
    client.checkContact.mockRejectedValueOnce(new NotFound({ message: 'no such agent for this API key' }));
    const e = await requests['contacts.check']({ teamId: 't1', agentId: 'agent-x', phone: '15550001111' }).catch(
      (x) => x,
    );
    expect(toErrorDTO(e)).toEqual({
      kind: 'not-found',
      code: 'AGENT_NOT_FOUND',
      message: 'Agent agent-x is not in team Ops on the service.',
    });
    client.send.mockRejectedValueOnce(new NotFound());
    const e2 = await requests['send.message']({
      teamId: 't1',
      agentId: 'agent-y',
      to: '15551234567',
      text: 'hi',
    }).catch((x) => x);
    expect(toErrorDTO(e2).message).toBe('Agent agent-y is not in team Ops on the service.');
  });
});
