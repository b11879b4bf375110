// The browser host: the built renderer and the contract over loopback HTTP.
//   GET  /…                 static files from out/renderer (strict CSP)
//   POST /api/<request>     JSON args → Result JSON
//   GET  /api/events        SSE stream of contract events, with heartbeats
// Access: loopback Host, same-origin Origin, and the access token (kept across restarts by `serve`,
// see ./state) in Authorization: Bearer or x-cc-token (never in a query string or cookie). Open it at
// http://127.0.0.1:PORT/#token=…
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';
import { resolveStaticFile } from '../app/static-files';
import { contractServing, fail } from '../app/contract-http';
import { rendererHeaders } from '../app/web-security';
import { newToken, originAllowed, presentedToken, tokenMatches } from './access';
import { hostHeaderAllowed } from '../app/url';
import { isLoopbackHost } from '../../src-shared/url';

export interface HostOptions {
  handlers: Handlers;
  events: ContractEvents;
  /** Folder of the built renderer (out/renderer). */
  rendererDir: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Injected in tests; a fresh random token otherwise. */
  token?: string;
  /** Default 2 MiB. */
  maxBodyBytes?: number;
  /** Default 15 s. */
  heartbeatMs?: number;
}

export interface RunningHost {
  port: number;
  origin: string;
  token: string;
  /** The one URL to open; print it once. */
  openUrl: string;
  close(): Promise<void>;
}

export async function startHostServer(opts: HostOptions): Promise<RunningHost> {
  const token = opts.token ?? newToken();
  const api = contractServing({
    handlers: opts.handlers,
    events: opts.events,
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.heartbeatMs !== undefined ? { heartbeatMs: opts.heartbeatMs } : {}),
  });
  let port = 0;

  async function serveStatic(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return fail(res, 405, 'validation', 'METHOD_NOT_ALLOWED', 'Method not allowed.', { allow: 'GET, HEAD' });
    const file = await resolveStaticFile(opts.rendererDir, path);
    if (!file) return fail(res, 404, 'not-found', 'NOT_FOUND', 'Not found.');
    const body = await readFile(file);
    res.writeHead(200, { ...rendererHeaders(file), 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  async function serveApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!tokenMatches(presentedToken(req), token)) {
      return fail(res, 401, 'forbidden', 'BAD_TOKEN', 'Missing or wrong access token.', {
        'www-authenticate': 'Bearer',
      });
    }
    return api.serve(req, res, path);
  }

  const host = opts.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!hostHeaderAllowed(req.headers.host, port, { allowIpLiterals: !isLoopbackHost(host) }))
      return fail(res, 403, 'forbidden', 'BAD_HOST', 'Unexpected Host header.');
    if (!originAllowed(req)) return fail(res, 403, 'forbidden', 'BAD_ORIGIN', 'Cross-origin requests are not allowed.');
    const work = path === '/api' || path.startsWith('/api/') ? serveApi(req, res, path) : serveStatic(req, res, path);
    work.catch(() => {
      if (!res.headersSent) fail(res, 500, 'internal', 'INTERNAL', 'Something went wrong inside the app.');
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    origin,
    token,
    openUrl: `${origin}/#token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        api.endStreams();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
