// The shell over a fake electron module: what a packaged and an unpackaged app load, whether the
// CSP is enforced, where the tray icons come from, and that a call from the window's own frame
// gets through the sender check.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { startElectronShell, type ElectronParts } from '../../../src-main/electron/shell';
import { rendererSource, trayIconDir } from '../../../src-main/electron/app-paths';
import { RENDERER_CSP } from '../../../src-main/app/web-security';
import { IPC_PREFIX } from '../../../src-shared/contract';
import { fakeContract, NOW } from '../contract/fake-contract';
import { fakeElectron, type FakeBrowserWindow } from './fake-electron';

const DEV_URL = 'http://localhost:5173/';
const RESOURCES = '/opt/Channel Companion/resources';

async function start(isPackaged: boolean, devServerUrl: string | undefined) {
  const fake = fakeElectron({ isPackaged, appPath: '/checkout' });
  const contract = fakeContract();
  await startElectronShell(fake.parts as unknown as ElectronParts, {
    outDir: '/checkout/out',
    resourcesPath: RESOURCES,
    ...(devServerUrl !== undefined ? { devServerUrl } : {}),
    createContract: async () => ({
      implementations: contract.impl,
      events: contract.events,
      now: () => NOW,
      setScreenLocked: () => undefined,
      dispose: () => undefined,
    }),
  });
  const win = fake.windows()[0]!;
  return { ...fake, win, events: contract.events };
}

/** An invoke from the window's top frame, read afresh on every access as Electron does. */
function fromWindow(win: FakeBrowserWindow, url?: string) {
  return {
    sender: win.webContents,
    get senderFrame() {
      const frame = win.webContents.mainFrame;
      return url === undefined ? frame : { ...frame, url };
    },
  };
}

async function csp(headerListeners: ((...a: unknown[]) => unknown)[]): Promise<unknown> {
  const callback = vi.fn();
  for (const l of headerListeners) l({ url: 'app://renderer/index.html', responseHeaders: {} }, callback);
  return callback.mock.calls[0]?.[0];
}

describe('Electron shell: packaged or not', () => {
  it('a packaged app loads its own files with the CSP, even when ELECTRON_RENDERER_URL is set', async () => {
    const { win, headerListeners, ipcHandlers, trayImages } = await start(true, DEV_URL);
    expect(win.loadURL).toHaveBeenCalledWith('app://renderer/index.html');
    expect(await csp(headerListeners)).toEqual({ responseHeaders: { 'Content-Security-Policy': [RENDERER_CSP] } });
    expect(trayImages[0]).toBe(join(RESOURCES, 'tray', 'unknown.png'));

    const list = ipcHandlers.get(`${IPC_PREFIX}teams.list`)!;
    expect(await list(fromWindow(win), {})).toMatchObject({ ok: true });
    expect(await list(fromWindow(win, `${DEV_URL}#/agents`), {})).toMatchObject({
      ok: false,
      error: { kind: 'forbidden' },
    });
  });

  it('an unpackaged app loads the dev server and leaves its headers alone; only the dev origin may call', async () => {
    const { win, headerListeners, ipcHandlers, trayImages } = await start(false, DEV_URL);
    expect(win.loadURL).toHaveBeenCalledWith(DEV_URL);
    expect(headerListeners).toHaveLength(0);
    expect(trayImages[0]).toBe(join('/checkout', 'build', 'tray', 'unknown.png'));

    const list = ipcHandlers.get(`${IPC_PREFIX}teams.list`)!;
    expect(await list(fromWindow(win), {})).toMatchObject({ ok: true });
    expect(await list(fromWindow(win, 'app://renderer/index.html'), {})).toMatchObject({
      ok: false,
      error: { kind: 'forbidden' },
    });
  });

  it('an unpackaged app without a dev server loads its own files with the CSP', async () => {
    const { win, headerListeners } = await start(false, undefined);
    expect(win.loadURL).toHaveBeenCalledWith('app://renderer/index.html');
    expect(await csp(headerListeners)).toEqual({ responseHeaders: { 'Content-Security-Policy': [RENDERER_CSP] } });
  });
});

describe('app paths', () => {
  const packaged = { isPackaged: true, getAppPath: () => '/x/resources/app.asar' };
  const checkout = { isPackaged: false, getAppPath: () => '/checkout' };

  it('takes the dev server URL only unpackaged, and only an http(s) one', () => {
    expect(rendererSource(packaged, DEV_URL)).toEqual({ url: 'app://renderer/index.html', devServer: false });
    expect(rendererSource(checkout, DEV_URL)).toEqual({ url: DEV_URL, devServer: true });
    expect(rendererSource(checkout, undefined)).toEqual({ url: 'app://renderer/index.html', devServer: false });
    expect(rendererSource(checkout, 'file:///tmp/evil.html')).toEqual({
      url: 'app://renderer/index.html',
      devServer: false,
    });
  });

  it('finds the tray icons beside app.asar once packaged, in build/ otherwise', () => {
    expect(trayIconDir(packaged, '/x/resources')).toBe(join('/x/resources', 'tray'));
    expect(trayIconDir(checkout, '/usr/lib/electron/resources')).toBe(join('/checkout', 'build', 'tray'));
  });
});

describe('Electron shell: native notifications', () => {
  it('an urgent notification shows when the policy alerts, and closes itself when its incident resolves', async () => {
    const { events, notifications } = await start(true, undefined);
    const incident = {
      id: 'i1',
      teamId: 't1',
      agentId: 'a1',
      kind: 'needs-scan',
      severity: 'urgent' as const,
      title: 'a1 was unlinked',
      message: 'Scan.',
      openedAt: NOW,
      acknowledgedAt: null,
      resolvedAt: null,
      endedAt: null,
      durationMs: null,
    };
    events.emit('alert', { change: 'opened', incident, notify: true });
    expect(notifications).toHaveLength(1);
    expect(notifications[0]!.options).toMatchObject({ title: 'a1 was unlinked', urgency: 'critical' });
    expect(notifications[0]!.show).toHaveBeenCalled();
    events.emit('alert', {
      change: 'resolved',
      incident: {
        ...incident,
        resolvedAt: NOW + 60_000,
        endedAt: NOW + 60_000,
        durationMs: 60_000,
        title: 'a1 is back to connected after 1 min',
      },
      notify: true,
    });
    expect(notifications[0]!.close).toHaveBeenCalled();
    expect(notifications[1]!.options).toMatchObject({ title: 'a1 is back to connected after 1 min', urgency: 'low' });
  });
});
