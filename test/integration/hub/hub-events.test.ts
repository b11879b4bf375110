// The hub's events over real Postgres: published in the caller's transaction (or not at all), announced
// with NOTIFY on commit; every replica's /api/events serves them with ids, a client resumes on any replica
// after the last id it saw (none twice, none missed), and a Postgres restart loses nothing. `listen
// --forward-to` (the real command) behind a balancer forwards every delivery once when its replica dies.
import { sql } from 'kysely';
import pg from 'pg';
import { request } from 'undici';
import { createParser } from 'eventsource-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryDetailDTO, DeliverySummaryDTO, Events, Result } from '../../../src-shared/contract';
import { Emitter } from '../../../src-main/core/events';
import { remoteClient } from '../../../src-main/app/client';
import type { Handlers } from '../../../src-main/app/handlers';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { publishHubEvents, startHubFanout } from '../../../src-main/app/hub/events';
import { startHubServer } from '../../../src-main/hub/server';
import { startHttpSink } from '../../helpers/http-sink';
import { spawnCli } from '../../helpers/spawn-cli';
import { startBalancer } from './balancer';
import { startPostgres, type TestPostgres } from './postgres';

/** Waits for what crosses processes, sockets and the database: generous on a loaded machine. */
const SLOW = { timeout: 10_000 };

/** Publishes one event (outside a transaction, or in `db` when it is one); its id. */
const publishOne = async (db: HubDatabase, name: string, payload: unknown): Promise<number> =>
  (await publishHubEvents(db, [{ name, payload }]))[0]!;

const TOKEN = 'member-token';

interface Replica {
  origin: string;
  db: HubDatabase;
  companion: Emitter<Events>;
  fanout: Awaited<ReturnType<typeof startHubFanout>>;
  /** What its fan-out warned of. */
  warnings: string[];
  close(): Promise<void>;
}

interface Heard {
  id: number | null;
  name: string;
  data: unknown;
}

interface Stream {
  heard: Heard[];
  /** The ids of the events heard (the cursor announcement left out). */
  ids(): number[];
  /** The last id the stream carried (the announcement's included). */
  lastId(): number | null;
  status: number;
  close(): void;
}

/** An SSE client of a replica's /api/events; resolves once the stream is open. */
async function openStream(origin: string, resume: { lastEventId?: number; after?: number } = {}): Promise<Stream> {
  const ac = new AbortController();
  const heard: Heard[] = [];
  let last: number | null = null;
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (resume.lastEventId !== undefined) headers['last-event-id'] = String(resume.lastEventId);
  const url = `${origin}/api/events${resume.after !== undefined ? `?after=${resume.after}` : ''}`;
  const res = await request(url, { headers, signal: ac.signal });
  const parser = createParser({
    onEvent(ev) {
      const id = ev.id === undefined ? null : Number(ev.id);
      if (id !== null) last = id;
      heard.push({ id, name: ev.event ?? '', data: JSON.parse(ev.data) });
    },
  });
  void (async () => {
    try {
      for await (const chunk of res.body) parser.feed((chunk as Buffer).toString('utf8'));
    } catch {
      // aborted
    }
  })();
  return {
    heard,
    ids: () => heard.filter((h) => h.name !== 'cursor' && h.id !== null).map((h) => h.id!),
    lastId: () => last,
    status: res.statusCode,
    close: () => ac.abort(),
  };
}

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

/** What every replica answers to `listen`: the deliveries as stored (in the database, for any replica to read). */
function listenHandlers(): Handlers {
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

describe('hub events', () => {
  let pgServer: TestPostgres;
  let db: HubDatabase;
  const replicas: Replica[] = [];
  const streams: Stream[] = [];

  async function startReplica(handlers = {} as Handlers): Promise<Replica> {
    const rdb = openHubDatabase(pgServer.url);
    const companion = new Emitter<Events>();
    const warnings: string[] = [];
    const fanout = await startHubFanout({
      db: rdb,
      url: pgServer.url,
      events: companion,
      replica: `replica-${replicas.length}`,
      logger: { info() {}, warn: (msg) => void warnings.push(msg), error() {} },
    });
    const server = await startHubServer({
      handlers,
      events: fanout.events,
      journal: fanout.journal,
      memberOfToken: async (t) => (t === TOKEN ? { name: 'alice', role: 'developer', createdAt: 0 } : null),
      ready: async () => true,
    });
    const replica: Replica = {
      origin: server.origin,
      db: rdb,
      companion,
      fanout,
      warnings,
      async close() {
        await server.close();
        await fanout.close();
        await rdb.destroy();
      },
    };
    replicas.push(replica);
    return replica;
  }
  const stream = async (origin: string, resume?: { lastEventId?: number; after?: number }): Promise<Stream> => {
    const s = await openStream(origin, resume);
    streams.push(s);
    return s;
  };
  /** Publishes, trying again while the database comes back (a pool's connections die with a restart). */
  const publish = async (name: string, payload: unknown): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await publishOne(db, name, payload);
      } catch (e) {
        if (attempt > 100) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  beforeAll(async () => {
    pgServer = await startPostgres();
    db = openHubDatabase(pgServer.url);
    await migrateHub(db);
  }, 60_000);

  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const r of replicas.splice(0)) await r.close();
  });

  afterAll(async () => {
    await db?.destroy();
    await pgServer?.stop();
  }, 30_000);

  it('publishHubEvents: a row and a NOTIFY of it on commit (its id when too large); nothing when the transaction rolls back', async () => {
    const listener = new pg.Client({ connectionString: pgServer.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN hub_events');
    try {
      const id = await publishOne(db, 'health', { agentId: 'a1', list: [1, 2] });
      await expect(
        db.transaction().execute(async (trx) => {
          await publishOne(trx, 'health', { agentId: 'lost' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const id2 = await db.transaction().execute((trx) => publishOne(trx, 'incident', { n: 2 }));
      // The notification carries the row itself (it fits), with when it was published (ms).
      await expect
        .poll(() => heard.map((h) => JSON.parse(h) as unknown), SLOW)
        .toEqual([
          { id, name: 'health', payload: { agentId: 'a1', list: [1, 2] }, at: expect.any(Number) },
          { id: id2, name: 'incident', payload: { n: 2 }, at: expect.any(Number) },
        ]);
      // Several at once: ids in the order given, one notification each.
      const batch = await publishHubEvents(db, [
        { name: 'b1', payload: 1 },
        { name: 'b2', payload: { two: 2 } },
        { name: 'b3', payload: null },
      ]);
      const named = await db
        .selectFrom('hub_events')
        .select(['id', 'name'])
        .where('name', 'like', 'b_')
        .orderBy('id')
        .execute();
      expect(named.map((r) => [Number(r.id), r.name])).toEqual([
        [batch[0], 'b1'],
        [batch[1], 'b2'],
        [batch[2], 'b3'],
      ]);
      await expect.poll(() => heard.length, SLOW).toBe(5);
      // A row too large for a notification is announced by its id.
      const big = await publishOne(db, 'alert', { text: 'x'.repeat(9_000) });
      await expect.poll(() => heard.at(-1), SLOW).toBe(String(big));
      const rows = await db
        .selectFrom('hub_events')
        .select(['id', 'name', 'payload'])
        .where('id', '>=', String(id))
        .where('id', '<=', String(id2))
        .orderBy('id')
        .execute();
      expect(rows.map((r) => [Number(r.id), r.name, r.payload])).toEqual([
        [id, 'health', { agentId: 'a1', list: [1, 2] }],
        [id2, 'incident', { n: 2 }],
      ]);
    } finally {
      await listener.end();
    }
  });

  it('an event published on one replica reaches the clients of both, once each, with its id', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const clients = [await stream(a.origin), await stream(a.origin), await stream(b.origin), await stream(b.origin)];
    const published: number[] = [];
    for (let i = 0; i < 5; i++) published.push(await publish('health.changed', { agentId: `p${i}` }));
    // A shared event of a replica's companion is published once, and reaches every replica's clients.
    a.companion.emit('health.changed', { agentId: 'from-a' } as Events['health.changed']);
    for (const c of clients) await expect.poll(() => c.ids().length, SLOW).toBe(6);
    // A local one (one request's answer stream) reaches the clients of its replica only, without an id.
    a.companion.emit('chat.token', { turnId: 't1', token: 'hi' });
    // A delivery of the companion is not served: the hub's ingest publishes it in its commit.
    b.companion.emit('tunnel.delivery', { id: 'd-local' } as Events['tunnel.delivery']);
    // One too large for a notification reaches them too (read by its id), in its place.
    await publish('alert', { big: 'y'.repeat(9_000) });
    const last = await publish('tunnel.delivery', { id: 'd-committed' });
    for (const c of clients) await expect.poll(() => c.ids().at(-1), SLOW).toBe(last);
    const shared = (c: Stream) => c.heard.filter((h) => h.id !== null && h.name !== 'cursor');
    for (const c of clients) {
      expect(c.ids().slice(0, 5)).toEqual(published);
      expect(shared(c).map((h) => h.data)).toEqual([
        ...published.map((_, i) => ({ agentId: `p${i}` })),
        { agentId: 'from-a' },
        { big: 'y'.repeat(9_000) },
        { id: 'd-committed' },
      ]);
      expect(new Set(c.ids()).size).toBe(c.ids().length);
    }
    const local = (c: Stream) => c.heard.filter((h) => h.id === null).map((h) => h.name);
    expect(clients.map(local)).toEqual([['chat.token'], ['chat.token'], [], []]);
    const rows = await db.selectFrom('hub_events').select('replica').where('name', '=', 'health.changed').execute();
    expect(rows.filter((r) => r.replica !== null)).toHaveLength(1);
  });

  it('a client that drops and comes back to the other replica with Last-Event-ID gets exactly what it missed', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const first = await stream(a.origin);
    const before: number[] = [];
    for (let i = 0; i < 3; i++) before.push(await publish('alert', { n: i }));
    await expect.poll(() => first.ids(), SLOW).toEqual(before);
    first.close();
    const missed: number[] = [];
    for (let i = 3; i < 7; i++) missed.push(await publish('alert', { n: i }));
    const back = await stream(b.origin, { lastEventId: first.lastId()! });
    const viaQuery = await stream(b.origin, { after: before[1]! });
    const after = await publish('alert', { n: 7 });
    await expect.poll(() => back.ids(), SLOW).toEqual([...missed, after]);
    await expect.poll(() => viaQuery.ids(), SLOW).toEqual([before[2], ...missed, after]);
    const bad = await stream(b.origin, { lastEventId: 'x' as unknown as number });
    expect(bad.status).toBe(400);
  });

  it('resuming on the other replica while events keep coming: every id once, in order', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const first = await stream(a.origin);
    const all: number[] = [];
    let publishing = true;
    const publisher = (async () => {
      for (let i = 0; publishing || i < 40; i++) {
        all.push(await publish('health.changed', { agentId: `r${i}` }));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await expect.poll(() => first.ids().length, SLOW).toBeGreaterThanOrEqual(15);
    first.close();
    const got = first.ids();
    const second = await stream(b.origin, { lastEventId: first.lastId()! });
    // Events published after the resume reach the resumed stream while publishing goes on.
    await expect.poll(() => second.ids().filter((id) => id > got.at(-1)!).length, SLOW).toBeGreaterThanOrEqual(15);
    publishing = false;
    await publisher;
    await expect.poll(() => [...got, ...second.ids()].length, SLOW).toBe(all.length);
    expect([...got, ...second.ids()]).toEqual(all);
  });

  it('a client far behind gets every event after its cursor, page after page, then new ones', async () => {
    const a = await startReplica();
    const from = await publish('alert', { n: 'from' });
    // 1,200 events at once (more than one page of the catch-up), as many replicas' publishes would leave them.
    await sql`insert into hub_events (name, payload) select 'alert', jsonb_build_object('n', g) from generate_series(1, 1200) g`.execute(
      db,
    );
    const watcher = await stream(a.origin);
    const mid = await publish('alert', { n: 'mid' });
    await expect.poll(() => watcher.ids().at(-1), SLOW).toBe(mid);
    // The replica has read them all: this client's catch-up reads them again, in pages, then goes live.
    const back = await stream(a.origin, { after: from });
    const next = await publish('alert', { n: 'next' });
    await expect.poll(() => back.ids().length, SLOW).toBe(1202);
    const ids = back.ids();
    expect(ids.at(-1)).toBe(next);
    expect(ids.at(-2)).toBe(mid);
    expect(ids.every((id, k) => k === 0 || id > ids[k - 1]!)).toBe(true);
    expect(ids[0]).toBe(from + 1);
  });

  it('events older than a week are deleted when a replica starts', async () => {
    const old = await publish('alert', { n: 'old' });
    await db
      .updateTable('hub_events')
      .set({ at: new Date(Date.now() - 8 * 24 * 3600_000) })
      .where('id', '=', String(old))
      .execute();
    const recent = await publish('alert', { n: 'recent' });
    await startReplica();
    await expect
      .poll(async () =>
        (
          await db
            .selectFrom('hub_events')
            .select('id')
            .where('id', 'in', [String(old), String(recent)])
            .execute()
        ).map((r) => Number(r.id)),
      )
      .toEqual([recent]);
  });

  it('remoteClient behind a balancer: its replica dies mid-stream, it resumes on the other, every event once', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const lb = await startBalancer([a.origin, b.origin]);
    const client = remoteClient({ origin: lb.origin, token: TOKEN, resumeForMs: 20_000 });
    const seen: string[] = [];
    const closes: string[] = [];
    client.onClose((why) => closes.push(why));
    client.on('alert', (p) => seen.push((p as unknown as { n: string }).n));
    try {
      await client.listening();
      const sent: string[] = [];
      for (let i = 0; i < 60; i++) {
        sent.push(`e${i}`);
        await publish('alert', { n: `e${i}` });
        // The replica the client streams from dies (its connections cut); the balancer sends it to the other.
        if (i === 20) {
          await expect.poll(() => seen.length, SLOW).toBeGreaterThan(5);
          lb.kill(lb.servedBy()[0]!);
        }
      }
      await expect.poll(() => seen.length, { timeout: 15_000 }).toBe(60);
      expect(seen).toEqual(sent);
      expect(closes).toEqual([]);
      expect(lb.servedBy().length).toBeGreaterThan(0);
    } finally {
      await client.close();
      await lb.close();
    }
  }, 30_000);

  it('listen --forward-to behind a balancer: its replica dies mid-stream, every delivery forwarded once, in per-agent order', async () => {
    const closers: (() => Promise<void>)[] = [];
    try {
      const [a, b] = [await startReplica(listenHandlers()), await startReplica(listenHandlers())];
      const origins = [a.origin, b.origin];
      const lb = await startBalancer(origins);
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
        // The replica streaming to the listener dies once some deliveries got through.
        if (i === 20) {
          await expect.poll(() => app.requests.length, { timeout: 15_000 }).toBeGreaterThan(5);
          lb.kill(lb.servedBy()[0]!);
        }
      }
      // One more delivery per agent, published after all: forwarded in per-agent order, it comes after any
      // second forward of that agent's earlier deliveries.
      for (let i = total; i < total + AGENTS.length; i++) await publishOne(db, 'tunnel.delivery', summary(i));
      const forwarded = () =>
        app.requests.map((q) => JSON.parse(q.body.toString('utf8')) as { n: number; agentId: string });
      await expect.poll(() => forwarded().filter((g) => g.n >= total).length, { timeout: 30_000 }).toBe(AGENTS.length);
      const all = forwarded();
      expect(all).toHaveLength(total + AGENTS.length);
      const got = all.filter((g) => g.n < total);
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

  it('Postgres restarted mid-stream: the clients of both replicas go on receiving, nothing missed', async () => {
    const [a, b] = [await startReplica(), await startReplica()];
    const clients = [await stream(a.origin), await stream(b.origin)];
    const published: number[] = [];
    for (let i = 0; i < 3; i++) published.push(await publish('alert', { n: i }));
    for (const c of clients) await expect.poll(() => c.ids(), SLOW).toEqual(published);
    await pgServer.halt();
    // What a replica's companion emits while the database is away is published once it is back.
    a.companion.emit('alert', { while: 'away' } as unknown as Events['alert']);
    await expect.poll(() => a.warnings, SLOW).toContain('hub events: publishing waits for the database');
    await pgServer.resume();
    for (let i = 3; i < 6; i++) published.push(await publish('alert', { n: i }));
    for (const c of clients) await expect.poll(() => c.ids().length, { timeout: 15_000 }).toBe(7);
    const rows = await db
      .selectFrom('hub_events')
      .select('id')
      .where('id', '>', String(published[0]! - 1))
      .execute();
    const ids = rows.map((r) => Number(r.id)).sort((x, y) => x - y);
    for (const c of clients) expect(c.ids()).toEqual(ids);
    expect(clients[0]!.heard.some((h) => (h.data as { while?: string }).while === 'away')).toBe(true);
  }, 60_000);
});
