// A stand-in for the parts of the electron module the shell uses, recording what the shell asks of
// them. Like Electron, a web contents hands out a new frame object on every read of mainFrame.
import { vi } from 'vitest';

export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
  processId: number;
  routingId: number;
}

type Listener = (...args: unknown[]) => unknown;

function emitter() {
  const listeners = new Map<string, Listener[]>();
  return {
    on(event: string, l: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), l]);
      return this;
    },
    once(event: string, l: Listener) {
      return this.on(event, l);
    },
    emit(event: string, ...args: unknown[]) {
      for (const l of listeners.get(event) ?? []) l(...args);
    },
  };
}

let nextContentsId = 1;

class FakeWebContents {
  readonly id = nextContentsId++;
  /** Chromium's renderer process and frame ids of this window's top frame. */
  readonly processId = 100 + this.id;
  readonly routingId = 1;
  url = '';
  sent: unknown[][] = [];
  private readonly events = emitter();
  get mainFrame(): FakeFrame {
    return { url: this.url, parent: null, processId: this.processId, routingId: this.routingId };
  }
  on(event: string, l: Listener) {
    this.events.on(event, l);
    return this;
  }
  setWindowOpenHandler = vi.fn();
  getURL = () => this.url;
  send = (...args: unknown[]) => void this.sent.push(args);
  isDestroyed = () => false;
}

export class FakeBrowserWindow {
  static created: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  private readonly events = emitter();
  constructor(readonly options: unknown) {
    FakeBrowserWindow.created.push(this);
  }
  loadURL = vi.fn(async (url: string) => {
    this.webContents.url = url;
  });
  show = vi.fn();
  hide = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
  isDestroyed = () => false;
  isMinimized = () => false;
  once(event: string, l: Listener) {
    this.events.once(event, l);
    return this;
  }
  on(event: string, l: Listener) {
    this.events.on(event, l);
    return this;
  }
}

export function fakeElectron(opts: { isPackaged: boolean; appPath?: string }) {
  FakeBrowserWindow.created = [];
  const appEvents = emitter();
  const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
  const headerListeners: Listener[] = [];
  const trayImages: string[] = [];
  const app = {
    isPackaged: opts.isPackaged,
    getAppPath: () => opts.appPath ?? '/checkout',
    requestSingleInstanceLock: () => true,
    quit: vi.fn(),
    on: (event: string, l: Listener) => appEvents.on(event, l),
    whenReady: async () => undefined,
    getLoginItemSettings: () => ({ openAtLogin: false }),
    setLoginItemSettings: vi.fn(),
    setBadgeCount: vi.fn(() => true),
  };
  const powerMonitor = emitter();
  class FakeTray {
    constructor(image: string) {
      trayImages.push(image);
    }
    on = vi.fn();
    setImage = (image: string) => void trayImages.push(image);
    setToolTip = vi.fn();
    setContextMenu = vi.fn();
    destroy = vi.fn();
  }
  const notifications: FakeNotification[] = [];
  class FakeNotification {
    static isSupported = () => true;
    readonly handlers = new Map<string, () => void>();
    constructor(readonly options: { title: string; body: string; urgency: string; silent: boolean }) {
      notifications.push(this);
    }
    on = vi.fn((event: string, l: () => void) => void this.handlers.set(event, l));
    show = vi.fn();
    close = vi.fn();
  }
  const parts = {
    app,
    BrowserWindow: FakeBrowserWindow,
    ipcMain: {
      handle: (channel: string, l: (event: unknown, ...args: unknown[]) => Promise<unknown>) =>
        void ipcHandlers.set(channel, l),
      removeHandler: (channel: string) => void ipcHandlers.delete(channel),
    },
    Menu: { buildFromTemplate: (template: unknown) => template },
    Notification: FakeNotification,
    Tray: FakeTray,
    nativeImage: { createFromPath: (path: string) => path },
    powerMonitor,
    protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
    session: {
      defaultSession: {
        setPermissionRequestHandler: vi.fn(),
        setPermissionCheckHandler: vi.fn(),
        webRequest: { onHeadersReceived: (l: Listener) => void headerListeners.push(l) },
      },
    },
    shell: { openExternal: vi.fn(async () => undefined) },
  };
  return {
    parts,
    ipcHandlers,
    headerListeners,
    trayImages,
    notifications,
    powerMonitor,
    windows: () => FakeBrowserWindow.created,
  };
}
