// The loopback HTTP receiver: POST /hooks/<agentId> (or /hooks for the default agent).
// Bodies over the limit get 413 without being read further; slow clients are cut off by
// headersTimeout/requestTimeout; anything but POST gets 405.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../ports';
import type { HeaderMap } from './types';

const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_AGENT_ID = 'default';

const AGENT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

export interface ReceivedRequest {
  agentId: string;
  method: string;
  path: string;
  headers: HeaderMap;
  body: Buffer;
}

export interface ReceiverOptions {
  handle(req: ReceivedRequest): Promise<{ status: number; response: Record<string, unknown> }>;
  bodyLimitBytes?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The agent that `/hooks` (no id) belongs to. */
  defaultAgentId?: string;
  logger?: Logger;
}

export interface Receiver {
  readonly server: Server;
  listen(port: number, host: string): Promise<{ port: number; host: string }>;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void {
  const data = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(data) };
  if (extra) Object.assign(headers, extra);
  res.writeHead(status, headers);
  res.end(data);
}

/** The agent a path belongs to, or null when the path is not a hook. */
function routeAgent(path: string, defaultAgentId: string): string | null {
  if (path === '/hooks' || path === '/hooks/') return defaultAgentId;
  const m = /^\/hooks\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  let id: string;
  try {
    id = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  // The same rule as agentIdSchema, without building a parse result per request.
  return AGENT_ID_RE.test(id) ? id : null;
}

/** Node gives each request its own headers object (names lower-cased); drop undefined values only. */
function headersOf(req: IncomingMessage): HeaderMap {
  const h = req.headers;
  for (const k in h) {
    if (h[k] === undefined) {
      const out: HeaderMap = {};
      for (const [name, v] of Object.entries(h)) if (v !== undefined) out[name] = v;
      return out;
    }
  }
  return h as HeaderMap;
}

export function createReceiver(o: ReceiverOptions): Receiver {
  const limit = o.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = o.logger ?? silentLogger;
  const defaultAgent = o.defaultAgentId ?? DEFAULT_AGENT_ID;
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
  });

  const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
    req.pause();
    req.removeAllListeners('data');
    res.once('finish', () => {
      // Half-close so the answer reaches the client, then drop whatever it still sends.
      req.socket.end();
      setTimeout(() => req.socket.destroy(), 1_000).unref();
    });
    sendJson(res, 413, { ok: false, reason: 'body-too-large', limitBytes: limit }, { connection: 'close' });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const agentId = routeAgent(path, defaultAgent);
    if (agentId === null) return sendJson(res, 404, { ok: false, reason: 'not-found', hint: 'POST /hooks/<agentId>' });
    if (req.method !== 'POST') return sendJson(res, 405, { ok: false, reason: 'method-not-allowed' }, { allow: 'POST' });
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) return tooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        return tooLarge(req, res);
      }
      chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (over) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      o.handle({ agentId, method: req.method!, path, headers: headersOf(req), body })
        .then(({ status, response }) => sendJson(res, status, response))
        .catch((err) => {
          logger.error('tunnel receiver: handling failed', { error: err instanceof Error ? err.message : String(err) });
          if (!res.headersSent) sendJson(res, 500, { ok: false, reason: 'internal-error' });
        });
    });
  });
  server.on('clientError', (err, socket) => {
    const timeout = (err as { code?: string }).code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const line = timeout ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${line}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
    logger.warn('tunnel receiver: bad request', { error: (err as Error).message });
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address() as AddressInfo;
          resolve({ port: a.port, host });
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }),
  };
}
