// The emulator under a poll of many agents: 1,000 agents of one team, each session read once per
// round in batches of 100 concurrent GETs, against a bare node:http server that answers every request
// with a fixed session body (the least any HTTP server does). Same client, same requests, rounds
// alternate between the two so a busy machine slows both alike; medians. ratio = emulator polls/s ÷
// bare polls/s (≥ 1/3: the emulator may cost up to three times a bare server).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { startEmulator } from '../../src-main/emulator';
import { median } from '../helpers/bench-stats';

export const target = 1 / 3;

const AGENTS = 1000;
const BATCH = 100;
const ROUNDS = 7;
const WARMUP = 1;
const KEY = 'bench-emulator-key-0001';

export async function run() {
  const emu = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    seed: { teams: [{ id: 'big', apiKey: KEY, agents: [] }], contacts: [] },
  });
  for (let i = 0; i < AGENTS; i++)
    emu.control.createAgent('big', { agentId: `big-${i}`, state: i % 10 === 0 ? 'unlinked' : 'connected' });
  const body = JSON.stringify({
    state: 'connected',
    connected: true,
    linked: true,
    needsScan: false,
    qr: null,
    phone: '15550100001',
    live: true,
  });
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  const dispatcher = new Agent({ connections: BATCH });

  const pollAll = async (baseUrl: string): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < AGENTS; i += BATCH) {
      await Promise.all(
        Array.from({ length: BATCH }, async (_, j) => {
          const res = await fetch(`${baseUrl}/api/v1/agents/big-${i + j}/whatsapp/session`, {
            headers: { authorization: `Bearer ${KEY}` },
            dispatcher,
          });
          await res.text();
          if (res.status !== 200) throw new Error(`GET session big-${i + j} answered ${res.status}`);
        }),
      );
    }
    return performance.now() - started;
  };

  const emuMs: number[] = [];
  const bareMs: number[] = [];
  try {
    for (let i = 0; i < WARMUP; i++) {
      await pollAll(emu.baseUrl);
      await pollAll(bareUrl);
    }
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        emuMs.push(await pollAll(emu.baseUrl));
        bareMs.push(await pollAll(bareUrl));
      } else {
        bareMs.push(await pollAll(bareUrl));
        emuMs.push(await pollAll(emu.baseUrl));
      }
    }
  } finally {
    await dispatcher.close();
    bare.close();
    await emu.close();
  }
  const emuPps = AGENTS / (median(emuMs) / 1000);
  const barePps = AGENTS / (median(bareMs) / 1000);
  return {
    name: 'emulator-session-poll',
    ratio: emuPps / barePps,
    target,
    unit: 'polls/s',
    ours: Math.round(emuPps),
    baseline: Math.round(barePps),
    oursMedianMs: Math.round(median(emuMs)),
    baselineMedianMs: Math.round(median(bareMs)),
    agents: AGENTS,
    concurrency: BATCH,
    rounds: ROUNDS,
  };
}
