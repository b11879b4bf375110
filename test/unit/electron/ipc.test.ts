import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { forwardEvents, registerIpc, WindowRegistry, type InvokeEventLike } from '../../../src-main/electron/ipc';
import { createHandlers } from '../../../src-main/app/handlers';
import { IPC_PREFIX, REQUEST_NAMES } from '../../../src-shared/contract';
import { fakeContract } from '../contract/fake-contract';

const APP_URL = 'app://renderer/index.html';

function setup() {
  const { impl, events } = fakeContract();
  const handlers = createHandlers(impl);
  const registry = new WindowRegistry();
  const channels = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
  const ipcMain = { handle: vi.fn((c: string, l: never) => channels.set(c, l)), removeHandler: vi.fn((c: string) => channels.delete(c)) };
  const dispose = registerIpc(ipcMain, handlers, registry, APP_URL);
  const contents = { id: 1, sent: [] as unknown[][], send(...a: unknown[]) { this.sent.push(a); }, isDestroyed: () => false };
  registry.add(contents);
  const mainFrame = { url: 'app://renderer/index.html#/agents', parent: null };
  const ours: InvokeEventLike = { sender: { id: 1, mainFrame }, senderFrame: mainFrame };
  const call = (name: string, event: InvokeEventLike, args: unknown) => channels.get(IPC_PREFIX + name)!(event, args);
  return { impl, events, channels, ipcMain, dispose, registry, contents, ours, call, mainFrame };
}

describe('IPC', () => {
  it('registers exactly the contract request channels, and removes them on dispose', () => {
    const { channels, dispose } = setup();
    expect([...channels.keys()].sort()).toEqual(REQUEST_NAMES.map((n) => IPC_PREFIX + n).sort());
    dispose();
    expect(channels.size).toBe(0);
  });

  it('runs a request from our window main frame', async () => {
    const { call, ours, impl } = setup();
    const r = await call('teams.add', ours, { label: 'Ops', baseUrl: 'https://api.example.test', apiKey: 'sk_test_1234567890', agents: [] });
    expect(r).toMatchObject({ ok: true, value: { teamId: 't1', keyHint: '…7890' } });
    expect(impl['teams.add']).toHaveBeenCalledTimes(1);
  });

  it('rejects foreign senders with forbidden and runs nothing', async () => {
    const { call, mainFrame, impl } = setup();
    const args = { label: 'Ops', baseUrl: 'https://api.example.test', apiKey: 'sk_test_1234567890', agents: [] };
    const subFrame = { url: APP_URL, parent: mainFrame };
    const foreign: InvokeEventLike[] = [
      { sender: { id: 99, mainFrame }, senderFrame: mainFrame }, // a window we did not create
      { sender: { id: 1, mainFrame }, senderFrame: subFrame }, // an iframe inside our window
      { sender: { id: 1, mainFrame: { url: 'https://evil.example/', parent: null } }, senderFrame: { url: 'https://evil.example/', parent: null } }, // navigated away
      { sender: { id: 1, mainFrame }, senderFrame: null }, // frame gone
      { sender: { id: 1, mainFrame: { url: 'file:///tmp/x.html', parent: null } }, senderFrame: { url: 'file:///tmp/x.html', parent: null } },
    ];
    for (const ev of foreign) {
      expect(await call('teams.add', ev, args)).toEqual({ ok: false, error: expect.objectContaining({ kind: 'forbidden' }) });
    }
    expect(impl['teams.add']).not.toHaveBeenCalled();
  });

  it('validates arguments before anything runs', async () => {
    const { call, ours, impl } = setup();
    const r = await call('agents.remove', ours, { teamId: 't1' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'agentId' } });
    const proto = await call('teams.remove', ours, JSON.parse('{"teamId":"t1","__proto__":{"x":1}}'));
    expect(proto).toMatchObject({ ok: false });
    expect(impl['agents.remove']).not.toHaveBeenCalled();
    expect(impl['teams.remove']).not.toHaveBeenCalled();
  });

  it('pushes events only to our live windows', () => {
    const { events, registry, contents } = setup();
    const dead = { id: 2, send: vi.fn(), isDestroyed: () => true };
    registry.add(dead);
    const off = forwardEvents(events, registry);
    events.emit('chat.token', { turnId: 'x', token: 'Hel' });
    expect(contents.sent).toEqual([['cc-event:chat.token', { turnId: 'x', token: 'Hel' }]]);
    expect(dead.send).not.toHaveBeenCalled();
    off();
    events.emit('chat.token', { turnId: 'x', token: 'lo' });
    expect(contents.sent).toHaveLength(1);
  });
});
