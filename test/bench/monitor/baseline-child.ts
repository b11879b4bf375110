// The baseline of the monitor bench, in its own process: the least a poller does — a keep-alive
// undici Agent (the service client's default dispatcher settings), at most maxInFlight requests at
// once, every agent GET …/whatsapp/session again intervalMs after its previous answer (the
// monitor's rule too), the JSON body read. No validation, no health, no timeline, no jitter.
// Prints {"type":"started","t"} then {"type":"result"}.
import { Agent, request } from 'undici';
import { emit, exitWithParent, measureResources, parseArg, pollerArgsSchema } from './child-common';

const args = parseArg(pollerArgsSchema);
const dispatcher = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
const headers = { authorization: `Bearer ${args.apiKey}`, accept: 'application/json' };

let active = 0;
const waiting: Array<() => void> = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (active >= args.maxInFlight) await new Promise<void>((r) => waiting.push(r));
  else active++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else active--;
  }
}

let polls = 0;
let failures = 0;
let running = true;
const timers = new Set<ReturnType<typeof setTimeout>>();

async function poll(agentId: string): Promise<void> {
  if (!running) return;
  try {
    await limited(async () => {
      const res = await request(`${args.baseUrl}/api/v1/agents/${encodeURIComponent(agentId)}/whatsapp/session`, { method: 'GET', headers, dispatcher });
      const body = (await res.body.json()) as { state?: unknown };
      if (running) {
        polls++;
        if (res.statusCode !== 200 || typeof body.state !== 'string') failures++;
      }
    });
  } catch {
    if (running) {
      polls++;
      failures++;
    }
  }
  if (!running) return;
  const t = setTimeout(() => {
    timers.delete(t);
    void poll(agentId);
  }, args.intervalMs);
  timers.add(t);
}

const stop = async () => {
  running = false;
  for (const t of timers) clearTimeout(t);
  await dispatcher.close().catch(() => undefined);
};
exitWithParent(stop);

const res = measureResources();
const t0 = Date.now();
for (const id of args.agentIds) void poll(id);
emit({ type: 'started', t: t0 });
setTimeout(() => {
  const counted = polls;
  const failed = failures;
  running = false;
  const elapsedSec = (Date.now() - t0) / 1000;
  const r = res.end();
  void stop().then(() => {
    emit({ type: 'result', polls: counted, failures: failed, elapsedSec, pollsPerSec: counted / elapsedSec, ...r });
    process.exit(0);
  });
}, args.durationMs);
