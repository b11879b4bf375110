import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { forwardEvents, registerIpc, WindowRegistry } from '../../../src-main/electron/ipc';
import { createHandlers } from '../../../src-main/app/handlers';
import { IPC_PREFIX, REQUEST_NAMES } from '../../../src-shared/contract';
import { fakeContract } from '../contract/fake-contract';
import type { IpcMainLike } from '../../../src-main/electron/ipc';

type InvokeEventLike = Parameters<Parameters<IpcMainLike['handle']>[1]>[0];

const APP_URL = 'app://renderer/index.html';

interface Frame {
  url: string;
  parent: Frame | null;
  processId: number;
  routingId: number;
  detached?: boolean;
}

/** Like Electron, hands out a new frame object on every read: only the ids tie two reads together. */
function frameOf(spec: Omit<Frame, 'parent'> & { parent?: Frame | null }): () => Frame {
  return () => ({ parent: null, ...spec });
}

function eventFrom(senderId: number, mainFrame: () => Frame | null, senderFrame: () => Frame | null): InvokeEventLike {
  return {
    sender: {
      id: senderId,
      get mainFrame() {
        return mainFrame();
      },
    },
    get senderFrame() {
      return senderFrame();
    },
  };
}

function setup(appUrl = APP_URL) {
  const { impl, events } = fakeContract();
  const handlers = createHandlers(impl);
  const registry = new WindowRegistry();
  const channels = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
  const ipcMain = {
    handle: vi.fn((c: string, l: never) => channels.set(c, l)),
    removeHandler: vi.fn((c: string) => channels.delete(c)),
  };
  const dispose = registerIpc(ipcMain, handlers, registry, appUrl);
  const contents = {
    id: 1,
    sent: [] as unknown[][],
    send(...a: unknown[]) {
      this.sent.push(a);
    },
    isDestroyed: () => false,
  };
  registry.add(contents);
  const mainFrame = frameOf({ url: 'app://renderer/index.html#/agents', processId: 4, routingId: 1 });
  const ours = eventFrom(1, mainFrame, mainFrame);
  const call = (name: string, event: InvokeEventLike, args: unknown) => channels.get(IPC_PREFIX + name)!(event, args);
  return { impl, events, channels, ipcMain, dispose, registry, contents, ours, call, mainFrame };
}

const TEAM = { label: 'Ops', baseUrl: 'https://api.example.test', apiKey: 'sk_test_1234567890', agents: [] };

describe('IPC', () => {
  it('registers exactly the contract request channels, and removes them on dispose', () => {
    const { channels, dispose } = setup();
    expect([...channels.keys()].sort()).toEqual(REQUEST_NAMES.map((n) => IPC_PREFIX + n).sort());
    dispose();
    expect(channels.size).toBe(0);
  });

  it('runs a request from our window main frame, though every read of a frame is a new object', async () => {
    const { call, ours, impl } = setup();
    expect(ours.senderFrame).not.toBe(ours.senderFrame);
    expect(ours.sender.mainFrame).not.toBe(ours.senderFrame);
    const r = await call('teams.add', ours, TEAM);
    expect(r).toMatchObject({ ok: true, value: { teamId: 't1', keyHint: '…7890' } });
    expect(impl['teams.add']).toHaveBeenCalledTimes(1);
  });

  it('rejects foreign senders with forbidden and runs nothing', async () => {
    const { call, mainFrame, impl } = setup();
    const evil = frameOf({ url: 'https://evil.example/', processId: 4, routingId: 1 });
    const foreign: Record<string, InvokeEventLike> = {
      'a window we did not create': eventFrom(99, mainFrame, mainFrame),
      'an iframe inside our window': eventFrom(
        1,
        mainFrame,
        frameOf({ url: APP_URL, processId: 4, routingId: 2, parent: mainFrame() }),
      ),
      'a top frame of another process': eventFrom(1, mainFrame, frameOf({ url: APP_URL, processId: 5, routingId: 1 })),
      'another frame of the same process': eventFrom(
        1,
        mainFrame,
        frameOf({ url: APP_URL, processId: 4, routingId: 7 }),
      ),
      'our window navigated to a foreign origin': eventFrom(1, evil, evil),
      'a file: page': eventFrom(
        1,
        frameOf({ url: 'file:///tmp/x.html', processId: 4, routingId: 1 }),
        frameOf({ url: 'file:///tmp/x.html', processId: 4, routingId: 1 }),
      ),
      'another app: host': eventFrom(
        1,
        frameOf({ url: 'app://other/index.html', processId: 4, routingId: 1 }),
        frameOf({ url: 'app://other/index.html', processId: 4, routingId: 1 }),
      ),
      'the frame is gone': eventFrom(1, mainFrame, () => null),
      'the window has no main frame': eventFrom(1, () => null, mainFrame),
      'a detached frame': eventFrom(
        1,
        mainFrame,
        frameOf({ url: APP_URL, processId: 4, routingId: 1, detached: true }),
      ),
      'a frame that throws when read (destroyed)': eventFrom(1, mainFrame, () => {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      }),
      'an unparsable URL': eventFrom(
        1,
        frameOf({ url: 'not a url', processId: 4, routingId: 1 }),
        frameOf({ url: 'not a url', processId: 4, routingId: 1 }),
      ),
    };
    for (const [why, ev] of Object.entries(foreign)) {
      expect(await call('teams.add', ev, TEAM), why).toEqual({
        ok: false,
        error: expect.objectContaining({ kind: 'forbidden' }),
      });
    }
    expect(impl['teams.add']).not.toHaveBeenCalled();
  });

  it('checks the origin of the URL it was given: a dev server origin matches itself, not app://', async () => {
    const dev = frameOf({ url: 'http://localhost:5173/#/agents', processId: 4, routingId: 1 });
    const app = frameOf({ url: APP_URL, processId: 4, routingId: 1 });
    const served = async (appUrl: string, frame: () => Frame) => {
      const { call, impl } = setup(appUrl);
      const r = await call('teams.add', eventFrom(1, frame, frame), TEAM);
      expect((r as { ok: boolean }).ok).toBe(impl['teams.add'].mock.calls.length === 1);
      return (r as { ok: boolean }).ok;
    };
    expect(await served('http://localhost:5173', dev)).toBe(true);
    expect(await served('http://localhost:5174', dev)).toBe(false);
    expect(await served('http://localhost:5173', app)).toBe(false);
    // Only scheme, host and port count: not the path, query or fragment of either URL.
    const other = frameOf({ url: 'http://127.0.0.1:5173/other', processId: 4, routingId: 1 });
    expect(await served('http://127.0.0.1:5173/x?y#z', other)).toBe(true);
    expect(await served('http://127.0.0.1:5174/x?y#z', other)).toBe(false);
  });

  it('refuses to register with an app URL that does not parse', () => {
    const ipcMain = { handle: vi.fn(), removeHandler: vi.fn() };
    expect(() => registerIpc(ipcMain, createHandlers(fakeContract().impl), new WindowRegistry(), 'nonsense')).toThrow(
      /Not a URL/,
    );
    expect(ipcMain.handle).not.toHaveBeenCalled();
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
