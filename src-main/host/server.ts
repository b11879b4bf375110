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
import { isRequestName, type Result } from '../../src-shared/contract';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';
import { resolveStaticFile } from '../app/static-files';
import { rendererHeaders } from '../app/web-security';
import { newToken, originAllowed, presentedToken, tokenMatches } from './access';
import { hostHeaderAllowed, isLoopbackHost } from '../core/url';

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

const API_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...API_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

function fail(
  res: ServerResponse,
  status: number,
  kind: 'forbidden' | 'validation' | 'not-found' | 'internal',
  code: string,
  message: string,
  extra: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, error: { kind, code, message } } satisfies Result<never>, extra);
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        // Stop keeping it; the rest is read and dropped so the 413 reaches the client.
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startHostServer(opts: HostOptions): Promise<RunningHost> {
  const token = opts.token ?? newToken();
  const maxBody = opts.maxBodyBytes ?? 2 * 1024 * 1024;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const streams = new Set<ServerResponse>();
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

  function serveEvents(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      ...API_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    streams.add(res);
    // Events published in one turn of the event loop (the tokens of one chat chunk) leave in one
    // write: one syscall and one chunk for the browser to read, not one per token.
    let batch = '';
    const flush = (): void => {
      if (batch !== '' && !res.destroyed) res.write(batch);
      batch = '';
    };
    const unsubscribe = opts.events.onAny((e) => {
      if (batch === '') process.nextTick(flush);
      batch += `event: ${e.name}\ndata: ${JSON.stringify(e.payload)}\n\n`;
    });
    const beat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    const stop = (): void => {
      clearInterval(beat);
      unsubscribe();
      streams.delete(res);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  async function serveApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!tokenMatches(presentedToken(req), token)) {
      return fail(res, 401, 'forbidden', 'BAD_TOKEN', 'Missing or wrong access token.', {
        'www-authenticate': 'Bearer',
      });
    }
    const name = path.slice('/api/'.length);
    if (name === 'events') {
      if (req.method !== 'GET') return fail(res, 405, 'validation', 'METHOD_NOT_ALLOWED', 'Use GET.', { allow: 'GET' });
      return serveEvents(req, res);
    }
    if (!isRequestName(name)) return fail(res, 404, 'not-found', 'UNKNOWN_REQUEST', 'Unknown request.');
    if (req.method !== 'POST')
      return fail(res, 405, 'validation', 'METHOD_NOT_ALLOWED', 'Use POST.', { allow: 'POST' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      return fail(res, 415, 'validation', 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json.');
    let raw: string;
    try {
      raw = await readBody(req, maxBody);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        req.resume();
        return fail(res, 413, 'validation', 'BODY_TOO_LARGE', 'The request body is too large.', {
          connection: 'close',
        });
      }
      throw e;
    }
    let args: unknown;
    try {
      args = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return fail(res, 400, 'validation', 'BAD_JSON', 'The body is not valid JSON.');
    }
    const handler = opts.handlers[name] as (raw: unknown) => Promise<Result<unknown>>;
    sendJson(res, 200, await handler(args));
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
        for (const s of streams) s.end();
        streams.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
