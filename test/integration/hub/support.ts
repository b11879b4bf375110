// What the hub's integration tests share: a migrated database on a Postgres of the test's own, a replica as a real
// process, a member and their token, this machine's companion (which a window working through the hub never asks),
// the contract over HTTP as a member, a signed delivery to a replica's /hooks, SQL on the test's Postgres, and the
// service behind a proxy that counts its polls (and can refuse or drop every call).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import type { CompanionContract } from '../../../src-main/app/contract';
import type { Implementations } from '../../../src-main/app/handlers';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { signDelivery } from '../../../src-main/core/signature';
import { REQUEST_NAMES } from '../../../src-shared/contract';
import { runCli } from '../../helpers/cli';
import { hubCall } from '../../helpers/hub-call';
import { spawnCli, type Spawned } from '../../helpers/spawn-cli';
import { startPostgres, type TestPostgres } from './postgres';

export interface HubDatabaseSuite {
  readonly server: TestPostgres;
  /** The hub's database on it, migrated. */
  readonly db: HubDatabase;
  /** A folder of the block's own (`<prefix>…` in the temp folder). */
  readonly dir: string;
}

/**
 * Registers, in the calling describe block, a Postgres of its own with the hub's database migrated and a folder
 * of its own: started before all its tests, stopped (and the folder removed) after all.
 */
export function useHubDatabase(prefix: string): HubDatabaseSuite {
  let server: TestPostgres | undefined;
  let db: HubDatabase | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    db = openHubDatabase(server.url);
    await migrateHub(db);
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);
  const must = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the hub database is not started');
    return v;
  };
  return {
    get server() {
      return must(server);
    },
    get db() {
      return must(db);
    },
    get dir() {
      return must(dir);
    },
  };
}

export interface HubReplica {
  name: string;
  proc: Spawned;
  origin: string;
  /** The replica's id (its ready line's `replica`: host, process id and a tag). */
  replica: string;
}

export interface ReplicaOptions {
  databaseUrl: string;
  secretKey: string;
  /** The test's folder: the replica's folders are `<dir>/<name>/config` and `<dir>/<name>/data`. */
  dir: string;
  name: string;
  publicUrl?: string;
  pollSec?: number;
  /** More arguments after those. */
  args?: readonly string[];
  env?: Record<string, string>;
  /** How long its ready line may take (default 60 s). */
  readyMs?: number;
}

/** Starts `hub --json` as a process on a free port and waits for its ready line. */
export async function startHubReplica(o: ReplicaOptions): Promise<HubReplica> {
  const proc = spawnCli(
    [
      'hub',
      '--json',
      '--port',
      '0',
      ...(o.publicUrl ? ['--public-url', o.publicUrl] : []),
      ...(o.pollSec !== undefined ? ['--poll-sec', String(o.pollSec)] : []),
      '--config-dir',
      path.join(o.dir, o.name, 'config'),
      '--data-dir',
      path.join(o.dir, o.name, 'data'),
      ...(o.args ?? []),
    ],
    { DATABASE_URL: o.databaseUrl, CHANNEL_HUB_SECRET_KEY: o.secretKey, ...o.env },
  );
  try {
    const ready = (await proc.firstJsonLine(o.readyMs ?? 60_000)) as { origin: string; replica: string };
    return { name: o.name, proc, origin: ready.origin, replica: ready.replica };
  } catch (e) {
    if (alive(proc)) proc.child.kill('SIGKILL');
    throw e;
  }
}

/** Whether a spawned process still runs. */
export const alive = (p: Spawned): boolean => p.child.exitCode === null && p.child.signalCode === null;

/** Stops the processes still running (SIGTERM drains, SIGKILL does not) and waits for every one to exit. */
export async function stopAll(procs: readonly Spawned[], signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  for (const p of procs) if (alive(p)) p.child.kill(signal);
  await Promise.all(procs.map((p) => p.exited));
}

/** This machine's companion, never asked while the window works through the hub. */
export function localContract(): CompanionContract {
  const impl = {} as Record<string, (args: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES)
    impl[name] = async () => {
      throw new Error(`${name}: not asked of this machine in this test`);
    };
  return {
    implementations: impl as unknown as Implementations,
    events: { onAny: () => () => undefined },
    now: () => Date.now(),
    setScreenLocked: () => undefined,
    dispose: () => undefined,
  };
}

/** `hub member add NAME --role ROLE`: the member's token. */
export async function addMember(databaseUrl: string, name: string, role: string): Promise<string> {
  const r = await runCli(['hub', 'member', 'add', name, '--role', role, '--json'], {
    env: { DATABASE_URL: databaseUrl },
  });
  expect(r.code, r.stderr).toBe(0);
  return (r.json()[0] as { token: string }).token;
}

export { hubCall };

export interface HeardEvent {
  name: string;
  /** The SSE id (a hub's team events carry one), or null. */
  id: string | null;
  data: unknown;
}

/** A member's event stream (`GET /api/events`), once it answered: every event it carries, in order, as it comes. */
export async function memberStream(
  origin: string,
  token: string,
): Promise<{ status: number; heard: HeardEvent[]; close(): void }> {
  const stop = new AbortController();
  const heard: HeardEvent[] = [];
  const res = await fetch(`${origin}/api/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: stop.signal,
  });
  const parser = createParser({
    onEvent: (ev) => heard.push({ name: ev.event ?? 'message', id: ev.id ?? null, data: JSON.parse(ev.data) }),
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  })().catch(() => undefined);
  return { status: res.status, heard, close: () => stop.abort() };
}

/**
 * A team of one agent added through a replica (the service at `baseUrl`, its key `apiKey`), the agent registered to
 * the hub's hook `<publicUrl>/hooks/<agentId>`: the team's id and the agent's signing secret (revealed to an admin).
 */
export async function teamWithHook(
  origin: string,
  adminToken: string,
  o: { baseUrl: string; apiKey: string; agentId: string; publicUrl: string },
): Promise<{ teamId: string; secret: string }> {
  const { teamId } = await hubCall<{ teamId: string }>(origin, adminToken, 'teams.add', {
    label: 'Support',
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    agents: [{ agentId: o.agentId }],
  });
  await hubCall(origin, adminToken, 'webhook.register', {
    teamId,
    agentId: o.agentId,
    publicUrl: `${o.publicUrl}/hooks/${o.agentId}`,
  });
  const { secret } = await hubCall<{ secret: string }>(origin, adminToken, 'webhook.revealSecret', {
    teamId,
    agentId: o.agentId,
  });
  return { teamId, secret };
}

/** The body of the service's delivery of one inbound text message. */
export const inboundBody = (messageId: string, text = `hello ${messageId}`, from = '15550102000'): string =>
  JSON.stringify({
    event: 'message.received',
    from,
    message: { id: messageId, type: 'text', text, fromMe: false },
    timestamp: 1_700_000_000,
  });

/** Posts a body to a replica's `/hooks/<agent>`, signed with `secret` as the service signs (now, unless `at`). */
export function postHook(
  origin: string,
  agentId: string,
  secret: string,
  body: string,
  at = Math.floor(Date.now() / 1000),
): Promise<Response> {
  return fetch(`${origin}/hooks/${agentId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signDelivery(secret, body, at) },
    body,
  });
}

/** One statement on its own connection: its rows. */
export async function sqlRows<T extends pg.QueryResultRow>(
  databaseUrl: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export type ProxyMode = 'pass' | 'reject' | 'down';

export interface ServiceProxy {
  url: string;
  /** Every session poll that reached it, per agent, with the time it arrived. */
  polls: Map<string, number[]>;
  /** Passed through (the default), every call refused (401), or no answer at all. */
  mode: ProxyMode;
  close(): Promise<void>;
}

/** The service as the replicas reach it, seen from outside. */
export async function serviceProxy(target: string): Promise<ServiceProxy> {
  const polls = new Map<string, number[]>();
  const to = new URL(target);
  const state = { mode: 'pass' as ProxyMode };
  const server: Server = createServer((req, res) => {
    if (state.mode === 'down') return void req.socket.destroy();
    const m = /\/([^/]+)\/whatsapp\/session$/.exec((req.url ?? '').split('?')[0] ?? '');
    if (m && req.method === 'GET') polls.set(m[1]!, [...(polls.get(m[1]!) ?? []), Date.now()]);
    if (state.mode === 'reject') {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { code: 'unauthorized', message: 'invalid API key' } }));
    }
    const out = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    polls,
    get mode() {
      return state.mode;
    },
    set mode(m: ProxyMode) {
      state.mode = m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
