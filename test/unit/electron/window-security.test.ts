import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { createMainWindow, revealWindow, type WindowCtor } from '../../../src-main/electron/window';
import {
  denyAllPermissions,
  enforceCsp,
  hardenContents,
  type HardenableContents,
} from '../../../src-main/electron/security';
import { RENDERER_CSP } from '../../../src-main/app/web-security';

type Guard = (event: { preventDefault(): void; url?: string }, legacyUrl?: string) => void;

/** Web contents showing `url`, hardened: its window-open handler and the listeners it was given. */
function hardened(url: string, shell = { openExternal: vi.fn(async (_url: string) => {}) }) {
  const listeners = new Map<string, Guard>();
  let openHandler: ((d: { url: string }) => unknown) | null = null;
  const contents = {
    getURL: () => url,
    setWindowOpenHandler: (h: (d: { url: string }) => unknown) => void (openHandler = h),
    on: (event: string, l: Guard) => void listeners.set(event, l),
  };
  hardenContents(contents as unknown as HardenableContents, shell);
  return { shell, open: (u: string) => openHandler!({ url: u }), on: (event: string) => listeners.get(event)! };
}

function fakeWindowClass() {
  const created: FakeWin[] = [];
  class FakeWin {
    handlers = new Map<string, ((...a: unknown[]) => void)[]>();
    shown = 0;
    hidden = 0;
    loaded: string | null = null;
    webContents = {
      id: 7,
      url: 'app://renderer/index.html',
      sent: [] as unknown[][],
      openHandler: null as null | ((d: { url: string }) => unknown),
      on: vi.fn((ev: string, l: (...a: unknown[]) => void) => this.add(`wc:${ev}`, l)),
      setWindowOpenHandler: (h: (d: { url: string }) => unknown) => (this.webContents.openHandler = h),
      getURL: () => this.webContents.url,
      send: (...a: unknown[]) => this.webContents.sent.push(a),
      isDestroyed: () => false,
    };
    constructor(readonly options: unknown) {
      created.push(this);
    }
    add(ev: string, l: (...a: unknown[]) => void) {
      this.handlers.set(ev, [...(this.handlers.get(ev) ?? []), l]);
    }
    emit(ev: string, ...a: unknown[]) {
      for (const l of this.handlers.get(ev) ?? []) l(...a);
    }
    loadURL = async (u: string) => void (this.loaded = u);
    show = () => void this.shown++;
    hide = () => void this.hidden++;
    focus = () => undefined;
    isDestroyed = () => false;
    isMinimized = () => false;
    restore = () => undefined;
    once = (ev: string, l: () => void) => this.add(ev, l);
    on = (ev: string, l: (...a: unknown[]) => void) => this.add(ev, l);
  }
  return { FakeWin, created };
}

describe('main window', () => {
  it('is sandboxed, context-isolated, without node, with the CJS preload, hidden until ready', () => {
    const { FakeWin, created } = fakeWindowClass();
    createMainWindow({
      BrowserWindow: FakeWin as never,
      shell: { openExternal: async () => {} },
      preloadPath: '/app/out/preload/index.cjs',
      appUrl: 'app://renderer/index.html',
      iconPath: '/app/icon.png',
      isQuitting: () => false,
    });
    const o = created[0]!.options as ConstructorParameters<WindowCtor>[0];
    expect(o.show).toBe(false);
    expect(o.icon).toBe('/app/icon.png');
    expect(o.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
  });

  it('shows on ready-to-show, loads the app URL, and hides on close unless quitting', () => {
    const { FakeWin, created } = fakeWindowClass();
    let quitting = false;
    const shell = { openExternal: vi.fn(async () => {}) };
    createMainWindow({
      BrowserWindow: FakeWin as never,
      shell,
      preloadPath: '/p.cjs',
      appUrl: 'app://renderer/index.html',
      isQuitting: () => quitting,
    });
    const w = created[0]!;
    expect(w.loaded).toBe('app://renderer/index.html');
    expect(w.shown).toBe(0);
    w.emit('ready-to-show');
    expect(w.shown).toBe(1);

    const closeEvent = { preventDefault: vi.fn() };
    w.emit('close', closeEvent);
    expect(closeEvent.preventDefault).toHaveBeenCalled();
    expect(w.hidden).toBe(1);

    quitting = true;
    const closeEvent2 = { preventDefault: vi.fn() };
    w.emit('close', closeEvent2);
    expect(closeEvent2.preventDefault).not.toHaveBeenCalled();

    // hardened: window.open denied, navigation guarded
    expect(w.webContents.openHandler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com');
    expect(w.handlers.has('wc:will-navigate')).toBe(true);
    expect(w.handlers.has('wc:will-attach-webview')).toBe(true);

    revealWindow(w as never, '#/agents/a1?team=t1');
    expect(w.webContents.sent).toEqual([['cc-event:app.navigate', { route: '#/agents/a1?team=t1' }]]);
  });
});

describe('window-open and navigation handlers', () => {
  it('deny every new window; only http(s) go to the system browser', () => {
    const { shell, open } = hardened('app://renderer/index.html');
    for (const url of [
      'http://example.com/a',
      'https://example.com/b',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'not a url',
    ]) {
      expect(open(url)).toEqual({ action: 'deny' });
    }
    expect(shell.openExternal.mock.calls.map((c) => c[0])).toEqual(['http://example.com/a', 'https://example.com/b']);
  });

  it.each(['will-navigate', 'will-redirect'])('%s is prevented except to the same URL', (event) => {
    const guard = hardened('app://renderer/index.html').on(event);
    const away = { url: 'https://evil.example/', preventDefault: vi.fn() };
    guard(away);
    expect(away.preventDefault).toHaveBeenCalled();
    const same = { url: 'app://renderer/index.html', preventDefault: vi.fn() };
    guard(same);
    expect(same.preventDefault).not.toHaveBeenCalled();
    const legacy = { preventDefault: vi.fn() };
    guard(legacy, 'file:///etc/passwd');
    expect(legacy.preventDefault).toHaveBeenCalled();
  });

  it('prevents every <webview>', () => {
    const attach = { preventDefault: vi.fn() };
    hardened('app://renderer/index.html').on('will-attach-webview')(attach);
    expect(attach.preventDefault).toHaveBeenCalled();
  });
});

describe('session hardening', () => {
  it('denies every permission request and check, and sets the CSP header', () => {
    let req: ((wc: unknown, p: string, cb: (g: boolean) => void) => void) | null = null;
    let check: ((wc: unknown, p: string) => boolean) | null = null;
    let headers:
      | ((
          d: { url: string; responseHeaders?: Record<string, string[] | string> },
          cb: (r: { responseHeaders: Record<string, string[]> }) => void,
        ) => void)
      | null = null;
    const session = {
      setPermissionRequestHandler: (h: typeof req) => (req = h),
      setPermissionCheckHandler: (h: typeof check) => (check = h),
      webRequest: { onHeadersReceived: (h: typeof headers) => (headers = h) },
    };
    denyAllPermissions(session as never);
    enforceCsp(session as never);
    for (const p of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal']) {
      const cb = vi.fn();
      req!(null, p, cb);
      expect(cb).toHaveBeenCalledWith(false);
      expect(check!(null, p)).toBe(false);
    }
    const cb = vi.fn((_r: { responseHeaders: Record<string, string[]> }) => undefined);
    headers!(
      {
        url: 'app://renderer/index.html',
        responseHeaders: { 'content-security-policy': ["default-src *; script-src 'unsafe-eval'"] },
      },
      cb,
    );
    const out = cb.mock.calls[0]![0].responseHeaders;
    expect(out['content-security-policy']).toBeUndefined();
    expect(out['Content-Security-Policy']).toEqual([RENDERER_CSP]);
    expect(RENDERER_CSP).toContain("default-src 'self'");
    expect(RENDERER_CSP).not.toContain('unsafe-eval');
    expect(RENDERER_CSP).not.toContain('unsafe-inline');
  });
});
