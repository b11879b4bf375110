// What differs between the packaged app and a checkout: where the renderer is loaded from and where
// the tray icons are. Decided by app.isPackaged alone, never by the environment.
import { join } from 'node:path';
import { APP_URL } from './app-protocol';
import { isHttpUrl } from '../../src-shared/url';

export interface AppPathsLike {
  readonly isPackaged: boolean;
  getAppPath(): string;
}

export interface RendererSource {
  url: string;
  /** True for electron-vite's dev server: the window loads it over http and the CSP header is left to it. */
  devServer: boolean;
}

/**
 * electron-vite's dev server URL (ELECTRON_RENDERER_URL) is honoured only while the app runs
 * unpackaged; a packaged app always loads its own files over app:// with the CSP enforced.
 */
export function rendererSource(app: AppPathsLike, devServerUrl: string | undefined): RendererSource {
  if (!app.isPackaged && devServerUrl && isHttpUrl(devServerUrl)) return { url: devServerUrl, devServer: true };
  return { url: APP_URL, devServer: false };
}

/** resources/tray beside app.asar once packaged (electron-builder's extraResources); build/tray in a checkout. */
export function trayIconDir(app: AppPathsLike, resourcesPath: string): string {
  return app.isPackaged ? join(resourcesPath, 'tray') : join(app.getAppPath(), 'build', 'tray');
}
