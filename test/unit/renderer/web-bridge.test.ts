// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { takeToken, webBridge, type WebEnv } from '../../../src-renderer/src/bridge/web';

function env(hash: string, fetchImpl: WebEnv['fetch']) {
  const store = new Map<string, string>();
  const replaced: string[] = [];
  const e: WebEnv = {
    location: { hash, pathname: '/', search: '', origin: 'http://127.0.0.1:5000' },
    history: { replaceState: (_d, _u, url) => void replaced.push(String(url)) },
    sessionStorage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v) },
    fetch: fetchImpl,
    setTimeout: () => 0,
  };
  return { e, store, replaced };
}

describe('web bridge', () => {
  it('takes the token from the hash, removes it from the URL, and keeps it in sessionStorage', () => {
    const { e, store, replaced } = env('#token=abc_DEF-123&x=1', vi.fn());
    expect(takeToken(e)).toBe('abc_DEF-123');
    expect(replaced).toEqual(['/#x=1']);
    expect(store.get('cc.token')).toBe('abc_DEF-123');
    const again = { ...e, location: { ...e.location, hash: '' } };
    expect(takeToken(again)).toBe('abc_DEF-123');
  });

  it('calls POST /api/<name> with the token in a header, never in the URL', async () => {
    const fetchImpl = vi.fn(async () => new Response(JSON.stringify({ ok: true, value: [] }), { headers: { 'content-type': 'application/json' } }));
    const { e } = env('#token=tok123', fetchImpl);
    const api = webBridge(e);
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
    const api = webBridge(env('', fetchImpl).e);
    expect(await api['teams.list']()).toMatchObject({ ok: false, error: { kind: 'forbidden', code: 'NO_TOKEN' } });
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it('reads contract events over fetch-based SSE, frames split anywhere', async () => {
    const enc = new TextEncoder();
    const frames = [': connected\n\nevent: chat.to', 'ken\ndata: {"turnId":"t","tok', 'en":"Hi"}\n\n: ping\n\nevent: bogus\ndata: {}\n\n'];
    const fetchImpl = vi.fn(async () =>
      new Response(new ReadableStream({ start(c) { for (const f of frames) c.enqueue(enc.encode(f)); c.close(); } }), { headers: { 'content-type': 'text/event-stream' } }),
    );
    const api = webBridge(env('#token=tok123', fetchImpl).e);
    const got = await new Promise((resolve) => api.on('chat.token', resolve));
    expect(got).toEqual({ turnId: 't', token: 'Hi' });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/events');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer tok123');
  });
});
