// The renderer is served from app://renderer/… (a standard, secure scheme) rather than file://, so
// 'self' in the CSP means exactly our files and the sender check compares one origin.
import { readFile } from 'node:fs/promises';
import { resolveStaticFile } from '../app/static-files';
import { rendererHeaders } from '../app/web-security';

const APP_SCHEME = 'app';
const APP_HOST = 'renderer';
const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

export interface ProtocolLike {
  registerSchemesAsPrivileged(schemes: { scheme: string; privileges: Record<string, boolean> }[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}

/** Must run before app 'ready'. */
export function registerAppScheme(protocol: Pick<ProtocolLike, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: false } },
  ]);
}

function appProtocolHandler(rendererDir: string) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('Not found', { status: 404 });
    const file = await resolveStaticFile(rendererDir, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(new Uint8Array(await readFile(file)), { status: 200, headers: rendererHeaders(file) });
  };
}

export function serveAppProtocol(protocol: Pick<ProtocolLike, 'handle'>, rendererDir: string): void {
  protocol.handle(APP_SCHEME, appProtocolHandler(rendererDir));
}
