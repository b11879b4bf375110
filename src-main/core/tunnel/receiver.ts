// The HTTP receiver: POST /hooks/<agentId> (or /hooks for the default agent) is handed over whole.
// Everything else is refused here and reported as metadata (refuse()): a path that is not a hook
// (404, "not-a-hook", so a wrongly registered URL shows up), the hook of an agent the receiver does
// not take deliveries for, when it is given its agents (404, "unknown-agent"; the answer names the
// hooks only to a caller on this machine that came directly), another method (405), a body over the
// limit (413, not read further), malformed HTTP and slow clients (400/408). Only the size, a
// sha256 and the first bytes of a refused body are kept while it streams past.
// Limits, each applied before any work on a request:
// - connections: at most maxConnections open at once. A connection over it closes the oldest one
//   that has no request under way (an idle one, or one whose headers are still arriving), or, when
//   every one has, is closed at once: idle sockets can neither exhaust the process's descriptors nor
//   keep deliveries out.
// - refusals: a source over its refusal budget (isLimited) is answered 429 before anything else is
//   done with its request (signed or not: no verification, no secret read, the body not read).
// - bytes in flight: the bodies of hook requests being read or handled hold at most
//   maxBytesInFlight (a body counts by its declared length from the start); a request over it is
//   answered 503 with Retry-After at once, its body not read.
import { createHash, type Hash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { silentLogger, type Logger } from '../ports';
import { isLoopbackHost } from '../url';
import { AGENT_ID_PATTERN } from '../../../src-shared/limits';
import type { HeaderMap, RefusedReason } from './types';
import { hookUrl } from './hook-url';

const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_AGENT_ID = 'default';
/** Connections open at once (see above). */
const DEFAULT_MAX_CONNECTIONS = 256;
/** Bytes of hook bodies being read or handled at once (see above). */
const DEFAULT_MAX_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
/** Seconds a request refused for the bytes in flight is asked to wait. */
const BUSY_RETRY_AFTER_SEC = 2;
/** The cap's warning is logged at most this often. */
const CAP_WARN_EVERY_MS = 60_000;
const PREFIX_BYTES = 256;

interface ReceivedRequest {
  agentId: string;
  method: string;
  path: string;
  headers: HeaderMap;
  body: Buffer;
  /** The remote address (see sourceOf). */
  from: string;
  /** The local peer that relayed it, when `from` was read from X-Forwarded-For. */
  via?: string;
}

/** What the receiver knows of a request it refuses itself (the body only as size, hash and prefix). */
export interface RefusalInput {
  reason: RefusedReason;
  status: number;
  detail: string;
  method: string;
  path: string;
  agentId: string | null;
  from: string;
  /** The local peer that relayed it, when `from` was read from X-Forwarded-For. */
  via?: string;
  headers: HeaderMap;
  size: number;
  sha256: string;
  prefix: string;
}

export interface Answer {
  status: number;
  response: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface ReceiverOptions {
  handle(req: ReceivedRequest): Promise<Answer>;
  /** Keeps the refusal and says what to answer (it may turn the answer into a 429). */
  refuse(r: RefusalInput, response: Record<string, unknown>): Answer;
  /** Seconds a source must wait before it is refused normally again (0: not limited). */
  isLimited?(from: string, via?: string): number;
  bodyLimitBytes?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The agent that `/hooks` (no id) belongs to. */
  defaultAgentId?: string;
  /** The only agents whose hooks there are, asked per request (default, or null: any). */
  agents?: () => ReadonlySet<string> | null;
  /** Connections open at once (default DEFAULT_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** Bytes of hook bodies being read or handled at once (default DEFAULT_MAX_BYTES_IN_FLIGHT). */
  maxBytesInFlight?: number;
  logger?: Logger;
}

export interface Receiver {
  readonly server: Server;
  /**
   * Handles one request another HTTP server took (a team hub serves the hooks on its own port): the
   * same as a request to this receiver's port, minus the connection cap, which is that server's.
   */
  serve(req: IncomingMessage, res: ServerResponse): void;
  /**
   * A connection error of the server that handed this receiver a request (serve): when the hook request on that
   * connection was still arriving (cut at the request timeout, or malformed HTTP in its body), it is kept as a
   * refusal and answered, and this is true; otherwise false, and that server answers the error itself.
   */
  serveError(err: Error, socket: Socket): boolean;
  listen(port: number, host: string): Promise<{ port: number; host: string }>;
  close(): Promise<void>;
}

/** A hook request whose body is still arriving: what it is kept as if its connection fails now. */
type Arriving = () => Omit<RefusalInput, 'reason' | 'status' | 'detail'> & { declared: number | null };

function sendJson(res: ServerResponse, a: Answer, extra?: Record<string, string>): void {
  const data = JSON.stringify(a.response);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(data),
  };
  if (a.headers) Object.assign(headers, a.headers);
  if (extra) Object.assign(headers, extra);
  res.writeHead(a.status, headers);
  res.end(data);
}

/** The path and query of a request target; an absolute-form one (`http://host/path`) gives its path. */
function originForm(target: string): string {
  if (target.startsWith('/') || !/^https?:\/\//i.test(target)) return target;
  try {
    const u = new URL(target);
    return `${u.pathname}${u.search}`;
  } catch {
    return target;
  }
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
  return AGENT_ID_PATTERN.test(id) ? id : null;
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

/** Headers a proxy or tunnel program adds when it relays a request from elsewhere. */
const RELAY_HEADERS = [
  'x-forwarded-for',
  'forwarded',
  'x-real-ip',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-client-ip',
  'cf-connecting-ip',
  'true-client-ip',
  'via',
];

/**
 * Whether the caller is on this machine and came directly: a loopback peer without a relay's
 * headers. A tunnel program also connects from loopback, on behalf of anyone on the public URL.
 */
/**
 * Whether a request is under way on the connection: Node's server gives the connection the request's
 * response from the moment its headers are read until it is sent (and none while it is idle or its
 * headers are still arriving). Asked only at the connection cap, so nothing is tracked per request.
 */
function underWay(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
}

function directFromThisMachine(peer: string, headers: HeaderMap): boolean {
  return isLoopbackHost(peer) && !RELAY_HEADERS.some((h) => headers[h] !== undefined);
}

/** The connection's remote address (IPv4 without its IPv6 prefix), or "unknown". */
function peerOf(socket: Socket | undefined): string {
  const raw = socket?.remoteAddress ?? '';
  return (raw.startsWith('::ffff:') ? raw.slice(7) : raw) || 'unknown';
}

/**
 * The remote address; for a connection from this machine (a tunnel program such as ngrok or
 * cloudflared) the last X-Forwarded-For hop, the one that program added.
 */
function sourceOf(socket: Socket | undefined, headers: HeaderMap): string {
  const remote = peerOf(socket);
  const xff = headers['x-forwarded-for'];
  if (xff === undefined || !isLoopbackHost(remote)) return remote;
  const hops = (Array.isArray(xff) ? xff.join(',') : xff).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim();
    if (hop !== '') return hop;
  }
  return remote;
}

/** The size, sha256 and first bytes of a body as it streams past (nothing more is kept). */
class Digest {
  size = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly head: Buffer[] = [];
  private headBytes = 0;

  update(chunk: Buffer): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.headBytes < PREFIX_BYTES) {
      const part = chunk.subarray(0, PREFIX_BYTES - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
  }

  result(): { size: number; sha256: string; prefix: string } {
    // A copy: a request cut while its body streams is read so far, and the hash may go on.
    return {
      size: this.size,
      sha256: this.hash.copy().digest('hex'),
      prefix: Buffer.concat(this.head).toString('utf8'),
    };
  }
}

export function digestOf(body: Buffer): { size: number; sha256: string; prefix: string } {
  const d = new Digest();
  d.update(body);
  return d.result();
}

export function createReceiver(o: ReceiverOptions): Receiver {
  const limit = o.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const logger = o.logger ?? silentLogger;
  const defaultAgent = o.defaultAgentId ?? DEFAULT_AGENT_ID;
  const maxConnections = Math.max(1, o.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const maxInFlight = Math.max(limit, o.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT);
  /** The hooks of a set of agents, made once per set. */
  let hooksOf: { of: ReadonlySet<string>; hooks: string[] } | null = null;
  const hooks = (only: ReadonlySet<string>): string[] => {
    if (hooksOf?.of !== only) hooksOf = { of: only, hooks: [...only].map((a) => hookUrl('', a)) };
    return hooksOf.hooks;
  };
  /** Open connections, oldest first. */
  const open = new Set<Socket>();
  let capWarnedAt = -Infinity;
  let bytesInFlight = 0;
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = createServer({
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
  });

  /** Answers at once without reading the body: half-close so the answer arrives, then drop the rest. */
  const answerAndClose = (req: IncomingMessage, res: ServerResponse, a: Answer) => {
    req.pause();
    req.removeAllListeners('data');
    res.once('finish', () => {
      req.socket.end();
      setTimeout(() => req.socket.destroy(), 1_000).unref();
    });
    sendJson(res, a, { connection: 'close' });
  };

  const tooLarge = (
    req: IncomingMessage,
    res: ServerResponse,
    base: Omit<RefusalInput, 'reason' | 'status' | 'detail' | 'size' | 'sha256' | 'prefix'>,
    d: Digest,
  ) => {
    const a = o.refuse(
      {
        ...base,
        reason: 'too-large',
        status: 413,
        detail: `the body is over the limit of ${limit} bytes; it was not read further`,
        ...d.result(),
      },
      { ok: false, reason: 'body-too-large', limitBytes: limit },
    );
    answerAndClose(req, res, a);
  };

  /** Too many bytes of bodies in flight: 503 with Retry-After at once, the body not read. */
  const busyNow = (
    req: IncomingMessage,
    res: ServerResponse,
    base: Omit<RefusalInput, 'reason' | 'status' | 'detail' | 'size' | 'sha256' | 'prefix'>,
    size: number,
  ) => {
    const a = o.refuse(
      {
        ...base,
        reason: 'busy',
        status: 503,
        detail: `the receiver holds ${maxInFlight} bytes of bodies at most at once, and this one (${size} bytes) would go over it; answered 503 at once, the body was not read`,
        size,
        sha256: '',
        prefix: '',
      },
      { ok: false, reason: 'busy', retryAfterSec: BUSY_RETRY_AFTER_SEC },
    );
    answerAndClose(req, res, { ...a, headers: { ...(a.headers ?? {}), 'retry-after': String(BUSY_RETRY_AFTER_SEC) } });
  };

  /** The hook requests whose bodies are arriving, by connection (a connection carries one request at a time). */
  const bodies = new WeakMap<Socket, Arriving>();
  const arriving = (req: IncomingMessage, res: ServerResponse, what: Arriving): void => {
    const socket = req.socket;
    bodies.set(socket, what);
    const done = () => {
      if (bodies.get(socket) === what) bodies.delete(socket);
    };
    req.once('end', done);
    res.once('close', done);
  };

  /** Keeps a connection's failure as a refusal (with the hook request that was arriving on it, if one was) and answers it. */
  const connectionError = (err: Error, socket: Socket, what: Arriving | undefined): void => {
    bodies.delete(socket);
    const timeout = (err as { code?: string }).code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timeout ? 408 : 400;
    const cut = what?.();
    const malformed = `malformed HTTP (${(err as { code?: string }).code ?? err.message})`;
    const a = o.refuse(
      cut
        ? {
            method: cut.method,
            path: cut.path,
            agentId: cut.agentId,
            from: cut.from,
            ...(cut.via !== undefined ? { via: cut.via } : {}),
            headers: cut.headers,
            size: cut.size,
            sha256: cut.sha256,
            prefix: cut.prefix,
            reason: 'bad-request',
            status,
            detail: `${timeout ? 'the request did not arrive in time' : malformed}: ${cut.size} of ${cut.declared ?? 'an undeclared number of'} bytes of its body had come; it was cut and not handled`,
          }
        : {
            reason: 'bad-request',
            status,
            detail: timeout ? 'the request did not arrive in time' : malformed,
            method: '',
            path: '',
            agentId: null,
            from: sourceOf(socket, {}),
            headers: {},
            size: 0,
            sha256: '',
            prefix: '',
          },
      {},
    );
    const line = a.status === 429 ? '429 Too Many Requests' : timeout ? '408 Request Timeout' : '400 Bad Request';
    const retry = a.headers?.['retry-after'] ? `retry-after: ${a.headers['retry-after']}\r\n` : '';
    const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (socket.writable && answered !== true) {
      socket.end(`HTTP/1.1 ${line}\r\nconnection: close\r\n${retry}content-length: 0\r\n\r\n`);
      setTimeout(() => socket.destroy(), 1_000).unref();
    } else socket.destroy();
    logger.warn('tunnel receiver: bad request', { error: err.message });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = originForm(req.url ?? '/');
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? '';
    const headers = headersOf(req);
    const from = sourceOf(req.socket, headers);
    const peer = peerOf(req.socket);
    const via = from !== peer ? peer : undefined;
    const routed = routeAgent(path, defaultAgent);
    const only = o.agents?.() ?? null;
    const stranger = routed !== null && only !== null && !only.has(routed);
    const agentId = stranger ? null : routed;
    const base = { method, path, agentId, from, ...(via !== undefined ? { via } : {}), headers };
    const accepted = agentId !== null && method === 'POST';

    const wait = o.isLimited?.(from, via) ?? 0;
    if (wait > 0) {
      const a = o.refuse(
        {
          ...base,
          reason: 'rate-limited',
          status: 429,
          detail: `this source sent too many refused requests; answered at once, the request was neither read nor verified`,
          size: 0,
          sha256: '',
          prefix: '',
        },
        { ok: false, reason: 'rate-limited', retryAfterSec: wait },
      );
      return answerAndClose(req, res, { ...a, headers: { ...(a.headers ?? {}), 'retry-after': String(wait) } });
    }

    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) return tooLarge(req, res, base, new Digest());

    if (!accepted) {
      // Read past (hashing, keeping only the first bytes) and refuse.
      const d = new Digest();
      arriving(req, res, () => ({ ...base, ...d.result(), declared: Number.isFinite(declared) ? declared : null }));
      let over = false;
      req.on('data', (chunk: Buffer) => {
        if (over) return;
        d.update(chunk);
        if (d.size > limit) {
          over = true;
          tooLarge(req, res, base, d);
        }
      });
      req.on('error', () => undefined);
      req.on('end', () => {
        if (over) return;
        // The hooks are named only to this machine: to anyone else the list would tell the agent ids.
        const tell = stranger && directFromThisMachine(peer, headers);
        const r = stranger
          ? o.refuse(
              {
                ...base,
                reason: 'unknown-agent',
                status: 404,
                detail: `${path} is the hook of an unknown agent: this receiver takes deliveries for ${hooks(only!).join(', ') || 'no agent'} only`,
                ...d.result(),
              },
              {
                ok: false,
                reason: 'unknown-agent',
                hint: tell && only!.size > 0 ? `POST ${hooks(only!).join(' or ')}` : 'POST /hooks/<agentId>',
              },
            )
          : agentId === null
            ? o.refuse(
                {
                  ...base,
                  reason: 'not-a-hook',
                  status: 404,
                  detail: `${path} is not a hook: deliveries go to /hooks/<agentId>`,
                  ...d.result(),
                },
                { ok: false, reason: 'not-found', hint: 'POST /hooks/<agentId>' },
              )
            : o.refuse(
                {
                  ...base,
                  reason: 'bad-request',
                  status: 405,
                  detail: `${method} is not accepted on a hook (only POST)`,
                  ...d.result(),
                },
                { ok: false, reason: 'method-not-allowed' },
              );
        sendJson(res, r, agentId === null ? undefined : { allow: 'POST' });
      });
      return;
    }

    // The body counts against the bytes in flight from the start by its declared length, then as it
    // arrives, until the answer is sent.
    const reserve = Number.isFinite(declared) && declared > 0 ? declared : 0;
    if (bytesInFlight + reserve > maxInFlight) return busyNow(req, res, base, reserve);
    bytesInFlight += reserve;
    let held = reserve;
    res.once('close', () => {
      bytesInFlight -= held;
      held = 0;
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    arriving(req, res, () => ({
      ...base,
      ...digestOf(Buffer.concat(chunks)),
      declared: Number.isFinite(declared) ? declared : null,
    }));
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        const d = new Digest();
        for (const c of chunks) d.update(c);
        d.update(chunk);
        chunks.length = 0;
        return tooLarge(req, res, base, d);
      }
      if (size > held) {
        const more = size - held;
        if (bytesInFlight + more > maxInFlight) {
          over = true;
          chunks.length = 0;
          return busyNow(req, res, base, size);
        }
        bytesInFlight += more;
        held = size;
      }
      chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (over) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      o.handle({ agentId: agentId!, method, path, headers, body, from, ...(via !== undefined ? { via } : {}) })
        .then((a) => sendJson(res, a))
        .catch((err) => {
          logger.error('tunnel receiver: handling failed', { error: err instanceof Error ? err.message : String(err) });
          if (!res.headersSent) sendJson(res, { status: 500, response: { ok: false, reason: 'internal-error' } });
        });
    });
  };
  server.on('request', onRequest);
  server.on('connection', (socket: Socket) => {
    if (open.size >= maxConnections) {
      let idle: Socket | undefined;
      for (const s of open) {
        if (!underWay(s)) {
          idle = s;
          break;
        }
      }
      const now = Date.now();
      if (now - capWarnedAt >= CAP_WARN_EVERY_MS) {
        capWarnedAt = now;
        logger.warn(
          `tunnel receiver: ${maxConnections} connections are open, the most it keeps; ${idle ? 'the oldest idle ones are closed' : 'new ones are closed at once'}`,
        );
      }
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      open.delete(idle);
      idle.destroy();
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('clientError', (err, socket: Socket) => connectionError(err, socket, bodies.get(socket)));

  return {
    server,
    serve: onRequest,
    serveError(err, socket) {
      const what = bodies.get(socket);
      if (what === undefined) return false;
      connectionError(err, socket, what);
      return true;
    },
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
