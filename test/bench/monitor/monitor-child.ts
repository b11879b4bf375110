// The monitor side of the monitor bench, in its own process: the app's Monitor (service client with
// its default keep-alive dispatcher, the poller's defaults: up to 10 % jitter off each interval, 8
// polls in flight per team, 2 s fast poll) over N agents of one team at the given interval, for
// durationMs of real time; CPU and poll rate are measured over the first `polls` polls (pollWindow),
// with the Prometheus metrics on (served at /metrics for the parent to scrape, as Prometheus would).
// Prints {"type":"metrics","url"}, {"type":"started","t"}, one {"type":"health",agentId,health,
// previous,t} per change after the first reading (t: wall-clock ms, for the parent's detection
// latency), then {"type":"result"}.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceClient } from '../../../src-main/core/api/client';
import { CompanionMetrics, startMetricsServer } from '../../../src-main/core/metrics';
import { Monitor } from '../../../src-main/core/monitor';
import { emit, exitWithParent, parseArg, pollerArgsSchema, pollWindow } from './child-common';

const args = parseArg(pollerArgsSchema);
const client = createServiceClient({ baseUrl: args.baseUrl, apiKey: args.apiKey });
// The app keeps timelines on disk; so does the bench (a temporary directory, removed at the end).
const dataDir = await mkdtemp(join(tmpdir(), 'monitor-bench-'));
const targets = args.agentIds.map((agentId) => ({ teamId: args.teamId, agentId }));
const monitor = new Monitor({
  targets: () => targets,
  readSession: (_teamId, agentId, signal) => client.getSession(agentId, { signal }),
  dataDir,
  poll: { intervalMs: args.intervalMs, fastIntervalMs: 2000, maxInFlightPerTeam: args.maxInFlight },
});

const metrics = new CompanionMetrics({
  teamLabel: () => 'Bench team',
  sendBudgets: () => [{ teamId: args.teamId, ...client.sendBudget() }],
});
metrics.attach(monitor);
const server = await startMetricsServer(metrics, { port: 0 });
emit({ type: 'metrics', url: server.url });

let window: ReturnType<typeof pollWindow> | null = null;
monitor.on('poll', (p) => window?.count(p.error !== undefined));
monitor.on('health', (e) => {
  if (e.previous !== 'unknown')
    emit({ type: 'health', agentId: e.agentId, health: e.health, previous: e.previous, t: Date.now() });
});

let stopped = false;
const stop = async () => {
  if (stopped) return;
  stopped = true;
  await monitor.stop();
  await server.close();
  await client.close();
  await rm(dataDir, { recursive: true, force: true });
};
exitWithParent(stop);

window = pollWindow(args.warmupPolls, args.polls, args.agentIds.length);
const t0 = Date.now();
monitor.start();
emit({ type: 'started', t: t0 });
setTimeout(() => {
  const result = { type: 'result', ...window!.close() };
  void stop().then(() => {
    emit(result);
    process.exit(0);
  });
}, args.durationMs);
