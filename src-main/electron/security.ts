// Hardening of every web contents: no new windows (http(s) links open in the system browser), no
// navigation away from the app, no permissions, a strict CSP on every response, no <webview>.
import { isHttpUrl } from '../../src-shared/url';
import { RENDERER_CSP } from '../app/web-security';

export interface ShellLike {
  openExternal(url: string): Promise<void>;
}

type WindowOpenResponse = { action: 'deny' } | { action: 'allow' };

export interface HardenableContents {
  getURL(): string;
  setWindowOpenHandler(handler: (details: { url: string }) => WindowOpenResponse): void;
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: { preventDefault(): void; url?: string }, url?: string) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** Deny every new window; hand http(s) links to the OS browser, drop everything else (file:, javascript:, custom schemes). */
function windowOpenHandler(shell: ShellLike) {
  return ({ url }: { url: string }): WindowOpenResponse => {
    if (isHttpUrl(url)) void shell.openExternal(url).catch(() => undefined);
    return { action: 'deny' };
  };
}

/** Navigation is allowed only to the URL already shown (a reload); everything else is prevented. */
function navigationGuard(contents: Pick<HardenableContents, 'getURL'>) {
  return (event: { preventDefault(): void; url?: string }, legacyUrl?: string): void => {
    const target = event.url ?? legacyUrl ?? '';
    if (target !== contents.getURL()) event.preventDefault();
  };
}

export function hardenContents(contents: HardenableContents, shell: ShellLike): void {
  contents.setWindowOpenHandler(windowOpenHandler(shell));
  const guard = navigationGuard(contents);
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (e) => e.preventDefault());
}

export interface SessionLike {
  setPermissionRequestHandler(
    handler: (wc: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (wc: unknown, permission: string) => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[] | string> },
        callback: (response: { responseHeaders?: Record<string, string[] | string> }) => void,
      ) => void,
    ): void;
  };
}

/** Deny every permission request and check (camera, notifications-from-page, geolocation, …). */
export function denyAllPermissions(session: SessionLike): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/** Adds the CSP header to every response the session receives (dev server included, when not in dev mode). */
export function enforceCsp(session: SessionLike, csp: string = RENDERER_CSP): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...(details.responseHeaders ?? {}) };
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-security-policy') delete headers[k];
    headers['Content-Security-Policy'] = [csp];
    callback({ responseHeaders: headers });
  });
}
