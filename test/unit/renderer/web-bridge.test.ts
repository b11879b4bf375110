// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { webBridge, type LinkSignal, type WebEnv } from '../../../src-renderer/src/bridge/web';

function env(hash: string, fetchImpl: WebEnv['fetch'], store = new Map<string, string>()) {
  const replaced: string[] = [];
  const timers: Array<{ fn: () => void; ms: number }> = [];
  let hashChanged: () => void = () => undefined;
  const e: WebEnv = {
    location: { hash, pathname: '/', search: '', origin: 'http://127.0.0.1:5000' },
    history: { replaceState: (_d, _u, url) => void replaced.push(String(url)) },
    sessionStorage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v) },
    fetch: fetchImpl,
    setTimeout: (fn, ms) => void timers.push({ fn, ms }),
    onHashChange: (fn) => (hashChanged = fn),
  };
  /** A new link opened in the same tab. */
  const openLink = (h: string) => {
    e.location.hash = h;
    hashChanged();
  };
  return { e, store, replaced, timers, openLink };
}

/** An event stream the test ends (or fails) by hand. */
function stream() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  return {
    res: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    end: () => ctl.close(),
    send: (s: string) => ctl.enqueue(new TextEncoder().encode(s)),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('web bridge', () => {
  it('takes the token from the hash, removes it from the URL, and keeps it in sessionStorage', async () => {
    const fetchImpl = vi.fn(async () => new Response(JSON.stringify({ ok: true, value: [] })));
    const { e, store, replaced } = env('#token=abc_DEF-123&x=1', fetchImpl);
    const { api } = webBridge(e);
    expect(replaced).toEqual(['/#x=1']);
    expect(store.get('cc.token')).toBe('abc_DEF-123');
    await api['teams.list']();
    // The tab reloaded (no token in its address any more): the kept one is used.
    const reloaded = env('', fetchImpl, store);
    await webBridge(reloaded.e).api['teams.list']();
    expect(reloaded.replaced).toEqual([]);
    const sent = fetchImpl.mock.calls.map((c) => ((c as unknown[])[1] as RequestInit).headers);
    expect(sent).toEqual([
      expect.objectContaining({ authorization: 'Bearer abc_DEF-123' }),
      expect.objectContaining({ authorization: 'Bearer abc_DEF-123' }),
    ]);
  });

  it('calls POST /api/<name> with the token in a header, never in the URL', async () => {
    const fetchImpl = vi.fn(
      async () =>
        new Response(JSON.stringify({ ok: true, value: [] }), { headers: { 'content-type': 'application/json' } }),
    );
    const { e } = env('#token=tok123', fetchImpl);
    const { api } = webBridge(e);
    expect(await api['teams.list']()).toEqual({ ok: true, value: [] });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/teams.list');
    expect(url).not.toContain('tok123');
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer tok123');
    expect(init.body).toBe('{}');
  });

  it('without a token, answers forbidden without calling', async () => {
    const fetchImpl = vi.fn();
    const { api } = webBridge(env('', fetchImpl).e);
    expect(await api['teams.list']()).toMatchObject({ ok: false, error: { kind: 'forbidden', code: 'NO_TOKEN' } });
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it('reads contract events over fetch-based SSE, frames split anywhere', async () => {
    const enc = new TextEncoder();
    const frames = [
      ': connected\n\nevent: chat.to',
      'ken\ndata: {"turnId":"t","tok',
      'en":"Hi"}\n\n: ping\n\nevent: bogus\ndata: {}\n\n',
    ];
    const fetchImpl = vi.fn(
      async () =>
        new Response(
          new ReadableStream({
            start(c) {
              for (const f of frames) c.enqueue(enc.encode(f));
              c.close();
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
    );
    const { api } = webBridge(env('#token=tok123', fetchImpl).e);
    const got = await new Promise((resolve) => api.on('chat.token', resolve));
    expect(got).toEqual({ turnId: 't', token: 'Hi' });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/events');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer tok123');
  });

  it('signals the event stream opening and dropping, and tries again after a second (five after a refusal)', async () => {
    const first = stream();
    const fetchImpl = vi
      .fn()
      .mockResolvedValueOnce(first.res)
      .mockResolvedValueOnce(new Response('{"ok":false}', { status: 401 }));
    const { e, timers } = env('#token=tok123', fetchImpl);
    const bridge = webBridge(e);
    const seen: LinkSignal[] = [];
    bridge.signals.on((s) => seen.push(s));
    bridge.api.on('alert', () => undefined);
    await tick();
    expect(seen).toEqual(['stream-open']);
    first.end(); // the host went away
    await tick();
    expect(seen).toEqual(['stream-open', 'stream-lost']);
    expect(timers.map((t) => t.ms)).toEqual([1000]);
    timers.shift()!.fn();
    await tick();
    // refused (e.g. a host restarted with another token): no "open", and a slower retry
    expect(seen).toEqual(['stream-open', 'stream-lost']);
    expect(timers.map((t) => t.ms)).toEqual([5000]);
  });

  it('a new link opened in the same tab replaces the token: calls and the event stream use it at once', async () => {
    const old = stream();
    const fresh = stream();
    const fetchImpl = vi.fn(async (url: string) => {
      if (url === '/api/events')
        return fetchImpl.mock.calls.filter(([u]) => u === '/api/events').length === 1 ? old.res : fresh.res;
      return new Response(JSON.stringify({ ok: true, value: [] }), { headers: { 'content-type': 'application/json' } });
    });
    const { e, store, replaced, openLink } = env('#token=old-token', fetchImpl as unknown as WebEnv['fetch']);
    const bridge = webBridge(e);
    const seen: LinkSignal[] = [];
    bridge.signals.on((s) => seen.push(s));
    bridge.api.on('alert', () => undefined);
    await tick();
    openLink('#token=new-token');
    await tick();
    expect(seen).toContain('token-changed');
    expect(store.get('cc.token')).toBe('new-token');
    expect(replaced.at(-1)).toBe('/');
    await bridge.api['teams.list']();
    const auth = (i: number) =>
      ((fetchImpl.mock.calls[i] as unknown as [string, RequestInit])[1].headers as Record<string, string>)
        .authorization;
    const calls = fetchImpl.mock.calls.map(([u]) => u);
    expect(calls).toEqual(['/api/events', '/api/events', '/api/teams.list']);
    expect(auth(1)).toBe('Bearer new-token');
    expect(auth(2)).toBe('Bearer new-token');
    // the same link again, or a hash without a token, changes nothing
    openLink('#/alerts');
    openLink('#token=new-token');
    expect(seen.filter((s) => s === 'token-changed')).toHaveLength(1);
  });
});
