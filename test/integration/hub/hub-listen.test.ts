// `listen --forward-to` through a hub of two replicas behind a balancer, over real Postgres: the replica the
// listener streams from dies mid-stream (its connections cut, the balancer sends the listener to the other),
// and every delivery published meanwhile reaches the listener's app exactly once, in per-agent order. The
// replicas are the hub's server and fan-out over stand-in handlers (the deliveries as the ingest publishes
// them); the listener is the real command, in its own process.
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryDetailDTO, DeliverySummaryDTO, Events, Result } from '../../../src-shared/contract';
import { Emitter } from '../../../src-main/core/events';
import type { Handlers } from '../../../src-main/app/handlers';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { publishHubEvents, startHubFanout } from '../../../src-main/app/hub/events';
import { startHubServer } from '../../../src-main/hub/server';
import { startHttpSink } from '../../helpers/http-sink';
import { spawnCli } from '../../helpers/spawn-cli';
import { startPostgres, type TestPostgres } from './postgres';

/** Publishes one event (outside a transaction, or in `db` when it is one); its id. */
const publishOne = async (db: HubDatabase, name: string, payload: unknown): Promise<number> =>
  (await publishHubEvents(db, [{ name, payload }]))[0]!;

const TOKEN = 'listen-member-token';
const AGENTS = ['a1', 'a2'];

const ok = <T>(value: T): Result<T> => ({ ok: true, value });

function summary(i: number): DeliverySummaryDTO {
  return {
    id: `d${i}`,
    serviceId: null,
    receivedAt: 1_700_000_000_000 + i,
    teamId: 't1',
    agentId: AGENTS[i % AGENTS.length]!,
    event: 'message.received',
    from: '15550000000',
    messageId: `m${i}`,
    messageType: 'text',
    preview: `hello ${i}`,
    verdict: 'verified',
    forwardStatus: null,
  };
}

/** What every replica answers: the deliveries as stored (in the database, for any replica to read). */
function handlers(): Handlers {
  const status = {
    running: true,
    listenUrl: 'http://127.0.0.1:9',
    forwardTo: null,
    agents: AGENTS.map((agentId) => ({
      agentId,
      teamId: 't1',
      receiverUrl: null,
      publicUrl: null,
      registration: { state: 'none', text: '', takeover: '' },
    })),
    counts: { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 },
    exposure: { state: 'off' },
  };
  return {
    'app.ping': async () =>
      ok({ at: Date.now(), upSince: 0, hub: { member: 'dev', role: 'developer', publicUrl: null } }),
    'tunnel.start': async () => ok(status),
    'tunnel.status': async () => ok(status),
    'tunnel.delivery': async (raw: unknown) => {
      const i = Number((raw as { id: string }).id.slice(1));
      const detail: DeliveryDetailDTO = {
        ...summary(i),
        headers: { 'content-type': 'application/json', 'x-delivery': `d${i}` },
        rawBody: JSON.stringify({ n: i, agentId: summary(i).agentId }),
        verificationDetail: '',
        forwards: [],
        forwardState: 'not-forwarded',
        nextTryAt: null,
      };
      return ok(detail);
    },
  } as unknown as Handlers;
}

/** A TCP balancer: each new connection to the first live replica; kill() cuts one off (its connections too). */
async function balancer(origins: string[]) {
  const live = new Set(origins);
  const open = new Map<Socket, string>();
  const server = createNetServer((inbound) => {
    const target = [...live][0];
    if (target === undefined) return inbound.destroy();
    const u = new URL(target);
    const outbound = connect(Number(u.port), u.hostname);
    open.set(inbound, target);
    const done = (): void => {
      open.delete(inbound);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', done).on('close', done);
    outbound.on('error', done).on('close', done);
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    kill(origin: string) {
      live.delete(origin);
      for (const [sock, target] of open) if (target === origin) sock.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const sock of open.keys()) sock.destroy();
        server.close(() => r());
      }),
  };
}

describe('listen through a hub', () => {
  let pgServer: TestPostgres;
  let db: HubDatabase;

  beforeAll(async () => {
    pgServer = await startPostgres();
    db = openHubDatabase(pgServer.url);
    await migrateHub(db);
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await pgServer?.stop();
  }, 30_000);

  it('a replica dies mid-stream: every delivery forwarded once, in per-agent order', async () => {
    const closers: (() => Promise<void>)[] = [];
    try {
      const origins: string[] = [];
      for (let r = 0; r < 2; r++) {
        const rdb = openHubDatabase(pgServer.url);
        const fanout = await startHubFanout({
          db: rdb,
          url: pgServer.url,
          events: new Emitter<Events>(),
          replica: `replica-${r}`,
        });
        const server = await startHubServer({
          handlers: handlers(),
          events: fanout.events,
          journal: fanout.journal,
          memberOfToken: async (t) => (t === TOKEN ? { name: 'dev', role: 'developer', createdAt: 0 } : null),
          ready: async () => true,
        });
        origins.push(server.origin);
        closers.push(async () => {
          await server.close();
          await fanout.close();
          await rdb.destroy();
        });
      }
      const lb = await balancer(origins);
      closers.push(() => lb.close());
      const app = await startHttpSink();
      closers.push(() => app.close());

      const listen = spawnCli(['listen', '--forward-to', app.url, '--json'], {
        CHANNEL_HUB_URL: lb.origin,
        CHANNEL_HUB_TOKEN: TOKEN,
      });
      closers.push(async () => {
        listen.child.kill('SIGTERM');
        await listen.exited;
      });
      await expect.poll(() => listen.stdout(), { timeout: 30_000 }).toContain('"event":"ready"');

      const total = 60;
      for (let i = 0; i < total; i++) {
        await publishOne(db, 'tunnel.delivery', summary(i));
        // The replica serving the listener (the first live one) dies once some deliveries got through.
        if (i === 20) {
          await expect.poll(() => app.requests.length, { timeout: 15_000 }).toBeGreaterThan(5);
          lb.kill(origins[0]!);
        }
      }
      await expect.poll(() => app.requests.length, { timeout: 30_000 }).toBe(total);
      await new Promise((r) => setTimeout(r, 500));
      const got = app.requests.map((q) => JSON.parse(q.body.toString('utf8')) as { n: number; agentId: string });
      expect(got).toHaveLength(total);
      expect(new Set(got.map((g) => g.n)).size).toBe(total);
      for (const agent of AGENTS) {
        const ns = got.filter((g) => g.agentId === agent).map((g) => g.n);
        expect(ns).toEqual([...ns].sort((x, y) => x - y));
      }
      expect(listen.stderr()).not.toContain('no more deliveries reach this listener');
    } finally {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    }
  }, 90_000);
});
