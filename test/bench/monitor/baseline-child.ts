// The baseline of the monitor bench, in its own process: the least a poller does — a keep-alive
// undici Agent (the service client's default dispatcher settings), at most maxInFlight requests at
// once, every agent GET …/whatsapp/session again intervalMs after its previous answer (the
// monitor's rule too), the JSON body read. No validation, no health, no timeline, no jitter.
// Measured over the same number of polls as the monitor (pollWindow).
// Prints {"type":"started","t"} then {"type":"result"}.
import { Agent, request } from 'undici';
import { emit, exitWithParent, parseArg, pollerArgsSchema, pollWindow } from './child-common';

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

let running = true;
let window: ReturnType<typeof pollWindow> | null = null;
const timers = new Set<ReturnType<typeof setTimeout>>();

async function poll(agentId: string): Promise<void> {
  if (!running) return;
  try {
    await limited(async () => {
      const res = await request(`${args.baseUrl}/api/v1/agents/${encodeURIComponent(agentId)}/whatsapp/session`, {
        method: 'GET',
        headers,
        dispatcher,
      });
      const body = (await res.body.json()) as { state?: unknown };
      if (running) window?.count(res.statusCode !== 200 || typeof body.state !== 'string');
    });
  } catch {
    if (running) window?.count(true);
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

window = pollWindow(args.warmupPolls, args.polls, args.agentIds.length);
const t0 = Date.now();
for (const id of args.agentIds) void poll(id);
emit({ type: 'started', t: t0 });
setTimeout(() => {
  const figures = window!.close();
  running = false;
  void stop().then(() => {
    emit({ type: 'result', ...figures });
    process.exit(0);
  });
}, args.durationMs);
