// Electron composition root: builds the services and hands them, with the electron module's parts,
// to the shell (src-main/electron/shell.ts). Behaviour lives in src-main/core and src-main/app.
import { BrowserWindow, Menu, Notification, Tray, app, ipcMain, nativeImage, protocol, session, shell } from 'electron';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { startElectronShell } from './electron/shell';
import { createUnwiredServices } from './app/unwired-services';

// out/main/index.js → out/
const outDir = fileURLToPath(new URL('..', import.meta.url));

startElectronShell(
  { app, BrowserWindow, ipcMain, Menu, Notification, Tray, nativeImage, protocol, session, shell },
  {
    outDir,
    buildDir: join(app.getAppPath(), 'build'),
    devServerUrl: process.env['ELECTRON_RENDERER_URL'] || undefined,
    // TODO(lead): build the real AppServices over the core (companion.ts) with paths from
    // app.getPath('userData'), the OS keychain secret store, and the system clock.
    createServices: async () => createUnwiredServices(),
  },
).catch((e: unknown) => {
  console.error('Channel Companion failed to start:', e instanceof Error ? e.message : 'unknown error');
  app.exit(1);
});
