// Benchmark: deliveries per second through the tunnel (receive → verify → store with fdatasync →
// forward to a local app) against http-proxy forwarding the same requests without verifying or
// storing. Side by side in one process: the same payloads (one list per round, sent to both), the
// same client concurrency, a warm-up of both, then ROUNDS rounds each in alternating order (the
// baseline first on even rounds, ours first on odd ones); the figures are the medians.
// Throughput counts a request as done when the local app has it; latency is from the client's send
// to the local app's receipt.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import httpProxy from 'http-proxy';
import { Agent, request } from 'undici';
import { signDelivery } from '../../src-main/core/signature';
import { Tunnel } from '../../src-main/core/tunnel';
import { median } from '../helpers/bench-stats';

export const target = 0.7;

const SECRET = 'whsec_bench_secret';

export interface TunnelBenchResult {
  name: string;
  /** ours / baseline deliveries per second (target ≥ 0.7). */
  ratio: number;
  requests: number;
  concurrency: number;
  agents: number;
  oursPerSec: number;
  baselinePerSec: number;
  oursP50Ms: number;
  oursP99Ms: number;
  baselineP50Ms: number;
  baselineP99Ms: number;
  addedP50Ms: number;
  addedP99Ms: number;
  rounds: number;
  /** Every round's figure, for judging the spread on a shared machine. */
  oursRoundsPerSec: number[];
  baselineRoundsPerSec: number[];
}

const ROUNDS = 5;
const WARMUP_REQUESTS = 1_000;

interface Payload {
  id: string;
  agentId: string;
  body: Buffer;
  headers: Record<string, string>;
}

function payloads(n: number, agents: number, tag: string): Payload[] {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: n }, (_, i) => {
    const id = `wamid_${tag}_${i}`;
    const body = Buffer.from(
      JSON.stringify({ event: 'message.received', from: '15550100002', message: { id, type: 'text', text: `benchmark message ${i} `.repeat(4), fromMe: false }, timestamp: new Date().toISOString() }),
    );
    return { id, agentId: `agent-${i % agents}`, body, headers: { 'content-type': 'application/json', ...signDelivery(SECRET, body, now) } };
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The local app: records when each message id arrives. */
async function localApp(): Promise<{ url: string; arrivals: Map<string, number>; onArrival: (fn: () => void) => void; close: () => Promise<void> }> {
  // Cleared by drive() before each run, so one payload list can be sent to both sides.
  const arrivals = new Map<string, number>();
  let listener = () => {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /"id":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'));
      if (m && !arrivals.has(m[1]!)) arrivals.set(m[1]!, performance.now());
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      listener();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    onArrival: (fn) => (listener = fn),
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

/** Sends every payload with `concurrency` in flight; resolves when the app has them all. */
async function drive(target: (p: Payload) => string, list: Payload[], concurrency: number, app: Awaited<ReturnType<typeof localApp>>) {
  const client = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  const sentAt = new Map<string, number>();
  app.arrivals.clear();
  const target0 = list.length;
  const allArrived = new Promise<void>((resolve) => {
    app.onArrival(() => {
      if (app.arrivals.size >= target0) resolve();
    });
  });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const p = list[next++]!;
      sentAt.set(p.id, performance.now());
      const res = await request(target(p), { method: 'POST', headers: p.headers, body: p.body, dispatcher: client });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await allArrived;
  const elapsed = performance.now() - started;
  await client.close();
  const lat = list.map((p) => app.arrivals.get(p.id)! - sentAt.get(p.id)!).sort((a, b) => a - b);
  return { perSec: (list.length / elapsed) * 1000, p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

export async function run(opts: { requests?: number; concurrency?: number; agents?: number } = {}): Promise<TunnelBenchResult> {
  const requests = opts.requests ?? 2_000;
  const concurrency = opts.concurrency ?? 32;
  const agents = opts.agents ?? Number(process.env.BENCH_TUNNEL_AGENTS ?? 4);
  const dataDir = await mkdtemp(join(tmpdir(), 'tunnel-bench-'));
  const app = await localApp();
  const proxy = httpProxy.createProxyServer({ target: app.url, agent: new (await import('node:http')).Agent({ keepAlive: true, maxSockets: concurrency }) });
  const proxyServer = createServer((req, res) => proxy.web(req, res));
  await new Promise<void>((r) => proxyServer.listen(0, '127.0.0.1', () => r()));
  const proxyUrl = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;
  const tunnel = new Tunnel({ dataDir, getSecrets: async () => [SECRET], forward: { defaultUrl: `${app.url}/webhook` }, logBounds: { maxDeliveries: 100_000 } });
  const { url } = await tunnel.start();
  try {
    const toBase = () => `${proxyUrl}/webhook`;
    const toOurs = (p: Payload) => `${url}/hooks/${p.agentId}`;
    // Warm up both paths (JIT, connection pools, the log file).
    for (let w = 0; w < 2; w++) {
      const warm = payloads(WARMUP_REQUESTS / 2, agents, `warm${w}`);
      await drive(toBase, warm, concurrency, app);
      await drive(toOurs, warm, concurrency, app);
    }
    const base: Array<Awaited<ReturnType<typeof drive>>> = [];
    const ours: Array<Awaited<ReturnType<typeof drive>>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const list = payloads(requests, agents, `r${round}`);
      if (round % 2 === 0) {
        base.push(await drive(toBase, list, concurrency, app));
        ours.push(await drive(toOurs, list, concurrency, app));
      } else {
        ours.push(await drive(toOurs, list, concurrency, app));
        base.push(await drive(toBase, list, concurrency, app));
      }
    }
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const oursPerSec = median(ours.map((x) => x.perSec));
    const baselinePerSec = median(base.map((x) => x.perSec));
    const o = { p50: median(ours.map((x) => x.p50)), p99: median(ours.map((x) => x.p99)) };
    const b = { p50: median(base.map((x) => x.p50)), p99: median(base.map((x) => x.p99)) };
    return {
      name: 'tunnel: receive → verify → store (fdatasync) → forward, vs http-proxy',
      ratio: r2(oursPerSec / baselinePerSec),
      requests,
      concurrency,
      agents,
      oursPerSec: Math.round(oursPerSec),
      baselinePerSec: Math.round(baselinePerSec),
      oursP50Ms: r2(o.p50),
      oursP99Ms: r2(o.p99),
      baselineP50Ms: r2(b.p50),
      baselineP99Ms: r2(b.p99),
      addedP50Ms: r2(o.p50 - b.p50),
      addedP99Ms: r2(o.p99 - b.p99),
      rounds: ROUNDS,
      oursRoundsPerSec: ours.map((x) => Math.round(x.perSec)),
      baselineRoundsPerSec: base.map((x) => Math.round(x.perSec)),
    };
  } finally {
    await tunnel.stop();
    proxy.close();
    await new Promise<void>((r) => (proxyServer.close(() => r()), proxyServer.closeAllConnections()));
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
