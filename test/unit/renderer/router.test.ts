// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { agentHref, consoleHref, parseRoute, sectionOf, type Route } from '../../../src-renderer/src/router/routes';
import { resolveAgent } from '../../../src-renderer/src/router/resolve';
import { syncRouteWithHash, type HashWindow } from '../../../src-renderer/src/router/sync';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, setup } from './fixtures';

/** The hash of a route, built from the app's own href builders (parseRoute's inverse). */
function formatRoute(r: Route): string {
  switch (r.name) {
    case 'home':
      return '#/';
    case 'agent':
    case 'pairing':
    case 'chat':
    case 'agent-settings':
      return agentHref(r.teamId, r.agentId, r.name);
    case 'console':
      return consoleHref(r.teamId, r.agentId);
    case 'not-found':
      return `#/${r.path.replace(/^\//, '')}`;
    default:
      return `#/${r.name}`;
  }
}

describe('routes', () => {
  it('parses every route of the app', () => {
    expect(parseRoute('')).toEqual({ name: 'home' });
    expect(parseRoute('#/')).toEqual({ name: 'home' });
    expect(parseRoute('#/agents/a1?team=t1')).toEqual({ name: 'agent', agentId: 'a1', teamId: 't1' });
    expect(parseRoute('#/agents/a1')).toEqual({ name: 'agent', agentId: 'a1', teamId: null });
    expect(parseRoute('#/agents/a%2F1/pairing?team=t%201')).toEqual({ name: 'pairing', agentId: 'a/1', teamId: 't 1' });
    expect(parseRoute('#/agents/a1/chat?team=t1')).toEqual({ name: 'chat', agentId: 'a1', teamId: 't1' });
    expect(parseRoute('#/agents/a1/settings?team=t1')).toEqual({ name: 'agent-settings', agentId: 'a1', teamId: 't1' });
    expect(parseRoute('#/console?team=t1&agent=a1')).toEqual({ name: 'console', teamId: 't1', agentId: 'a1' });
    expect(parseRoute('#/console')).toEqual({ name: 'console', teamId: null, agentId: null });
    expect(parseRoute('#/tunnel')).toEqual({ name: 'tunnel' });
    expect(parseRoute('#/alerts')).toEqual({ name: 'alerts' });
    expect(parseRoute('#/settings')).toEqual({ name: 'settings' });
  });

  it('answers not-found for unknown or malformed paths', () => {
    expect(parseRoute('#/nope')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/agents/a1/unknown')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/agents/%E0%A4%A')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/agents')).toMatchObject({ name: 'not-found' });
  });

  it('builds hashes that parse back to the same route', () => {
    const routes = [
      '#/',
      '#/agents/a%201?team=t1',
      '#/agents/a1/pairing?team=t1',
      '#/agents/a1/chat?team=t1',
      '#/agents/a1/settings?team=t1',
      '#/console?team=t1&agent=a1',
      '#/tunnel',
      '#/alerts',
      '#/settings',
    ];
    for (const h of routes) expect(formatRoute(parseRoute(h))).toBe(h);
    expect(agentHref('t1', 'a1', 'pairing')).toBe('#/agents/a1/pairing?team=t1');
    expect(consoleHref()).toBe('#/console');
    expect(sectionOf(parseRoute('#/agents/a1/chat'))).toBe('agents');
    expect(sectionOf(parseRoute('#/alerts'))).toBe('alerts');
  });

  it('resolves an agent named without its team only when unambiguous', () => {
    const a = agent('a1', 'connected');
    const b = agent('a1', 'connected', {}, 't2');
    const c = agent('a2', 'connected');
    expect(resolveAgent({ 't1/a1': a, 't1/a2': c }, 'a1', null)).toBe(a);
    expect(resolveAgent({ 't1/a1': a, 't2/a1': b }, 'a1', null)).toBeNull();
    expect(resolveAgent({ 't1/a1': a, 't2/a1': b }, 'a1', 't2')).toBe(b);
    expect(resolveAgent({ 't1/a1': a }, 'zz', 't1')).toBeNull();
  });
});

describe('route ↔ hash sync', () => {
  it('reads the hash, follows hashchange, and writes app.navigate routes to the address bar', async () => {
    window.location.hash = '#/alerts';
    const { store, api, emit } = setup();
    const stop = syncRouteWithHash(store, window);
    connectStore(store, api);
    expect(store.getState().route).toBe('#/alerts');

    window.location.hash = '#/settings';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().route).toBe('#/settings');

    emit('app.navigate', { route: '#/agents/a1?team=t1' });
    expect(store.getState().route).toBe('#/agents/a1?team=t1');
    expect(window.location.hash).toBe('#/agents/a1?team=t1');

    // a route that is not a hash route goes home instead of anywhere else
    emit('app.navigate', { route: 'https://evil.example/' });
    expect(store.getState().route).toBe('#/');

    stop();
    window.location.hash = '#/tunnel';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().route).toBe('#/');
  });

  it("a hash navigation to a thread asks for its messages as it starts (the navigate event), once, before the route's change", () => {
    window.location.hash = '#/messages?team=t1&agent=a1';
    const { store, api, calls } = setup({
      'messages.thread': { ok: true, value: { messages: [], more: false } },
    });
    const navigation = new EventTarget();
    const navigate = (url: string, hashChange = true) =>
      navigation.dispatchEvent(Object.assign(new Event('navigate'), { hashChange, destination: { url } }));
    const win = Object.assign(window, { navigation }) as unknown as HashWindow;
    const stop = syncRouteWithHash(store, win);
    connectStore(store, api);
    const threads = () => calls.filter((c) => c.name === 'messages.thread').map((c) => c.args);

    navigate('http://app.test/#/messages?team=t1&agent=a1&with=%2B15550100001');
    // Asked for now; the route is still the one shown until hashchange.
    expect(threads()).toEqual([{ teamId: 't1', agentId: 'a1', phone: '+15550100001', limit: 50 }]);
    expect(store.getState().route).toBe('#/messages?team=t1&agent=a1');
    window.location.hash = '#/messages?team=t1&agent=a1&with=%2B15550100001';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().route).toBe('#/messages?team=t1&agent=a1&with=%2B15550100001');
    expect(threads()).toHaveLength(1);

    // A navigation that is no hash change, or to a route that is no thread, asks for nothing.
    navigate('http://elsewhere.test/#/messages?team=t1&agent=a1&with=%2B15550100002', false);
    navigate('http://app.test/#/alerts');
    expect(threads()).toHaveLength(1);

    stop();
    navigate('http://app.test/#/messages?team=t1&agent=a1&with=%2B15550100003');
    expect(threads()).toHaveLength(1);
    delete (win as { navigation?: unknown }).navigation;
  });
});
