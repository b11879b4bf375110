// What the benches that post the service's signed deliveries share (tunnel, hub-ingest, hub-fanout): the payloads, the client
// that keeps CONCURRENCY keep-alive connections busy with them, the percentiles, the CPU a process spent (from
// /proc) and the local app's arrivals (tunnel/app-child.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { signDelivery } from '../../../src-main/core/signature';
import type { Child } from '../monitor/spawn';

export interface Payload {
  id: string;
  agentId: string;
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * `n` message deliveries signed with `secret` (or each with its agent's, `secret(agentId)`), their ids tagged with
 * `tag`, the i-th for `agentOf(i)`.
 */
export function signedPayloads(
  secret: string | ((agentId: string) => string),
  n: number,
  tag: string,
  agentOf: (i: number) => string,
): Payload[] {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: n }, (_, i) => {
    const agentId = agentOf(i);
    const id = `wamid_${tag}_${i}`;
    const body = Buffer.from(
      JSON.stringify({
        event: 'message.received',
        from: '15550100002',
        message: { id, type: 'text', text: `benchmark message ${i} `.repeat(4), fromMe: false },
        timestamp: new Date().toISOString(),
      }),
    );
    const key = typeof secret === 'string' ? secret : secret(agentId);
    return { id, agentId, body, headers: { 'content-type': 'application/json', ...signDelivery(key, body, now) } };
  });
}

export const nowMs = (): number => performance.timeOrigin + performance.now();

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Sent {
  /** Epoch ms of the first send and of the last answer. */
  started: number;
  ended: number;
  /** Epoch ms of each payload's send and of its answer, by id. */
  sentAt: Map<string, number>;
  ackAt: Map<string, number>;
}

/** Posts every payload to `urlOf(p)`, `concurrency` in flight on as many keep-alive connections; each must get a 200. */
export async function sendAll(list: Payload[], urlOf: (p: Payload) => string, concurrency: number): Promise<Sent> {
  const client = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  const sentAt = new Map<string, number>();
  const ackAt = new Map<string, number>();
  const started = nowMs();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < list.length) {
      const p = list[next++]!;
      const url = urlOf(p);
      sentAt.set(p.id, nowMs());
      const res = await request(url, { method: 'POST', headers: p.headers, body: p.body, dispatcher: client });
      if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode} from ${url}: ${await res.body.text()}`);
      await res.body.dump();
      ackAt.set(p.id, nowMs());
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { started, ended: nowMs(), sentAt, ackAt };
  } finally {
    await client.close();
  }
}

/**
 * CPU ms (user + system) each of these processes' threads have spent, from /proc (Linux); null elsewhere. Read from
 * each thread's schedstat (nanoseconds on the CPU), not /proc/<pid>/stat (ticks of 10 ms, too coarse for a round of
 * a few thousand deliveries). A process that ended meanwhile is left out; a thread that ended counts for nothing.
 */
export function cpuMsEach(pids: number[]): Map<number, number> | null {
  if (!existsSync('/proc/self/task')) return null;
  const out = new Map<number, number>();
  for (const pid of pids) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // ended meanwhile (a backend whose connection a pool closed)
    }
    let ns = 0;
    for (const t of threads)
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended meanwhile
      }
    out.set(pid, ns / 1e6);
  }
  return out;
}

/** CPU ms these processes have spent (see cpuMsEach), all together. */
export function cpuMsOf(pids: number[]): number | null {
  const each = cpuMsEach(pids);
  return each === null ? null : [...each.values()].reduce((a, b) => a + b, 0);
}

/** The local app's arrivals since the last report (epoch ms per message id). */
export async function arrivals(app: Child): Promise<Map<string, number>> {
  const line = app.waitFor('arrivals', 30_000);
  app.proc.stdin!.write('report\n');
  return new Map(Object.entries((await line).arrivals as Record<string, number>));
}

/** Waits until the local app has every payload (60 s at most); their arrival times by id. */
export async function allArrived(app: Child, list: Payload[]): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  const deadline = Date.now() + 60_000;
  while (got.size < list.length) {
    if (Date.now() > deadline) throw new Error(`the local app has ${got.size} of ${list.length} deliveries after 60 s`);
    for (const [id, at] of await arrivals(app)) got.set(id, at);
    if (got.size < list.length) await new Promise((r) => setTimeout(r, 20));
  }
  return got;
}
