// @vitest-environment jsdom
// The window's heartbeat (watchLink) and the link slice, on fake timers: down at once on a failed
// call, down within 4 s when the main side hangs, refused on a token it no longer accepts, and up
// again by itself, with what the window shows reloaded. The same over the Electron bridge.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import type { Api, PingDTO, Result } from '../../../../src-shared/contract';
import { electronBridge } from '../../../../src-renderer/src/bridge/electron';
import type { LinkSignal } from '../../../../src-renderer/src/bridge/web';
import { createAppStore } from '../../../../src-renderer/src/store';
import { isStale } from '../../../../src-renderer/src/store/link';
import { watchLink } from '../../../../src-renderer/src/store/liveness';
import { fakeApi } from '../fake-api';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => {
  vi.useRealTimers();
  delete window.api;
});

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const UP: Result<PingDTO> = { ok: true, value: { at: 1, upSince: 500 } };
const GONE: Result<never> = {
  ok: false,
  error: {
    kind: 'network-error',
    code: 'HOST_UNREACHABLE',
    message: 'The companion is not reachable; is it still running?',
  },
};
const HANG = (): Promise<Result<PingDTO>> => new Promise(() => undefined);

function harness() {
  let answer: () => Result<PingDTO> | Promise<Result<PingDTO>> = () => UP;
  const fake = fakeApi({ 'app.ping': () => answer() });
  const store = createAppStore(fake.api, { now: () => Date.now() });
  const reloads = () => fake.calls.filter((c) => c.name === 'teams.list').length;
  const pings = () => fake.calls.filter((c) => c.name === 'app.ping').length;
  return { ...fake, store, reloads, pings, answerWith: (fn: typeof answer) => (answer = fn) };
}

describe('watchLink', () => {
  it('is up on the first answer (no reload: the first load is the store’s own), then pings every 1.5 s', async () => {
    const h = harness();
    const w = watchLink(h.store, h.api, { host: 'browser' });
    await advance(0);
    expect(h.store.getState().link).toMatchObject({
      state: 'up',
      host: 'browser',
      lastHeardAt: 1_000_000,
      upSince: 500,
      downSince: null,
    });
    expect(h.reloads()).toBe(0);
    await advance(1500);
    expect(h.pings()).toBe(2);
    expect(h.store.getState().link.lastHeardAt).toBe(1_001_500);
    w.stop();
    await advance(10_000);
    expect(h.pings()).toBe(2);
  });

  it('a failed call is down at once; it keeps trying every second and recovers by itself, reloading what it shows', async () => {
    const h = harness();
    const w = watchLink(h.store, h.api, { host: 'browser' });
    await advance(0);
    h.answerWith(() => GONE);
    await advance(1500);
    expect(h.store.getState().link).toMatchObject({
      state: 'down',
      lastHeardAt: 1_000_000,
      downSince: 1_001_500,
      error: { code: 'HOST_UNREACHABLE' },
    });
    expect(isStale(h.store.getState())).toBe(true);
    await advance(3000);
    expect(h.pings()).toBe(5); // 0, 1.5 s, then every second
    expect(h.store.getState().link.downSince).toBe(1_001_500);

    h.answerWith(() => UP);
    await advance(1000);
    expect(h.store.getState().link).toMatchObject({
      state: 'up',
      downSince: null,
      recoveredAt: 1_005_500,
      error: null,
    });
    expect(isStale(h.store.getState())).toBe(false);
    expect(h.reloads()).toBe(1);
    expect(h.calls.some((c) => c.name === 'settings.get')).toBe(true);
    w.stop();
  });

  it('after a recovery every store is read again, and only then is what is shown said to be current', async () => {
    let threadAnswer: (r: Result<unknown>) => void = () => undefined;
    let slowThread = false;
    const thread = { messages: [], more: false };
    let answer: () => Result<PingDTO> = () => UP;
    const fake = fakeApi({
      'app.ping': () => answer(),
      'messages.thread': () =>
        slowThread ? new Promise((resolve) => (threadAnswer = resolve)) : { ok: true, value: thread },
      'tunnel.status': { ok: true, value: null },
      'tunnel.deliveries': { ok: true, value: [] },
      'tunnel.refused': { ok: true, value: [] },
    });
    const store = createAppStore(fake.api, { now: () => Date.now() });
    // What this window shows: an open thread, the tunnel screen.
    await store.getState().loadThread('t1', 'a1', '+15550100042');
    await store.getState().loadTunnel();
    const w = watchLink(store, fake.api, { host: 'browser' });
    await advance(0);
    answer = () => GONE;
    await advance(1500);
    expect(store.getState().link.state).toBe('down');
    const before = fake.calls.length;
    slowThread = true;
    answer = () => UP;
    await advance(1000);
    // Up again, but the thread has not answered yet: nothing is said to be current.
    expect(store.getState().link).toMatchObject({ state: 'up', reloading: 'recovered', recoveredAt: null });
    const asked = new Set(fake.calls.slice(before).map((c) => c.name));
    for (const name of [
      'teams.list',
      'agents.list',
      'alerts.list',
      'settings.get',
      'messages.unread',
      'messages.contacts',
      'messages.thread',
      'tunnel.status',
      'tunnel.deliveries',
    ])
      expect(asked, name).toContain(name);
    threadAnswer({ ok: true, value: thread });
    await advance(0);
    expect(store.getState().link).toMatchObject({ reloading: null, recoveredAt: Date.now() });
    w.stop();
  });

  it('a reload that does not fully answer is tried again, and says nothing is current meanwhile', async () => {
    let inboxFails = false;
    let answer: () => Result<PingDTO> = () => UP;
    const fake = fakeApi({
      'app.ping': () => answer(),
      'messages.contacts': () =>
        inboxFails
          ? { ok: false, error: { kind: 'internal', code: 'INTERNAL', message: 'Not now.' } }
          : { ok: true, value: { contacts: [], agents: [], unread: 0, retentionDays: 90 } },
    });
    const store = createAppStore(fake.api, { now: () => Date.now() });
    const w = watchLink(store, fake.api, { host: 'browser' });
    await advance(0);
    answer = () => GONE;
    await advance(1500);
    inboxFails = true;
    answer = () => UP;
    await advance(1000);
    expect(store.getState().link).toMatchObject({ state: 'up', reloading: 'recovered', recoveredAt: null });
    const inboxCalls = () => fake.calls.filter((c) => c.name === 'messages.contacts').length;
    const first = inboxCalls();
    inboxFails = false;
    await advance(1500);
    expect(inboxCalls()).toBeGreaterThan(first);
    expect(store.getState().link).toMatchObject({ reloading: null, recoveredAt: expect.any(Number) });
    w.stop();
  });

  it('a main side that hangs (no answer at all) is down within 4 s of its last answer', async () => {
    const h = harness();
    const w = watchLink(h.store, h.api, { host: 'desktop' });
    await advance(0);
    h.answerWith(HANG);
    await advance(3999);
    expect(h.store.getState().link.state).toBe('up');
    await advance(1);
    expect(h.store.getState().link.state).toBe('down');
    expect(h.store.getState().link.error?.kind).toBe('timeout');
    w.stop();
  });

  it('a refusal (a token the host no longer accepts) is "refused", not down', async () => {
    const h = harness();
    h.answerWith(() => ({
      ok: false,
      error: { kind: 'forbidden', code: 'BAD_TOKEN', message: 'Missing or wrong access token.' },
    }));
    const w = watchLink(h.store, h.api, { host: 'browser' });
    await advance(0);
    expect(h.store.getState().link).toMatchObject({ state: 'refused', error: { code: 'BAD_TOKEN' } });
    expect(isStale(h.store.getState())).toBe(true);
    w.stop();
  });

  it('a main side that restarted between two heartbeats (a new start time) is reloaded from', async () => {
    const h = harness();
    const w = watchLink(h.store, h.api, { host: 'browser' });
    await advance(0);
    h.answerWith(() => ({ ok: true, value: { at: 2, upSince: 900 } }));
    await advance(1500);
    expect(h.store.getState().link.state).toBe('up');
    expect(h.reloads()).toBe(1);
    w.stop();
  });

  it('the bridge’s signals: a dropped event stream checks at once; a stream open again after a drop reloads', async () => {
    const h = harness();
    const listeners = new Set<(s: LinkSignal) => void>();
    const signals = { on: (cb: (s: LinkSignal) => void) => (listeners.add(cb), () => void listeners.delete(cb)) };
    const send = (s: LinkSignal) => listeners.forEach((cb) => cb(s));
    const w = watchLink(h.store, h.api, { host: 'browser', signals });
    await advance(0);
    send('stream-open'); // the first open: nothing to reload
    expect(h.reloads()).toBe(0);
    h.answerWith(() => GONE);
    await advance(200);
    send('stream-lost');
    await advance(0);
    expect(h.pings()).toBe(2);
    expect(h.store.getState().link.state).toBe('down');
    h.answerWith(() => UP);
    send('stream-open');
    await advance(0);
    expect(h.reloads()).toBe(1);
    w.stop();
    expect(listeners.size).toBe(0);
  });
});

describe('watchLink over the Electron bridge', () => {
  it('window.api’s main process hangs: the window says so within 4 s, and recovers when it answers', async () => {
    let hung = false;
    const fake = fakeApi({ 'app.ping': () => (hung ? HANG() : UP) });
    window.api = fake.api;
    const api = electronBridge() as Api;
    expect(api).toBe(fake.api);
    const store = createAppStore(api, { now: () => Date.now() });
    const w = watchLink(store, api, { host: 'desktop' });
    await advance(0);
    expect(store.getState().link.state).toBe('up');
    hung = true;
    await advance(4000);
    expect(store.getState().link).toMatchObject({ state: 'down', host: 'desktop' });
    hung = false;
    await advance(1000);
    expect(store.getState().link.state).toBe('up');
    expect(fake.calls.filter((c) => c.name === 'agents.list')).toHaveLength(1);
    w.stop();
  });
});
