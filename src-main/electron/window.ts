// The main window: sandboxed, context-isolated, no Node; shown when ready; closing hides it to the
// tray (monitoring keeps running) unless the app is quitting.
import type { BrowserWindowConstructorOptions } from 'electron';
import { EVENT_PREFIX } from '../../src-shared/contract';
import { hardenContents, type HardenableContents, type ShellLike } from './security';

export interface WindowLike {
  webContents: HardenableContents & {
    id: number;
    send(channel: string, ...args: unknown[]): void;
    isDestroyed(): boolean;
  };
  loadURL(url: string): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'close', listener: (e: { preventDefault(): void }) => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
}

export type WindowCtor = new (options: BrowserWindowConstructorOptions) => WindowLike;

export interface WindowDeps {
  BrowserWindow: WindowCtor;
  shell: ShellLike;
  /** Absolute path to out/preload/index.cjs. */
  preloadPath: string;
  /** app://renderer/index.html (or the dev server URL in development). */
  appUrl: string;
  iconPath?: string;
  /** True once the user chose Quit: then close really closes. */
  isQuitting(): boolean;
}

function mainWindowOptions(preloadPath: string, iconPath?: string): BrowserWindowConstructorOptions {
  const options: BrowserWindowConstructorOptions = {
    width: 1100,
    height: 760,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Channel Companion',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
    },
  };
  if (iconPath) options.icon = iconPath;
  return options;
}

/** Creates the window and loads the app; the returned window is not shown until ready-to-show. */
export function createMainWindow(deps: WindowDeps): WindowLike {
  const win = new deps.BrowserWindow(mainWindowOptions(deps.preloadPath, deps.iconPath));
  hardenContents(win.webContents, deps.shell);
  win.once('ready-to-show', () => win.show());
  win.on('close', (e) => {
    if (!deps.isQuitting()) {
      e.preventDefault();
      win.hide();
    }
  });
  void win.loadURL(deps.appUrl);
  return win;
}

/** Shows, restores and focuses a window, and optionally routes it (e.g. "#/agents/a1"). */
export function revealWindow(win: WindowLike, route?: string): void {
  if (route !== undefined) win.webContents.send(`${EVENT_PREFIX}app.navigate`, { route });
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}
