// Electron composition root: builds the companion and the contract over it, and hands them, with
// the electron module's parts, to the shell (src-main/electron/shell.ts). Behaviour lives in
// src-main/core and src-main/app.
import {
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  app,
  dialog,
  ipcMain,
  nativeImage,
  powerMonitor,
  protocol,
  session,
  shell,
} from 'electron';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { launch } from './electron/startup';
import { askSavePath } from './electron/save-dialog';
import { hostCompanion, type HostedCompanion } from './app/companion/hosted';
import { attachCompanion, clientContract } from './app/companion/attach';
import { FolderOwnedError } from './app/companion/endpoint';
import { appDataDir } from './app/companion/data-dir';
import { defaultConfigDir, KeychainSecretStore } from './app/teams';
import { hubSwitchable } from './app/hub-connection';

// out/main/index.js → out/
const outDir = fileURLToPath(new URL('..', import.meta.url));

const consoleLogger = {
  info: () => undefined,
  warn: (msg: string) => console.warn(`channel-companion: ${msg}`),
  error: (msg: string) => console.error(`channel-companion: ${msg}`),
};

// Stopped cleanly on quit: polls aborted, the tunnel's log flushed, the demo emulator closed.
let companion: HostedCompanion | null = null;
let closed = false;
app.on('will-quit', (e) => {
  if (closed || !companion) return;
  e.preventDefault();
  const c = companion;
  companion = null;
  void c.close().finally(() => {
    closed = true;
    app.quit();
  });
});

// A config file that does not load is offered to be set aside in a message box; a start that still
// fails is shown in an error box and exits 1 (src-main/electron/startup.ts).
const configDir = defaultConfigDir();
void launch(
  {
    app,
    BrowserWindow,
    dialog,
    ipcMain,
    Menu,
    Notification,
    Tray,
    nativeImage,
    powerMonitor,
    protocol,
    session,
    shell,
  },
  {
    outDir,
    resourcesPath: process.resourcesPath,
    devServerUrl: process.env['ELECTRON_RENDERER_URL'] || undefined,
    configDir,
    log: (message) => console.error(message),
    // The companion: config and data shared with the CLI (defaultConfigDir, its data/ folder; an
    // earlier version's data under userData is moved there once), the OS keychain, the system clock.
    // Alerts reach native notifications through the shell's subscription to the 'alert' events
    // (src-main/electron/notifications.ts).
    createContract: async () => {
      // It owns the data folder and serves it to the command line (app/companion/endpoint.ts); when another
      // companion owns it already (`up`, `serve`), the window is that companion's client instead.
      const dataDir = await appDataDir(configDir, join(app.getPath('userData'), 'data'), consoleLogger);
      const hubOptions = { configDir, secrets: new KeychainSecretStore(), logger: consoleLogger };
      try {
        companion = await hostCompanion({
          shell: 'desktop',
          command: 'the desktop app',
          configDir,
          dataDir,
          logger: consoleLogger,
          contract: { media: { askSavePath: askSavePath({ dialog, app }) } },
        });
        // The windows work with it, or with the team's hub they were connected to (Settings → Team hub).
        return hubSwitchable(companion.contract, hubOptions);
      } catch (e) {
        if (!(e instanceof FolderOwnedError)) throw e;
        const attached = await attachCompanion(dataDir);
        if (!attached) throw e;
        consoleLogger.warn(`the data folder is owned by another companion; this window is its client (${e.message})`);
        return hubSwitchable(clientContract(attached.client), hubOptions);
      }
    },
  },
);
