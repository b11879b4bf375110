// The hub's event fan-out: two replicas on one Postgres (Debian's, started here as the hub's tests start
// it), 20 SSE listeners on /api/events (10 on each replica), events published at 200 a second for
// HUB_FANOUT_SECONDS (default 10) with publishHubEvents — each in its own statement, as the hub's ingest
// publishes a delivery in its commit. For every event and every listener: the time from the start of the
// publish (before its transaction) to the listener parsing the event off its stream, on one clock (one
// process). Checks: every listener got every event, once and in id order; p99 ≤ 100 ms.
// ratio = 100 ms ÷ p99 (target 1). Everything runs in this one process on this machine's cores: the
// replicas, the listeners, the publisher and Postgres share them.
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';
import type { Events } from '../../src-shared/contract';
import { Emitter } from '../../src-main/core/events';
import type { Handlers } from '../../src-main/app/handlers';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../src-main/app/hub/database';
import { publishHubEvents, startHubFanout } from '../../src-main/app/hub/events';
import { startHubServer } from '../../src-main/hub/server';
import { startPostgres } from '../integration/hub/postgres';

/** Publishes one event (outside a transaction, or in `db` when it is one); its id. */
const publishOne = async (db: HubDatabase, name: string, payload: unknown): Promise<number> =>
  (await publishHubEvents(db, [{ name, payload }]))[0]!;

export const target = 1;

const LISTENERS = 20;
const PER_SECOND = 200;
const SECONDS = Number(process.env.HUB_FANOUT_SECONDS ?? 10);
const P99_MS = 100;
const TOKEN = 'bench-member';

const now = (): number => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? NaN;
};
const r1 = (n: number): number => Math.round(n * 10) / 10;

export async function run() {
  const pg = await startPostgres();
  const closers: (() => Promise<void>)[] = [];
  try {
    const db = openHubDatabase(pg.url);
    closers.push(() => db.destroy());
    await migrateHub(db);
    const origins: string[] = [];
    for (let r = 0; r < 2; r++) {
      const rdb = openHubDatabase(pg.url);
      const fanout = await startHubFanout({
        db: rdb,
        url: pg.url,
        events: new Emitter<Events>(),
        replica: `replica-${r}`,
      });
      const server = await startHubServer({
        handlers: {} as Handlers,
        events: fanout.events,
        journal: fanout.journal,
        memberOfToken: async (t) => (t === TOKEN ? { name: 'bench', role: 'viewer', createdAt: 0 } : null),
        ready: async () => true,
      });
      origins.push(server.origin);
      closers.push(async () => {
        await server.close();
        await fanout.close();
        await rdb.destroy();
      });
    }

    const total = PER_SECOND * SECONDS;
    const sentAt = new Map<number, number>();
    const latencies: number[] = [];
    const got: number[][] = Array.from({ length: LISTENERS }, () => []);
    const dispatcher = new Agent({ connections: LISTENERS, bodyTimeout: 0 });
    closers.push(() => dispatcher.close());
    const aborts: AbortController[] = [];
    closers.push(async () => aborts.forEach((a) => a.abort()));
    const pending: { seq: number; at: number }[][] = Array.from({ length: LISTENERS }, () => []);
    for (let l = 0; l < LISTENERS; l++) {
      const ac = new AbortController();
      aborts.push(ac);
      const res = await request(`${origins[l % 2]}/api/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        dispatcher,
        signal: ac.signal,
      });
      const parser = createParser({
        onEvent(ev) {
          if (ev.event !== 'health.changed') return;
          const at = now();
          got[l]!.push(Number(ev.id));
          pending[l]!.push({ seq: (JSON.parse(ev.data) as { seq: number }).seq, at });
        },
      });
      void (async () => {
        try {
          for await (const chunk of res.body) parser.feed((chunk as Buffer).toString('utf8'));
        } catch {
          // aborted at the end
        }
      })();
    }

    // Publish on schedule: event i is due at start + i / PER_SECOND, each publish in its own transaction.
    const ids: number[] = [];
    const start = now();
    const publishes: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / PER_SECOND;
      const wait = due - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t0 = now();
      sentAt.set(i, t0);
      publishes.push(
        publishOne(db, 'health.changed', { seq: i, agentId: `agent-${i % 50}` }).then((id) => {
          ids.push(id);
        }),
      );
    }
    await Promise.all(publishes);
    const publishSeconds = (now() - start) / 1000;
    const deadline = now() + 10_000;
    while (got.some((g) => g.length < total) && now() < deadline) await new Promise((r) => setTimeout(r, 50));

    for (const list of pending) for (const p of list) latencies.push(p.at - sentAt.get(p.seq)!);
    ids.sort((a, b) => a - b);
    const complete = got.every((g) => g.length === total && g.every((id, k) => id === ids[k]));
    const p50 = pct(latencies, 50);
    const p99 = pct(latencies, 99);
    return {
      name: 'hub-fanout',
      ratio: P99_MS / p99,
      pass: complete && p99 <= P99_MS,
      listeners: LISTENERS,
      replicas: 2,
      events: total,
      publishedPerSecond: r1(total / publishSeconds),
      received: latencies.length,
      everyEventOnceInOrder: complete,
      p50Ms: r1(p50),
      p99Ms: r1(p99),
      maxMs: r1(Math.max(...latencies)),
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await pg.stop();
  }
}
