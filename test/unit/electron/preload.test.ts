import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_PREFIX, IPC_PREFIX, REQUEST_NAMES } from '../../../src-shared/contract';

const exposed: Record<string, unknown> = {};
const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
const ipcRenderer = {
  invoke: vi.fn(async (channel: string, args: unknown) => ({ ok: true, value: { channel, args } })),
  on: vi.fn((channel: string, l: (...a: unknown[]) => void) => {
    if (!listeners.has(channel)) listeners.set(channel, new Set());
    listeners.get(channel)!.add(l);
  }),
  removeListener: vi.fn((channel: string, l: (...a: unknown[]) => void) => listeners.get(channel)?.delete(l)),
};

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) },
  ipcRenderer,
}));

type ApiShape = Record<string, (...a: unknown[]) => unknown>;

describe('preload', () => {
  beforeEach(async () => {
    listeners.clear();
    await import('../../../src-preload/index');
  });

  it('exposes exactly one function per request name plus on', () => {
    const api = exposed['api'] as ApiShape;
    expect(Object.keys(exposed)).toEqual(['api']);
    expect(Object.keys(api).sort()).toEqual([...REQUEST_NAMES, 'on'].sort());
    for (const k of Object.keys(api)) expect(typeof api[k]).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('invokes the cc: channel of the request with its args ({} when none)', async () => {
    const api = exposed['api'] as ApiShape;
    const r = await api['teams.remove']!({ teamId: 't1' });
    expect(r).toEqual({ ok: true, value: { channel: `${IPC_PREFIX}teams.remove`, args: { teamId: 't1' } } });
    await api['teams.list']!();
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith(`${IPC_PREFIX}teams.list`, {});
  });

  it('on() passes only the payload, never the IPC event, and unsubscribes', () => {
    const api = exposed['api'] as ApiShape;
    const cb = vi.fn();
    const off = api['on']!('health.changed', cb) as () => void;
    const fakeIpcEvent = { sender: { send: () => {} }, ports: [] };
    for (const l of listeners.get(`${EVENT_PREFIX}health.changed`)!) l(fakeIpcEvent, { agentId: 'a1' });
    expect(cb).toHaveBeenCalledTimes(1);
    expect(cb.mock.calls[0]).toEqual([{ agentId: 'a1' }]);
    off();
    expect(listeners.get(`${EVENT_PREFIX}health.changed`)!.size).toBe(0);
  });

  it('on() refuses unknown event names (no arbitrary channel subscription)', () => {
    const api = exposed['api'] as ApiShape;
    expect(() => api['on']!('ELECTRON_BROWSER_WINDOW', () => {})).toThrow(/Unknown event/);
    expect(ipcRenderer.on).not.toHaveBeenCalledWith('ELECTRON_BROWSER_WINDOW', expect.anything());
  });
});
