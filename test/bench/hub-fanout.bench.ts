// The hub's fan-out, end to end as a team runs it: the service's signed deliveries POSTed to the hub's
// /hooks/<agent> at 200 a second (4 agents in turn, alternating between two replicas, `channel-companion hub`, each
// a process of its own on one durable Postgres — Debian's, started here as the hub's tests start it), and 20
// `channel-companion listen --team … --forward-to …` processes (the CLI, through CHANNEL_HUB_URL and
// CHANNEL_HUB_TOKEN, 10 on each replica) forwarding every delivery to a local app of their own (a path each of
// hub-fanout/receiver-child.ts, a process that notes when each arrives). Measured per delivery and listener: from
// the hub's 200 arriving at the poster to the listener's forward arriving at its app. Checks, printed: every
// listener forwarded every delivery exactly once, and each agent's in the hub's order (the order of their events).
// Beside it, in the same run and on the same schedule: the same deliveries to one `listen --forward-to` without a
// hub (a bare receiver of its own: its 200 → its forward), the bare network floor (POST → the app), and the
// fan-out floor: the same shape with nothing of ours but the signature check (two bare relays sharing every
// delivery over a TCP link, 20 bare listeners forwarding to the same apps, the same poster: fanoutFloor…, and
// p99OfFloor = the hub's p99 ÷ the floor's). ratio = 100 ms ÷ the hub's p99 (target 1). Everything shares this
// machine's cores: the poster, Postgres, the replicas, the 20 listeners and the app.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import pg from 'pg';
import { Agent, request } from 'undici';
import { runCli } from '../helpers/cli';
import { hubCall } from '../helpers/hub-call';
import { startTestEmulator } from '../helpers/emulator';
import { startPostgres } from '../integration/hub/postgres';
import { spawnChild, type Child } from './monitor/spawn';
import { deliveries, startCli, type CliProcess } from './hub-fanout/setup';
import { nowMs, type Payload } from './support/deliveries';

export const target = 1;

const LISTENERS = 20;
const PER_SECOND = 200;
const SECONDS = Number(process.env.HUB_FANOUT_SECONDS ?? 10);
const WARMUP = 200;
const P99_MS = 100;
const AGENTS = ['fan-a1', 'fan-a2', 'fan-a3', 'fan-a4'];
const API_KEY = 'hub-fanout-bench-key-0001';
const PUBLIC_URL = 'https://hub.example.test';

const pct = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const r1 = (n: number): number => Math.round(n * 10) / 10;
const sortNum = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);

/** Posts each delivery when it is due (i ÷ PER_SECOND s after the start, whatever the answers before it); when each 200 came. */
async function post(list: Payload[], urlOf: (d: Payload, i: number) => string): Promise<Map<string, number>> {
  const client = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const ackAt = new Map<string, number>();
  const sends: Promise<void>[] = [];
  const start = nowMs();
  try {
    for (let i = 0; i < list.length; i++) {
      const wait = start + (i * 1000) / PER_SECOND - nowMs();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const d = list[i]!;
      sends.push(
        (async () => {
          const res = await request(urlOf(d, i), {
            method: 'POST',
            headers: d.headers,
            body: d.body,
            dispatcher: client,
          });
          const text = await res.body.text();
          ackAt.set(d.id, nowMs());
          if (res.statusCode !== 200 || text.includes('"duplicate":true'))
            throw new Error(`${d.id}: ${res.statusCode} ${text.slice(0, 200)}`);
        })(),
      );
    }
    const failed = (await Promise.allSettled(sends)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    await client.close();
  }
  return ackAt;
}

/** Opens a server-sent event stream and hands each event to `onEvent` until `signal` aborts. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  onEvent: (ev: EventSourceMessage) => void,
): Promise<void> {
  const res = await request(url, { headers, signal, bodyTimeout: 0 });
  const parser = createParser({ onEvent });
  void (async () => {
    for await (const chunk of res.body) parser.feed((chunk as Buffer).toString('utf8'));
  })().catch(() => undefined);
}

/** Every arrival at these apps since the last call, per path, until `done` says so (or 60 s). */
async function collect(
  apps: Child[],
  done: (by: Map<string, [string, number][]>) => boolean,
): Promise<Map<string, [string, number][]>> {
  const by = new Map<string, [string, number][]>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lines = apps.map((app) => app.waitFor('arrivals', 30_000));
    for (const app of apps) app.proc.stdin!.write('report\n');
    for (const line of await Promise.all(lines))
      for (const [path, list] of Object.entries(line.arrivals as Record<string, [string, number][]>))
        by.set(path, [...(by.get(path) ?? []), ...list]);
    if (done(by) || Date.now() > deadline) return by;
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface PathFigures {
  p50: number;
  p99: number;
  latencies: number[];
  /** Deliveries forwarded more than once, never, and out of the expected per-agent order. */
  repeats: number;
  missing: number;
  outOfOrder: number;
}

/** One app path's arrivals against the deliveries posted: latency from the 200, once each, per-agent order. */
function judge(
  arrivals: [string, number][],
  list: Payload[],
  from: Map<string, number>,
  orderOf: Map<string, number>,
): PathFigures {
  const agentOf = new Map(list.map((d) => [d.id, d.agentId]));
  const seen = new Set<string>();
  const last = new Map<string, number>();
  const latencies: number[] = [];
  let repeats = 0;
  let outOfOrder = 0;
  for (const [id, at] of arrivals) {
    if (!agentOf.has(id)) continue;
    if (seen.has(id)) {
      repeats++;
      continue;
    }
    seen.add(id);
    latencies.push(at - from.get(id)!);
    const agent = agentOf.get(id)!;
    const rank = orderOf.get(id)!;
    if ((last.get(agent) ?? -Infinity) > rank) outOfOrder++;
    last.set(agent, rank);
  }
  const sorted = sortNum(latencies);
  return {
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    latencies,
    repeats,
    missing: list.length - seen.size,
    outOfOrder,
  };
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'hub-fanout-bench-'));
  const pgs = await startPostgres({ durable: true });
  const processes: CliProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    // A local app for each listener (a process each, as each teammate's app is its own), one more for the sides.
    const apps = Array.from({ length: LISTENERS + 1 }, () => spawnChild('../hub-fanout/receiver-child.ts', {}));
    closers.push(() => Promise.all(apps.map((a) => a.kill())));
    const appUrls = await Promise.all(apps.map(async (a) => (await a.waitFor('ready', 120_000)).url as string));
    const app = apps[LISTENERS]!;
    const appUrl = appUrls[LISTENERS]!;
    const total = PER_SECOND * SECONDS;
    const countIn = (by: Map<string, [string, number][]>, paths: string[], n: number): boolean =>
      paths.every((p) => new Set((by.get(p) ?? []).map(([id]) => id)).size >= n);

    // The bare network floor: POST → the app, on the same schedule.
    const floorList = deliveries(new Map(AGENTS.map((a) => [a, 'floor'])), AGENTS, total, 'floor');
    const floorSent = new Map<string, number>();
    await post(floorList, (d) => (floorSent.set(d.id, nowMs()), `${appUrl}/floor`));
    const floorBy = await collect([app], (by) => countIn(by, ['/floor'], total));
    const postOrder = new Map(floorList.map((d, i) => [d.id, i]));
    const floor = judge(floorBy.get('/floor') ?? [], floorList, floorSent, postOrder);

    // One `listen --forward-to` without a hub: its own receiver, one signing secret for the 4 agents.
    const soloSecret = randomBytes(24).toString('hex');
    const solo = await startCli(
      [
        'listen',
        ...AGENTS.flatMap((a) => ['--agent', a]),
        '--secret-env',
        'BENCH_SIGNING_SECRET',
        '--port',
        '0',
        '--forward-to',
        `${appUrl}/solo`,
        '--json',
      ],
      { CHANNEL_COMPANION_HOME: join(dir, 'solo'), BENCH_SIGNING_SECRET: soloSecret },
    );
    processes.push(solo);
    const soloUrl = solo.ready.url as string;
    const soloSecrets = new Map(AGENTS.map((a) => [a, soloSecret]));
    await post(deliveries(soloSecrets, AGENTS, WARMUP, 'solo_warm'), (d) => `${soloUrl}/hooks/${d.agentId}`);
    await collect([app], (by) => countIn(by, ['/solo'], WARMUP));
    const soloList = deliveries(soloSecrets, AGENTS, total, 'solo');
    const soloAck = await post(soloList, (d) => `${soloUrl}/hooks/${d.agentId}`);
    const soloBy = await collect([app], (by) => countIn(by, ['/solo'], total));
    const soloRank = new Map(
      [...soloList].sort((a, b) => soloAck.get(a.id)! - soloAck.get(b.id)!).map((d, i) => [d.id, i]),
    );
    const single = judge(soloBy.get('/solo') ?? [], soloList, soloAck, soloRank);
    await solo.stop();

    // The fan-out floor: the same shape with nothing of ours but the signature check — two bare relays sharing every
    // delivery over one TCP link (hub-fanout/relay-child.ts), 20 bare listeners, 10 on each, forwarding to the same
    // apps (hub-fanout/floor-listener-child.ts), the same poster and schedule; and, as on the hub, a bare client in
    // this process on each relay's stream (the relays' part). Stopped before the hub starts.
    const relaySecret = randomBytes(24).toString('hex');
    const relaySecrets = new Map(AGENTS.map((a) => [a, relaySecret]));
    const relayArg = { secrets: Object.fromEntries(relaySecrets) };
    const relayA = spawnChild('../hub-fanout/relay-child.ts', relayArg);
    const floorChildren = [relayA];
    closers.push(() => Promise.all(floorChildren.map((c) => c.kill())));
    const linked = relayA.waitFor('linked', 120_000);
    const readyA = await relayA.waitFor('ready', 120_000);
    const relayB = spawnChild('../hub-fanout/relay-child.ts', { ...relayArg, peer: readyA.linkPort });
    floorChildren.push(relayB);
    const relayUrls = [readyA.url as string, (await relayB.waitFor('ready', 120_000)).url as string];
    await linked;
    const fanPaths = Array.from({ length: LISTENERS }, (_, l) => `/f${l}`);
    const fanListeners = fanPaths.map((path, l) =>
      spawnChild('../hub-fanout/floor-listener-child.ts', { relay: relayUrls[l % 2], target: `${appUrls[l]}${path}` }),
    );
    floorChildren.push(...fanListeners);
    await Promise.all(fanListeners.map((c) => c.waitFor('ready', 120_000)));
    const relayUrl = (d: Payload, i: number): string =>
      `${relayUrls[Math.floor(i / AGENTS.length) % 2]}/hooks/${d.agentId}`;
    await post(deliveries(relaySecrets, AGENTS, WARMUP, 'fan_warm'), relayUrl);
    await collect(apps.slice(0, LISTENERS), (by) => countIn(by, fanPaths, WARMUP));
    const relayHeardAt = new Map<string, number>();
    const relayStreams = new AbortController();
    for (const url of relayUrls)
      await readEvents(`${url}/events`, {}, relayStreams.signal, (ev) => {
        if (ev.event !== 'delivery') return;
        const body = JSON.parse((JSON.parse(ev.data) as { body: string }).body) as { message: { id: string } };
        if (!relayHeardAt.has(`${url} ${body.message.id}`)) relayHeardAt.set(`${url} ${body.message.id}`, nowMs());
      });
    const fanList = deliveries(relaySecrets, AGENTS, total, 'fan');
    const fanStart = nowMs();
    const fanAck = await post(fanList, relayUrl);
    const fanPostedPerSecond = (total / (nowMs() - fanStart)) * 1000;
    const fanBy = await collect(apps.slice(0, LISTENERS), (by) => countIn(by, fanPaths, total));
    relayStreams.abort();
    await Promise.all(floorChildren.map((c) => c.kill()));
    // No order across the relays: each agent's is judged against the order of the poster's 200s.
    const fanRank = new Map(
      [...fanList].sort((a, b) => fanAck.get(a.id)! - fanAck.get(b.id)!).map((d, i) => [d.id, i]),
    );
    const fanPer = fanPaths.map((p) => judge(fanBy.get(p) ?? [], fanList, fanAck, fanRank));
    const fanAll = sortNum(fanPer.flatMap((f) => f.latencies));
    const relayHeard = sortNum(
      relayUrls.flatMap((u) => fanList.map((d) => (relayHeardAt.get(`${u} ${d.id}`) ?? NaN) - fanAck.get(d.id)!)),
    ).filter((x) => !Number.isNaN(x));

    // The hub: two replicas, one team of 4 agents registered to the hub's hooks, 20 listeners.
    const emu = await startTestEmulator({
      seed: {
        teams: [
          {
            id: 'fanout-team',
            apiKey: API_KEY,
            agents: AGENTS.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555030000${i}` })),
          },
        ],
      },
    });
    closers.push(() => emu.close());
    const env = { DATABASE_URL: pgs.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') };
    const added = await runCli(['hub', 'member', 'add', 'bench', '--role', 'admin', '--json'], { env });
    if (added.code !== 0) throw new Error(`hub member add: ${added.stderr}`);
    const token = (added.json()[0] as { token: string }).token;
    const replica = async (name: string): Promise<string> => {
      const args = ['hub', '--json', '--port', '0', '--public-url', PUBLIC_URL];
      args.push('--config-dir', join(dir, name, 'config'), '--data-dir', join(dir, name, 'data'));
      const p = await startCli(args, env);
      processes.push(p);
      return p.ready.origin as string;
    };
    const origins = [await replica('a'), await replica('b')];
    const call = <T>(name: string, body: unknown): Promise<T> => hubCall<T>(origins[0]!, token, name, body);
    const team = await call<{ teamId: string }>('teams.add', {
      label: 'Fanout',
      baseUrl: emu.baseUrl,
      apiKey: API_KEY,
      agents: AGENTS.map((agentId) => ({ agentId })),
    });
    const secrets = new Map<string, string>();
    for (const agentId of AGENTS) {
      await call('webhook.register', { teamId: team.teamId, agentId, publicUrl: `${PUBLIC_URL}/hooks/${agentId}` });
      const { secret } = await call<{ secret: string }>('webhook.revealSecret', { teamId: team.teamId, agentId });
      secrets.set(agentId, secret);
    }

    // Each replica takes each agent's deliveries (it has read the team and its secrets; under load that may take
    // a while): one delivery per replica and agent, posted until it is answered 200.
    for (const origin of origins)
      for (const [k, d] of deliveries(secrets, AGENTS, AGENTS.length, `ready_${origins.indexOf(origin)}`).entries())
        for (let attempt = 0; ; attempt++) {
          const res = await request(`${origin}/hooks/${d.agentId}`, {
            method: 'POST',
            headers: d.headers,
            body: d.body,
          });
          const text = await res.body.text();
          if (res.statusCode === 200) break;
          if (attempt >= 300) throw new Error(`${origin} ${AGENTS[k]}: ${res.statusCode} ${text.slice(0, 200)}`);
          await new Promise((r) => setTimeout(r, 100));
        }

    const paths = Array.from({ length: LISTENERS }, (_, l) => `/l${l}`);
    const listeners = await Promise.all(
      paths.map((path, l) =>
        startCli(
          ['listen', '--team', 'Fanout', '--forward-to', `${appUrls[l]}${path}`, '--json'],
          {
            CHANNEL_HUB_URL: origins[l % 2]!,
            CHANNEL_HUB_TOKEN: token,
            CHANNEL_COMPANION_HOME: join(dir, `laptop-${l}`),
          },
          // A forward its app did not take, or a warning: kept to print.
          (line) => (line.event === 'forward' && (line.forward as { status?: unknown }).status !== 200 ? true : false),
          240_000,
        ),
      ),
    );
    processes.push(...listeners);
    // Alternating replicas per agent: each agent's deliveries reach both, one after the other.
    const hubUrl = (d: Payload, i: number): string =>
      `${origins[Math.floor(i / AGENTS.length) % 2]}/hooks/${d.agentId}`;
    await post(deliveries(secrets, AGENTS, WARMUP, 'hub_warm'), hubUrl);
    await collect(apps.slice(0, LISTENERS), (by) => countIn(by, paths, WARMUP));

    // Where the time goes: a bare event-stream client on each replica (in this process) notes when each delivery's
    // event comes off the hub's stream; the listeners' share is the rest.
    const heardAt = new Map<string, number>();
    const streams = new AbortController();
    closers.push(async () => streams.abort());
    for (const origin of origins)
      await readEvents(`${origin}/api/events`, { authorization: `Bearer ${token}` }, streams.signal, (ev) => {
        if (ev.event !== 'tunnel.delivery') return;
        const id = (JSON.parse(ev.data) as { messageId: string | null }).messageId;
        if (id !== null && !heardAt.has(`${origin} ${id}`)) heardAt.set(`${origin} ${id}`, nowMs());
      });

    const hubList = deliveries(secrets, AGENTS, total, 'hub');
    const postStart = nowMs();
    const hubAck = await post(hubList, hubUrl);
    const postedPerSecond = (total / (nowMs() - postStart)) * 1000;
    const hubBy = await collect(apps.slice(0, LISTENERS), (by) => countIn(by, paths, total));

    // The hub's order: its events' ids (what each listener forwards one agent's deliveries in).
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    closers.push(() => db.end());
    const rows = (
      await db.query<{ key: string }>(
        `select d.key from hub_events e join hub_deliveries d on d.delivery_id = e.payload->>'id'
          where e.name = 'tunnel.delivery' order by e.id`,
      )
    ).rows;
    const hubOrder = new Map(rows.map((r, i) => [r.key, i]));
    const per = paths.map((p) => judge(hubBy.get(p) ?? [], hubList, hubAck, hubOrder));
    const heard = sortNum(
      origins.flatMap((o) => hubList.map((d) => (heardAt.get(`${o} ${d.id}`) ?? NaN) - hubAck.get(d.id)!)),
    ).filter((x) => !Number.isNaN(x));
    const all = sortNum(per.flatMap((f) => f.latencies));
    const p99 = pct(all, 99);
    const onceEach = per.every((f) => f.repeats === 0 && f.missing === 0);
    const inOrder = per.every((f) => f.outOfOrder === 0);
    const failedForwards = listeners.reduce((n, l) => n + l.lines.length, 0);
    return {
      name: 'hub-fanout: the hub’s 200 → each of 20 listeners’ forward (listen --forward-to through the hub)',
      ratio: P99_MS / p99,
      pass: onceEach && inOrder && p99 <= P99_MS,
      listeners: LISTENERS,
      replicas: 2,
      agents: AGENTS.length,
      deliveries: total,
      postedPerSecond: r1(postedPerSecond),
      forwards: all.length,
      everyDeliveryOncePerListener: onceEach,
      perAgentOrder: inOrder,
      repeats: per.reduce((n, f) => n + f.repeats, 0),
      missing: per.reduce((n, f) => n + f.missing, 0),
      outOfOrder: per.reduce((n, f) => n + f.outOfOrder, 0),
      failedForwards,
      p50Ms: r1(pct(all, 50)),
      p99Ms: r1(p99),
      maxMs: r1(all[all.length - 1] ?? NaN),
      eventStreamP50Ms: r1(pct(heard, 50)),
      eventStreamP99Ms: r1(pct(heard, 99)),
      listenerP50Ms: per.map((f) => r1(f.p50)),
      listenerP99Ms: per.map((f) => r1(f.p99)),
      singleListenP50Ms: r1(single.p50),
      singleListenP99Ms: r1(single.p99),
      singleListenOnce: single.repeats === 0 && single.missing === 0,
      singleListenMissing: single.missing,
      hubP99OverSingleListen: r1(p99 / single.p99),
      floorP50Ms: r1(floor.p50),
      floorP99Ms: r1(floor.p99),
      fanoutFloorPostedPerSecond: r1(fanPostedPerSecond),
      fanoutFloorP50Ms: r1(pct(fanAll, 50)),
      fanoutFloorP99Ms: r1(pct(fanAll, 99)),
      fanoutFloorMaxMs: r1(fanAll[fanAll.length - 1] ?? NaN),
      fanoutFloorRelayP50Ms: r1(pct(relayHeard, 50)),
      fanoutFloorRelayP99Ms: r1(pct(relayHeard, 99)),
      fanoutFloorOnce: fanPer.every((f) => f.repeats === 0 && f.missing === 0),
      fanoutFloorMissing: fanPer.reduce((n, f) => n + f.missing, 0),
      fanoutFloorOutOfOrder: fanPer.reduce((n, f) => n + f.outOfOrder, 0),
      p99OfFloor: r1(p99 / pct(fanAll, 99)),
      loadAvg1m: r1(loadavg()[0]!),
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await pgs.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
