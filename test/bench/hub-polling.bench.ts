// The hub's polling at scale: 10,000 agents of one team at a 15 s interval (HUB_POLLING_AGENTS,
// HUB_POLLING_INTERVAL_SEC change them) over two hub replicas on one Postgres (Debian's, started here as
// the hub's tests start it). Each replica is what `hub` runs for the polling: its leases (PollLeases,
// one claim statement per round), the monitor over the agents it holds, and the writer of their health
// to Postgres (SharedIncidents) — in this one process, each replica polling through its own service
// client (the app's, over HTTP keep-alive) a stub session endpoint on loopback that answers "connected"
// at once and counts every poll, so what is measured is the leasing and the scheduling, not a service.
// Once both replicas hold a share, HUB_POLLING_INTERVALS (default 3) intervals are watched. Checks:
// every agent polled in every interval (its longest gap between two polls ≤ interval + 1 s), none
// polled twice (its shortest gap ≥ half an interval: two replicas polling it would poll it twice), poll
// skew p99 (a poll's lateness: the gap minus the interval) ≤ 1 s, and the team's rate budget never
// exceeded: over the watched intervals, at most what one companion polling every agent once per interval
// may use (its jitter takes up to 10 % off an interval and its coalescing starts a poll up to 250 ms
// early: agents × span ÷ that shortest interval). ratio = that budget ÷ the polls made (target 1). The
// busiest window of one interval is printed beside it: polls of one cycle land together, so one
// companion's own busiest interval holds up to two polls of an agent (at its start and, early, at its end).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createServiceClient } from '../../src-main/core/api/client';
import { Emitter } from '../../src-main/core/events';
import type { CompanionEvents } from '../../src-main/app/companion/types';
import type { Companion } from '../../src-main/app/companion/companion';
import { silentLogger, systemClock } from '../../src-main/core/ports';
import { createAgentMonitor } from '../../src-main/app/usecases/monitor';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../src-main/app/hub/database';
import { PollLeases } from '../../src-main/app/hub/leases';
import { SharedIncidents } from '../../src-main/app/hub/incidents';
import { startPostgres } from '../integration/hub/postgres';

export const target = 1;

const AGENTS = Number(process.env.HUB_POLLING_AGENTS ?? 10_000);
const INTERVAL_MS = Number(process.env.HUB_POLLING_INTERVAL_SEC ?? 15) * 1000;
const INTERVALS = Number(process.env.HUB_POLLING_INTERVALS ?? 3);
const TEAM = 'team-1';
/**
 * One companion's shortest interval: the jitter takes up to 10 % off, and agents due within 250 ms are
 * polled together (the poller's coalescing), so a poll may come that much earlier still.
 */
const SHORTEST_MS = 0.9 * INTERVAL_MS - Math.min(250, INTERVAL_MS / 4);

const API_KEY = 'hub-polling-bench-key';
const CONNECTED = JSON.stringify({
  connected: true,
  linked: true,
  state: 'connected',
  needsScan: false,
  phone: '15550100001',
  qr: null,
});

/** The service's session endpoint, as fast as it gets: "connected" for every agent; each poll counted. */
async function stubService(polled: (agentId: string) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const m = /\/([^/]+)\/whatsapp\/session$/.exec(req.url ?? '');
    if (!m || req.method !== 'GET') return void res.writeHead(404).end();
    polled(decodeURIComponent(m[1]!));
    res.writeHead(200, { 'content-type': 'application/json' }).end(CONNECTED);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const now = (): number => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? NaN;
};
const r1 = (n: number): number => Math.round(n * 10) / 10;

interface Replica {
  name: string;
  leases: PollLeases;
  close(): Promise<void>;
}

function startReplica(
  db: HubDatabase,
  name: string,
  agents: Array<{ teamId: string; agentId: string }>,
  serviceUrl: string,
): Replica {
  const client = createServiceClient({ baseUrl: serviceUrl, apiKey: API_KEY });
  const events = new Emitter<CompanionEvents>();
  const targets = agents.map((a) => ({ ...a, watchClosely: false }));
  let incidents: SharedIncidents | null = null;
  const leases = new PollLeases({
    db,
    replica: name,
    logger: silentLogger,
    intervalMs: () => INTERVAL_MS,
    agents: () => agents,
    gained: async (keys) => incidents?.takeUp(keys),
    changed: () => monitor.refresh(),
  });
  const monitor = createAgentMonitor({
    targets: () => leases.targets(targets),
    watchedElsewhere: (t) => leases.watchedElsewhere(t),
    readSession: (_teamId, agentId, signal) => client.getSession(agentId, { signal }),
    settings: null,
    poll: { intervalMs: INTERVAL_MS, fastIntervalMs: INTERVAL_MS },
    teamLabel: (id) => id,
    clock: systemClock,
  });
  monitor.on('poll', (r) => events.emit('poll', r));
  monitor.on('incident', (u) => events.emit('incident', u));
  // What SharedIncidents reads of a companion: its events, monitor, teams, clock and logger.
  const companion = {
    events,
    monitor: () => monitor,
    listTeams: () => [{ id: TEAM, agents: agents.map((a) => ({ agentId: a.agentId })) }],
    clock: systemClock,
    logger: silentLogger,
  } as unknown as Companion;
  incidents = new SharedIncidents({
    db,
    replica: name,
    companion,
    events: { onAny: () => () => undefined },
    holds: (a) => leases.holds(a),
  });
  const shared = incidents;
  const started = shared.start().then(() => {
    monitor.start();
    return leases.start();
  });
  return {
    name,
    leases,
    async close() {
      await started;
      await leases.close();
      await shared.close();
      await monitor.stop();
      await client.close();
    },
  };
}

export async function run() {
  const pg = await startPostgres();
  const db = openHubDatabase(pg.url);
  const replicas: Replica[] = [];
  let service: Awaited<ReturnType<typeof stubService>> | null = null;
  try {
    await migrateHub(db);
    const agents = Array.from({ length: AGENTS }, (_, i) => ({ teamId: TEAM, agentId: `agent-${i}` }));
    const polls = new Map<string, number[]>();
    const polled = (agentId: string) => {
      const t = now();
      const list = polls.get(agentId);
      if (list) list.push(t);
      else polls.set(agentId, [t]);
    };
    service = await stubService(polled);
    const startedAt = now();
    replicas.push(
      startReplica(db, 'replica-a', agents, service.url),
      startReplica(db, 'replica-b', agents, service.url),
    );
    // Until both hold a share, then one more interval for the agents that changed hands.
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      if (replicas.every((r) => r.leases.count() > 0) && replicas.reduce((n, r) => n + r.leases.count(), 0) === AGENTS)
        break;
      if (now() - startedAt > 6 * INTERVAL_MS) throw new Error('the replicas did not share the agents');
    }
    const sharedAfterMs = now() - startedAt;
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
    const from = now();
    await new Promise((r) => setTimeout(r, INTERVALS * INTERVAL_MS));
    const to = now();
    const held = replicas.map((r) => r.leases.count());

    // Per agent: the gaps between its polls within the window (and the one reaching into it).
    const gaps: number[] = [];
    let missed = 0;
    let doubled = 0;
    const all: number[] = [];
    for (const a of agents) {
      const times = polls.get(a.agentId) ?? [];
      const inside = times.filter((t) => t >= from && t < to);
      all.push(...inside);
      const before = times.filter((t) => t < from).at(-1);
      const seq = before === undefined ? inside : [before, ...inside];
      if (inside.length === 0 || to - (inside.at(-1) ?? 0) > INTERVAL_MS + 1000) missed++;
      for (let i = 1; i < seq.length; i++) {
        const gap = seq[i]! - seq[i - 1]!;
        gaps.push(gap);
        if (gap > INTERVAL_MS + 1000) missed++;
        if (gap < INTERVAL_MS / 2) doubled++;
      }
    }
    // The team's busiest window of one interval (sliding, over every poll in the watched span).
    all.sort((x, y) => x - y);
    let busiest = 0;
    for (let i = 0, j = 0; i < all.length; i++) {
      while (all[i]! - all[j]! >= INTERVAL_MS) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    const budget = Math.floor((AGENTS * INTERVALS * INTERVAL_MS) / SHORTEST_MS);
    const lateness = gaps.map((g) => g - INTERVAL_MS);
    const skewP99 = pct(lateness, 99);
    return {
      name: 'hub-polling',
      ratio: budget / Math.max(1, all.length),
      pass: missed === 0 && doubled === 0 && skewP99 <= 1000,
      agents: AGENTS,
      replicas: replicas.length,
      intervalSec: INTERVAL_MS / 1000,
      watchedIntervals: INTERVALS,
      sharedAfterSec: r1(sharedAfterMs / 1000),
      held,
      polls: all.length,
      pollsPerAgentPerInterval: Math.round((all.length / AGENTS / INTERVALS) * 1000) / 1000,
      missed,
      doubled,
      gapMinMs: Math.round(Math.min(...gaps)),
      gapMaxMs: Math.round(Math.max(...gaps)),
      skewP50Ms: Math.round(pct(lateness, 50)),
      skewP99Ms: Math.round(skewP99),
      busiestIntervalPolls: busiest,
      budget,
      stub: 'loopback HTTP session endpoint',
    };
  } finally {
    for (const r of replicas) await r.close().catch(() => undefined);
    await service?.close();
    await db.destroy();
    await pg.stop();
  }
}
