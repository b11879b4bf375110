// Rebuilding the Messages index from the tunnel's log: 100,000 stored message.received deliveries
// (200 contacts, 4 agents). Ours: the authentic message.received deliveries read through the log's
// reader API (bodies(): each body cut from its record as written, no record parsed), each body parsed
// once, and the index built, the way the app does at start over the log its tunnel has opened. The floor: a bare JSON-lines scan of
// the same segment files (read each file, split the lines, JSON.parse each). Same files, alternating
// runs, medians; ratio = the scan's time ÷ ours. The log's own open (loading every segment into its
// index, which the tunnel does whether or not Messages exist, and `channel-companion messages` does
// too) is measured beside it: logOpenMs, and coldRatio = the scan ÷ (open + rebuild).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Messages, messageBodies } from '../../src-main/core/messages';
import { systemClock } from '../../src-main/core/ports';
import { EventLog, type StoredDelivery } from '../../src-main/core/tunnel';
import { median } from '../helpers/bench-stats';

export const target = 0.5;

const DELIVERIES = 100_000;
const CONTACTS = 200;
const AGENTS = 4;
const ROUNDS = 7;
const WARMUP = 1;
const BATCH = 5_000;

function delivery(i: number, now: number): StoredDelivery {
  const agentId = `agent-${i % AGENTS}`;
  const from = String(15550200000 + (i % CONTACTS));
  const at = now - (DELIVERIES - i) * 1000;
  const body = {
    event: 'message.received',
    from,
    message: {
      id: `wamid_bench_${i}`,
      type: 'text',
      text: `message number ${i}: where is my order, it was due yesterday`,
      fromMe: false,
    },
    timestamp: new Date(at).toISOString(),
  };
  return {
    kind: 'delivery',
    id: `dlv_${i}`,
    agentId,
    receivedAt: at,
    method: 'POST',
    path: `/hooks/${agentId}`,
    headers: {
      'content-type': 'application/json',
      'x-service-signature-v1': `t=${Math.floor(at / 1000)},v1=${'ab'.repeat(32)}`,
    },
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: {
      ok: true,
      reason: 'verified',
      scheme: 'v1',
      timestamp: Math.floor(at / 1000),
      steps: ['v1 header present', 'signature matches'],
    },
    summary: { event: 'message.received', from, messageId: body.message.id, type: 'text' },
    forward: false,
  };
}

export async function fill(dataDir: string, now: number): Promise<void> {
  const log = new EventLog({
    dataDir,
    clock: systemClock,
    bounds: { maxDeliveries: DELIVERIES * 2, maxBytes: 4 * 1024 ** 3, maxAgeMs: 365 * 24 * 3600_000 },
  });
  await log.open();
  for (let i = 0; i < DELIVERIES; i += BATCH) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(DELIVERIES, i + BATCH); j++) batch.push(log.appendDelivery(delivery(j, now)));
    await Promise.all(batch);
  }
  await log.close();
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'cc-bench-messages-'));
  try {
    const now = Date.now();
    const tunnelDir = join(dir, 'tunnel');
    await fill(tunnelDir, now);
    let oursCount = 0;
    let baseCount = 0;
    const opened = new EventLog({ dataDir: tunnelDir, clock: systemClock, readOnly: true });
    await opened.open();
    const ours = async () => {
      const m = new Messages({ dataDir: dir, now: () => now, readOnly: true });
      await m.open(messageBodies(opened));
      oursCount = (await m.contacts()).reduce((n, c) => n + c.count, 0);
      await m.close();
    };
    const openLog = async () => {
      await new EventLog({ dataDir: tunnelDir, clock: systemClock, readOnly: true }).open();
    };
    const baseline = async () => {
      const folder = join(tunnelDir, 'deliveries');
      let n = 0;
      for (const name of (await readdir(folder)).filter((f) => f.endsWith('.jsonl')).sort()) {
        const text = await readFile(join(folder, name), 'utf8');
        for (const line of text.split('\n')) {
          if (line === '' || line.charCodeAt(0) === 0) continue;
          if ((JSON.parse(line) as { kind?: string }).kind === 'delivery') n++;
        }
      }
      baseCount = n;
    };
    const a: number[] = [];
    const b: number[] = [];
    const o: number[] = [];
    for (let r = 0; r < ROUNDS + WARMUP; r++) {
      const order =
        r % 2 === 0
          ? ([
              [ours, a],
              [baseline, b],
              [openLog, o],
            ] as const)
          : ([
              [baseline, b],
              [ours, a],
              [openLog, o],
            ] as const);
      for (const [fn, into] of order) {
        const t0 = performance.now();
        await fn();
        if (r >= WARMUP) into.push(performance.now() - t0);
      }
    }
    if (oursCount !== DELIVERIES || baseCount !== DELIVERIES)
      throw new Error(`counts differ: index ${oursCount}, scan ${baseCount}, expected ${DELIVERIES}`);
    const oursMs = median(a);
    const baseMs = median(b);
    const openMs = median(o);
    return {
      name: 'messages-index-rebuild',
      ratio: baseMs / oursMs,
      target,
      deliveries: DELIVERIES,
      oursMs: Math.round(oursMs),
      scanMs: Math.round(baseMs),
      logOpenMs: Math.round(openMs),
      coldRatio: Math.round((baseMs / (openMs + oursMs)) * 1000) / 1000,
      oursPerSec: Math.round(DELIVERIES / (oursMs / 1000)),
      scanPerSec: Math.round(DELIVERIES / (baseMs / 1000)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
