// The hub's network shell: the contract over HTTP exactly as the browser host serves it (POST /api/<request>,
// GET /api/events), for members only. Every request carries `Authorization: Bearer <member token>`:
// 401 without a present member's token, 403 when the request needs a higher role than the member's
// (checked before the handler runs). No renderer, no cookies: the team's reverse proxy terminates TLS.
//   GET /healthz   the process is alive
//   GET /readyz    the database answers (503 otherwise)
//   POST /hooks/<agentId>  the service's deliveries, handed to this replica's webhook receiver (no member token)
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isRequestName, type RequestName } from '../../src-shared/contract';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';
import { bearerToken, contractServing, fail, sendJson, type EventJournal } from '../app/contract-http';
import type { Member } from '../app/hub/members';
import { leastRole, roleAllows } from '../../src-shared/roles';
import { asMember } from '../app/hub/acting';

interface HubServerOptions {
  handlers: Handlers;
  /** The events served to this replica's clients only (without ids). */
  events: ContractEvents;
  /** The team's events, shared by every replica: served with ids, resumable on any replica (app/hub/events.ts). */
  journal?: EventJournal;
  /** The present member whose token this is, or null (looked up on every request). */
  memberOfToken(token: string): Promise<Member | null>;
  /** The database answers. */
  ready(): Promise<boolean>;
  /** Records a request beyond reading, with the member who made it (before its handler runs). */
  record?(entry: { member: string; action: RequestName }): Promise<void>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /**
   * This replica's webhook receiver: takes a request to `/hooks/<agentId>` (no member token: the service's
   * signature is the check) and answers it; false while it is not running (then 503 with Retry-After).
   */
  hooks?(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * A connection's error (a body cut at the request timeout, malformed HTTP), offered to the webhook receiver
   * first: true when a hook request was arriving on it (the receiver kept it as a refusal and answered it).
   */
  hookError?(err: Error, socket: Socket): boolean;
  /** How often open event streams are checked against the members (ms; default 1 s). */
  recheckMs?: number;
  /** The replica's Prometheus metrics (GET /metrics, for a member's token of any role). */
  metrics?(): Promise<{ contentType: string; body: string }>;
}

interface RunningHub {
  port: number;
  origin: string;
  /** Open event streams (clients listening). */
  clients(): number;
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * A graceful drain: /readyz answers 503 and new requests 503 from now on, event streams end, and it
   * resolves once the requests in flight are answered (at most `timeoutMs`, default 10 s).
   */
  drain(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Whether a `hub.role` event's payload is about `member`. */
function ownRoleEvent(payload: unknown, member: string | undefined): boolean {
  return member !== undefined && (payload as { member?: unknown } | null)?.member === member;
}

/** Answers a connection's error as Node does when no one listens for it (408 timeout, 431, 413, else 400). */
function answerClientError(err: Error, socket: Socket): void {
  const code = (err as { code?: string }).code;
  const status =
    code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 408
      : code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? 413
          : 400;
  const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (code !== 'ECONNRESET' && socket.writable && answered !== true)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
  socket.destroy();
}

export async function startHubServer(opts: HubServerOptions): Promise<RunningHub> {
  /** The member of each open event stream's request. */
  const streamMember = new WeakMap<IncomingMessage, Member>();
  const api = contractServing({
    handlers: opts.handlers,
    events: opts.events,
    // Unread counts are each member's own (their read marks): a member's stream is told theirs.
    localEvent: async (req, e) => {
      const member = streamMember.get(req);
      if (e.name !== 'messages.unread' || !member) return e;
      const own = await asMember(member, () => opts.handlers['messages.unread']({}));
      return own.ok ? { name: 'messages.unread', payload: own.value } : e;
    },
    ...(opts.journal ? { journal: opts.journal } : {}),
    // A member's role changed (or they were removed): told to that member's streams only.
    journalEvent: (req, e) => e.name !== 'hub.role' || ownRoleEvent(e.payload, streamMember.get(req)?.name),
  });
  // Open event streams, the token each was opened with and its member: a removed member's streams end as soon as
  // the removal's event comes (on every replica), and within recheckMs anyway (a removal made without one).
  const streams = new Map<ServerResponse, { token: string; member: string }>();
  const endStreamsOf = (test: (s: { token: string; member: string }) => boolean): void => {
    for (const [res, s] of streams) if (test(s)) res.end();
  };
  const removals = opts.journal?.follow(
    null,
    (e) => {
      const p = e.payload as { member?: unknown; role?: unknown } | null;
      // After the event itself is written to the member's streams (their windows hear why).
      if (e.name === 'hub.role' && p?.role === null && typeof p.member === 'string')
        setImmediate(() => endStreamsOf((s) => s.member === p.member));
    },
    () => undefined,
  );
  let checking = false;
  const recheck = setInterval(() => {
    if (checking || streams.size === 0) return;
    checking = true;
    void (async () => {
      for (const token of new Set([...streams.values()].map((s) => s.token))) {
        const member = await opts.memberOfToken(token).catch(() => undefined);
        if (member !== null) continue;
        endStreamsOf((s) => s.token === token);
      }
    })().finally(() => (checking = false));
  }, opts.recheckMs ?? 1_000);
  recheck.unref();

  async function serveApi(req: IncomingMessage, res: Parameters<typeof fail>[0], path: string): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    let member: Member | null = null;
    if (token !== null) {
      try {
        member = await opts.memberOfToken(token);
      } catch {
        return fail(res, 503, 'internal', 'DATABASE_UNAVAILABLE', 'The hub cannot reach its database; try again.', {
          'retry-after': '5',
        });
      }
    }
    if (!member)
      return fail(res, 401, 'forbidden', 'BAD_TOKEN', 'Missing, wrong or revoked member token.', {
        'www-authenticate': 'Bearer',
      });
    const name = path.slice('/api/'.length);
    if (name === 'events' && req.method === 'GET' && token !== null) {
      streamMember.set(req, member);
      streams.set(res, { token, member: member.name });
      res.on('close', () => streams.delete(res));
    }
    // The event stream runs as its member too: a request's answer stream (app/hub/streams.ts) is that member's.
    if (!isRequestName(name)) return asMember(member, () => api.serve(req, res, path));
    if (!roleAllows(member.role, name))
      return fail(
        res,
        403,
        'forbidden',
        'ROLE_FORBIDDEN',
        `${name} needs the role ${leastRole(name)} or above; ${member.name} is ${member.role}.`,
      );
    if (opts.record && leastRole(name) !== 'viewer')
      await opts.record({ member: member.name, action: name }).catch(() => undefined);
    const acting = member;
    await asMember(acting, () => api.serve(req, res, path));
  }

  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const serveMetrics = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const token = bearerToken(req.headers.authorization);
    const member = token === null ? null : await opts.memberOfToken(token).catch(() => null);
    if (!member || !opts.metrics)
      return fail(
        res,
        member ? 404 : 401,
        member ? 'not-found' : 'forbidden',
        member ? 'NOT_FOUND' : 'BAD_TOKEN',
        member ? 'Not found.' : 'Missing, wrong or revoked member token.',
      );
    const m = await opts.metrics();
    res.writeHead(200, { 'content-type': m.contentType, 'cache-control': 'no-store' });
    res.end(m.body);
  };

  // A request's head must arrive within 10 s and the whole request (its body too) within 30 s; Node looks at the
  // connections every second (by default every 30 s, which let a body sent a byte at a time run on to a minute).
  const server: Server = createServer({
    headersTimeout: 10_000,
    requestTimeout: 30_000,
    connectionsCheckingInterval: 1_000,
  });
  // A hook request cut on its way in is the receiver's to keep (a refusal) and answer; any other error, Node's way.
  server.on('clientError', (err: Error, socket: Socket) => {
    if (opts.hookError?.(err, socket) !== true) answerClientError(err, socket);
  });
  server.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let work: Promise<void>;
    if (path === '/healthz') work = Promise.resolve(sendJson(res, 200, { ok: true }));
    else if (path === '/readyz')
      work = draining
        ? Promise.resolve(sendJson(res, 503, { ok: false, draining: true }))
        : opts.ready().then((ok) => sendJson(res, ok ? 200 : 503, { ok, database: ok ? 'reachable' : 'unreachable' }));
    else if (draining)
      work = Promise.resolve(
        fail(res, 503, 'internal', 'DRAINING', 'This hub process is stopping; try again (another one answers).', {
          'retry-after': '1',
          connection: 'close',
        }),
      );
    else if (path === '/metrics') work = serveMetrics(req, res);
    else if ((path === '/hooks' || path.startsWith('/hooks/')) && opts.hooks !== undefined) {
      // A delivery in flight holds a graceful stop back like a request does, until its answer is sent.
      inFlight++;
      work = new Promise<void>((resolve) => {
        res.once('close', resolve);
        if (!opts.hooks!(req, res))
          fail(res, 503, 'internal', 'RECEIVER_DOWN', "The hub's webhook receiver is not running; try again.", {
            'retry-after': '5',
          });
      }).finally(() => {
        if (--inFlight === 0) idle?.();
      });
    } else if (path === '/api' || path.startsWith('/api/')) {
      inFlight++;
      work = serveApi(req, res, path).finally(() => {
        if (--inFlight === 0) idle?.();
      });
    } else work = Promise.resolve(fail(res, 404, 'not-found', 'NOT_FOUND', 'Not found.'));
    work.catch(() => {
      if (!res.headersSent) fail(res, 500, 'internal', 'INTERNAL', 'Something went wrong inside the hub.');
      else res.destroy();
    });
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    clients: () => streams.size,
    inFlight: () => inFlight,
    async drain(timeoutMs = 10_000) {
      draining = true;
      api.endStreams();
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(recheck);
        removals?.stop();
        api.endStreams();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
