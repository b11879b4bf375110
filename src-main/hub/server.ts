// The hub's network shell: the contract over HTTP exactly as the browser host serves it (POST /api/<request>,
// GET /api/events), for members only. Every request carries `Authorization: Bearer <member token>`:
// 401 without a present member's token, 403 when the request needs a higher role than the member's
// (checked before the handler runs). No renderer, no cookies: the team's reverse proxy terminates TLS.
//   GET /healthz   the process is alive
//   GET /readyz    the database answers (503 otherwise)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRequestName, type RequestName } from '../../src-shared/contract';
import type { Handlers } from '../app/handlers';
import type { ContractEvents } from '../app/contract';
import { contractServing, fail, sendJson } from '../app/contract-http';
import type { Member } from '../app/hub/members';
import { leastRole, roleAllows } from '../app/hub/roles';
import { asMember } from '../app/hub/acting';

interface HubServerOptions {
  handlers: Handlers;
  events: ContractEvents;
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
  /** How often open event streams are checked against the members (ms; default 1 s). */
  recheckMs?: number;
}

interface RunningHub {
  port: number;
  origin: string;
  close(): Promise<void>;
}

function bearerToken(req: IncomingMessage): string | null {
  const m = /^Bearer ([\x21-\x7e]{1,256})$/.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

export async function startHubServer(opts: HubServerOptions): Promise<RunningHub> {
  const api = contractServing({ handlers: opts.handlers, events: opts.events });
  // Open event streams and the token each was opened with: a removed member's stream ends within recheckMs.
  const streams = new Map<ServerResponse, string>();
  let checking = false;
  const recheck = setInterval(() => {
    if (checking || streams.size === 0) return;
    checking = true;
    void (async () => {
      for (const token of new Set(streams.values())) {
        const member = await opts.memberOfToken(token).catch(() => undefined);
        if (member !== null) continue;
        for (const [res, t] of streams) if (t === token) res.end();
      }
    })().finally(() => (checking = false));
  }, opts.recheckMs ?? 1_000);
  recheck.unref();

  async function serveApi(req: IncomingMessage, res: Parameters<typeof fail>[0], path: string): Promise<void> {
    const token = bearerToken(req);
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
      streams.set(res, token);
      res.on('close', () => streams.delete(res));
    }
    if (!isRequestName(name)) return api.serve(req, res, path);
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

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let work: Promise<void>;
    if (path === '/healthz') work = Promise.resolve(sendJson(res, 200, { ok: true }));
    else if (path === '/readyz')
      work = opts
        .ready()
        .then((ok) => sendJson(res, ok ? 200 : 503, { ok, database: ok ? 'reachable' : 'unreachable' }));
    else if (path === '/api' || path.startsWith('/api/')) work = serveApi(req, res, path);
    else work = Promise.resolve(fail(res, 404, 'not-found', 'NOT_FOUND', 'Not found.'));
    work.catch(() => {
      if (!res.headersSent) fail(res, 500, 'internal', 'INTERNAL', 'Something went wrong inside the hub.');
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

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
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(recheck);
        api.endStreams();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
