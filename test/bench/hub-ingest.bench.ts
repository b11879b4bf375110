// Benchmark: the hub's ingest — the service's signed deliveries posted to <hub>/hooks/<agent>, each answered 2xx
// only once it is committed in Postgres — against the single companion's durable floor (tunnel/floor-child.ts:
// a signature check, one appended line and a group-committed fdatasync before the 200, then the forward) measured
// in the same rounds, and against the networked commit's floor on the same Postgres (hub-ingest/commit-floor-child.ts:
// a signature check, the duplicate key read from the body, the row group-committed with one prepared INSERT on a
// connection of its own before the 200: what any receiver that answers only committed deliveries pays here, the
// physical limit of this machine's cores and disk for it). Sides: the floor; the commit floor; one hub replica
// (`channel-companion hub`, a process of its own, as the tests start it); two replicas behind a round-robin proxy
// (support/proxy-child.ts, a process of its own). Postgres is Debian's, started here as the hub's tests start it but durable (fsync on, synchronous_commit
// on): a commit is on disk before its 2xx, as the floor's line is. The client (this process) keeps CONCURRENCY keep-alive
// connections busy; every side gets the same payloads after a warm-up, in ROUNDS rounds whose order of sides
// turns by one each round; the figures are the medians.
// Per case: deliveries/s (to the last 2xx), p50/p99 of the client's send → the 2xx, for the floor also the
// 2xx → its forward (the hub forwards to `listen`ers through its event fan-out, measured by hub-fanout), the
// ratio hub ÷ floor deliveries/s (target 0.5), the p99 ratio hub ÷ floor send → 2xx (target ≤ 2), the same two
// against the commit floor (how close the hub is to what a networked commit allows here), the CPU per
// delivery of each replica and of Postgres, the write-ahead log Postgres writes a delivery and the bytes it keeps
// a delivery (row, event, indexes: for sizing a database), and the machine's load. A replica's work for a delivery
// ends with its message in the shared inbox, written just after the 2xx: a hub side's round ends (for its CPU, WAL
// and transactions, not its deliveries/s) once the inbox holds every message, so none of it runs into the next side's. Everything shares this machine's cores:
// the client, the proxy, the replicas and Postgres. HUB_INGEST_STATEMENTS=1 also prints (stderr) the statements
// Postgres spent the most time in (pg_stat_statements, loaded for the run).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { median } from '../helpers/bench-stats';
import { runCli } from '../helpers/cli';
import { hubCall } from '../helpers/hub-call';
import { DEMO_KEY, startTestEmulator } from '../helpers/emulator';
import { startPostgres } from '../integration/hub/postgres';
import { spawnChild, type Child } from './monitor/spawn';
import {
  allArrived,
  arrivals,
  cpuMsEach,
  cpuMsOf,
  percentile,
  sendAll,
  signedPayloads,
  type Payload,
} from './support/deliveries';

/** Hub ÷ the floor, deliveries per second. */
export const target = 0.5;
/** Hub's p99 (send → 2xx) ÷ the floor's, at most. */
const P99_TARGET = 2;

const BIN = fileURLToPath(new URL('../../bin/channel-companion.mjs', import.meta.url));
const AGENT = 'agent-connected';
const PUBLIC_URL = 'https://hub.example.test';
const CONCURRENCY = 16;
const REQUESTS = Number(process.env.HUB_INGEST_REQUESTS ?? 1_500);
const ROUNDS = Number(process.env.HUB_INGEST_ROUNDS ?? 3);
const WARMUP_REQUESTS = Number(process.env.HUB_INGEST_WARMUP ?? 3_000);

const payloads = (secret: string, n: number, tag: string): Payload[] => signedPayloads(secret, n, tag, () => AGENT);
const r2 = (x: number): number => Math.round(x * 100) / 100;

const parentOf = (pid: number): number =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);

/** Postgres's processes now (the postmaster and its children: the backends, the WAL writer, …), given one of its
 * long-lived children. */
function postgresPids(child: number): number[] {
  try {
    const postmaster = parentOf(child);
    const pids = [postmaster];
    for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d)))
      try {
        if (parentOf(Number(p)) === postmaster) pids.push(Number(p));
      } catch {
        // gone
      }
    return pids;
  } catch {
    return [];
  }
}

interface Side {
  name: 'floor' | 'commitFloor' | 'hub1' | 'hub2';
  url: string;
  /** The side's own processes (the replicas), and whether its deliveries reach the local app. */
  pids: number[];
  forwards: boolean;
  /** Whether its deliveries' messages go into the hub's inbox (a replica writes them just after the 2xx). */
  inbox: boolean;
}

interface Run {
  perSec: number;
  ackP50: number;
  ackP99: number;
  forwardP50: number | null;
  forwardP99: number | null;
  cpuUs: number | null;
  pgCpuUs: number | null;
  /** Write-ahead log written a delivery (bytes), and transactions committed a delivery; null for the floor. */
  walBytes: number | null;
  xacts: number | null;
}

async function drive(
  side: Side,
  list: Payload[],
  app: Child,
  pgPidsNow: () => number[],
  wal: () => Promise<{ bytes: number; xacts: number }>,
  inboxHolds: (ids: string[]) => Promise<number>,
): Promise<Run> {
  if (side.forwards) await arrivals(app);
  const wal0 = await wal();
  const cpu0 = cpuMsOf(side.pids);
  // Postgres's processes now and then: a backend's CPU counts from its first look (0 when it started meanwhile) to
  // its last (one that ended meanwhile, a pool's idle connection, is left out: a little less, never negative).
  const pg0 = cpuMsEach(pgPidsNow());
  const { started, ended, sentAt, ackAt } = await sendAll(list, () => `${side.url}/hooks/${AGENT}`, CONCURRENCY);
  // A replica's work for a delivery ends with its message in the inbox (after the 2xx): the CPU, WAL and
  // transactions below count it, and none of it spills into the next side's round.
  if (side.inbox) {
    const ids = list.map((p) => p.id);
    const deadline = Date.now() + 120_000;
    while ((await inboxHolds(ids)) < ids.length) {
      if (Date.now() > deadline) throw new Error(`${side.name}: the inbox lacks messages 120 s after the last 2xx`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const cpu1 = cpuMsOf(side.pids);
  const pg1 = cpuMsEach(pgPidsNow());
  const wal1 = await wal();
  let forwardP50: number | null = null;
  let forwardP99: number | null = null;
  if (side.forwards) {
    const got = await allArrived(app, list);
    const fwd = list.map((p) => got.get(p.id)! - ackAt.get(p.id)!).sort((a, b) => a - b);
    forwardP50 = percentile(fwd, 50);
    forwardP99 = percentile(fwd, 99);
  }
  const ack = list.map((p) => ackAt.get(p.id)! - sentAt.get(p.id)!).sort((a, b) => a - b);
  const per = (a: number | null, b: number | null): number | null =>
    a === null || b === null ? null : ((b - a) * 1000) / list.length;
  return {
    perSec: (list.length / (ended - started)) * 1000,
    ackP50: percentile(ack, 50),
    ackP99: percentile(ack, 99),
    forwardP50,
    forwardP99,
    cpuUs: side.pids.length > 0 ? per(cpu0, cpu1) : null,
    pgCpuUs:
      side.name === 'floor' || pg0 === null || pg1 === null
        ? null
        : per(
            0,
            [...pg1].reduce((sum, [pid, ms]) => sum + ms - (pg0.get(pid) ?? 0), 0),
          ),
    walBytes: side.name === 'floor' ? null : (wal1.bytes - wal0.bytes) / list.length,
    // Counted by each backend as it goes idle (at most a second late): a round of a few seconds reads it roughly.
    xacts: side.name === 'floor' ? null : (wal1.xacts - wal0.xacts) / list.length,
  };
}

export async function run(): Promise<Record<string, unknown>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'hub-ingest-bench-'));
  const pgs = await startPostgres({ durable: true });
  const closers: (() => Promise<unknown>)[] = [];
  const replicas: ChildProcess[] = [];
  try {
    const statements = process.env.HUB_INGEST_STATEMENTS === '1';
    if (statements) {
      const c = new pg.Client({ connectionString: pgs.url });
      await c.connect();
      await c.query("alter system set shared_preload_libraries = 'pg_stat_statements'");
      await c.end();
      await pgs.halt();
      await pgs.resume();
    }
    // As durable as the floor: every commit flushed to disk before it is answered (checked, not assumed).
    const admin = new pg.Client({ connectionString: pgs.url });
    await admin.connect();
    if (statements) await admin.query('create extension pg_stat_statements');
    const setting = async (name: string): Promise<string> =>
      (await admin.query<{ v: string }>(`select current_setting('${name}') as v`)).rows[0]!.v;
    const fsync = `fsync=${await setting('fsync')}, synchronous_commit=${await setting('synchronous_commit')}`;
    const checkpointer = (
      await admin.query<{ pid: number }>("select pid from pg_stat_activity where backend_type = 'checkpointer'")
    ).rows[0]!.pid;
    closers.push(() => admin.end());
    /** Bytes of write-ahead log Postgres has written so far, and the transactions it has committed. */
    const wal = async (): Promise<{ bytes: number; xacts: number }> => {
      const r = (
        await admin.query<{ b: string; x: string }>(
          `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as b,
             (select xact_commit from pg_stat_database where datname = current_database()) as x`,
        )
      ).rows[0]!;
      return { bytes: Number(r.b), xacts: Number(r.x) };
    };

    const emu = await startTestEmulator();
    closers.push(() => emu.close());
    const env = { DATABASE_URL: pgs.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') };
    const added = await runCli(['hub', 'member', 'add', 'bench', '--role', 'admin', '--json'], { env });
    if (added.code !== 0) throw new Error(`hub member add: ${added.stderr}`);
    const token = (added.json()[0] as { token: string }).token;
    const call = <T>(origin: string, name: string, body: unknown): Promise<T> => hubCall<T>(origin, token, name, body);
    const startReplica = async (name: string): Promise<{ origin: string; pid: number }> => {
      // BENCH_CPU_PROF=<dir>: the replicas write V8 CPU profiles there when they exit.
      const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
      const args = ['hub', '--json', '--port', '0', '--public-url', PUBLIC_URL];
      args.push('--config-dir', join(dir, name, 'config'), '--data-dir', join(dir, name, 'data'));
      const child = spawn(process.execPath, [...prof, BIN, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CHANNEL_COMPANION_FROM_SOURCE: '1', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      replicas.push(child);
      const exited = once(child, 'exit').then(([code]) => {
        throw new Error(`the replica ${name} exited (${String(code)}) before it was ready`);
      });
      const [line] = (await Promise.race([once(createInterface({ input: child.stdout! }), 'line'), exited])) as [
        string,
      ];
      exited.catch(() => undefined);
      child.stdout!.resume();
      return { origin: (JSON.parse(line) as { origin: string }).origin, pid: child.pid! };
    };
    const a = await startReplica('a');
    const team = await call<{ teamId: string }>(a.origin, 'teams.add', {
      label: 'Bench',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: AGENT }],
    });
    await call(a.origin, 'webhook.register', {
      teamId: team.teamId,
      agentId: AGENT,
      publicUrl: `${PUBLIC_URL}/hooks/${AGENT}`,
    });
    const { secret } = await call<{ secret: string }>(a.origin, 'webhook.revealSecret', {
      teamId: team.teamId,
      agentId: AGENT,
    });
    const b = await startReplica('b');
    const children: Child[] = [];
    closers.push(() => Promise.all(children.map((c) => c.kill())));
    const start = async (script: string, arg: unknown): Promise<{ child: Child; url: string }> => {
      const child = spawnChild(`../${script}`, arg);
      children.push(child);
      const ready = await child.waitFor('ready', 60_000);
      return { child, url: ready.url as string };
    };
    const proxy = await start('support/proxy-child.ts', { targets: [a.origin, b.origin] });
    const commitFloor = await start('hub-ingest/commit-floor-child.ts', { database: pgs.url, secret });
    const app = await start('tunnel/app-child.ts', {});
    await mkdir(join(dir, 'floor'));
    const floor = await start('tunnel/floor-child.ts', {
      target: app.url,
      dataDir: join(dir, 'floor'),
      secret,
      sync: true,
    });

    const sides: Side[] = [
      { name: 'floor', url: floor.url, pids: [floor.child.proc.pid!], forwards: true, inbox: false },
      { name: 'commitFloor', url: commitFloor.url, pids: [commitFloor.child.proc.pid!], forwards: false, inbox: false },
      { name: 'hub1', url: a.origin, pids: [a.pid], forwards: false, inbox: true },
      { name: 'hub2', url: proxy.url, pids: [a.pid, b.pid], forwards: false, inbox: true },
    ];
    const pgPids = (): number[] => postgresPids(checkpointer);
    const inboxHolds = async (ids: string[]): Promise<number> =>
      Number(
        (await admin.query<{ n: string }>('select count(*) as n from hub_messages where key = any($1::text[])', [ids]))
          .rows[0]!.n,
      );
    for (const side of sides)
      await drive(side, payloads(secret, WARMUP_REQUESTS, `warm_${side.name}`), app.child, pgPids, wal, inboxHolds);
    const runs = new Map<Side['name'], Run[]>(sides.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(round + k) % sides.length]!;
        runs
          .get(side.name)!
          .push(
            await drive(side, payloads(secret, REQUESTS, `r${round}_${side.name}`), app.child, pgPids, wal, inboxHolds),
          );
      }
    }
    const med = (rs: Run[], f: (r: Run) => number | null): number | null => {
      const xs = rs.map(f);
      return xs.some((x) => x === null) ? null : r2(median(xs as number[]));
    };
    const fl = runs.get('floor')!;
    const floorPerSec = median(fl.map((r) => r.perSec));
    const floorP99 = median(fl.map((r) => r.ackP99));
    const cf = runs.get('commitFloor')!;
    const commitFloorPerSec = median(cf.map((r) => r.perSec));
    const commitFloorP99 = median(cf.map((r) => r.ackP99));
    if (statements) {
      const top = await admin.query<{ calls: string; ms: string; rows: string; q: string }>(
        `select calls, round(total_exec_time::numeric, 1) as ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) as q
           from pg_stat_statements order by total_exec_time desc limit 15`,
      );
      for (const r of top.rows) process.stderr.write(`${r.calls}\t${r.ms} ms\t${r.rows} rows\t${r.q}\n`);
    }
    const load = r2(loadavg()[0]!);
    // What a delivery keeps in Postgres (its row, its event, their indexes and TOAST), for sizing a database.
    const kept = (
      await admin.query<{ bytes: string; n: string }>(
        `select pg_total_relation_size('hub_deliveries') + pg_total_relation_size('hub_events') as bytes,
           (select count(*) from hub_deliveries) as n`,
      )
    ).rows[0]!;
    const keptBytes = Math.round(Number(kept.bytes) / Number(kept.n));
    return (['hub1', 'hub2'] as const).map((name) => {
      const rs = runs.get(name)!;
      const perSec = median(rs.map((r) => r.perSec));
      const p99 = median(rs.map((r) => r.ackP99));
      const ratio = perSec / floorPerSec;
      const p99Ratio = p99 / floorP99;
      return {
        name: `hub-ingest (${name === 'hub1' ? 'one replica' : 'two replicas behind a round-robin proxy'}): deliveries committed to Postgres before the 2xx, vs the single companion's durable floor`,
        ratio: r2(ratio),
        target,
        p99Ratio: r2(p99Ratio),
        p99Target: P99_TARGET,
        pass: ratio >= target && p99Ratio <= P99_TARGET,
        replicas: name === 'hub1' ? 1 : 2,
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        hubPerSec: Math.round(perSec),
        floorPerSec: Math.round(floorPerSec),
        hubAckP50Ms: med(rs, (r) => r.ackP50),
        hubAckP99Ms: r2(p99),
        floorAckP50Ms: med(fl, (r) => r.ackP50),
        floorAckP99Ms: r2(floorP99),
        floorForwardP50Ms: med(fl, (r) => r.forwardP50),
        floorForwardP99Ms: med(fl, (r) => r.forwardP99),
        commitFloorPerSec: Math.round(commitFloorPerSec),
        commitFloorAckP50Ms: med(cf, (r) => r.ackP50),
        commitFloorAckP99Ms: r2(commitFloorP99),
        ofCommitFloor: r2(perSec / commitFloorPerSec),
        p99OfCommitFloor: r2(p99 / commitFloorP99),
        commitFloorOfFloor: r2(commitFloorPerSec / floorPerSec),
        hubRoundsPerSec: rs.map((r) => Math.round(r.perSec)),
        floorRoundsPerSec: fl.map((r) => Math.round(r.perSec)),
        replicaCpuUs: med(rs, (r) => r.cpuUs),
        postgresCpuUs: med(rs, (r) => r.pgCpuUs),
        walBytesPerDelivery: Math.round(med(rs, (r) => r.walBytes) ?? 0),
        transactionsPerDelivery: med(rs, (r) => r.xacts),
        keptBytesPerDelivery: keptBytes,
        floorCpuUs: med(fl, (r) => r.cpuUs),
        commitFloorCpuUs: med(cf, (r) => r.cpuUs),
        commitFloorPostgresCpuUs: med(cf, (r) => r.pgCpuUs),
        commitFloorRoundsPerSec: cf.map((r) => Math.round(r.perSec)),
        postgresFsync: fsync,
        loadAvg1m: load,
      };
    });
  } finally {
    await Promise.all(
      replicas.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await pgs.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
