// One fake clock for the emulator, the service client and the monitor over real loopback HTTP. Time
// only moves between steps, and a step only ends once every HTTP exchange in flight has settled
// (tracked through undici's diagnostics channels), so a poll takes zero fake time and a run is the
// same every time. Call trackHttp() once per test file (it registers its hooks).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { MonitorOptions } from '../../src-main/core/monitor/monitor';
import { FakeClock } from './fake-clock';
import { mulberry32, type monitorRig, type SeedAgents } from './monitor-rig';

const inFlight = new Set<object>();
const onCreate = (m: unknown) => inFlight.add((m as { request: object }).request);
const onDone = (m: unknown) => inFlight.delete((m as { request: object }).request);

/** Registers the diagnostics-channel hooks for this file; the in-flight set is cleared after each test. */
export function trackHttp(): void {
  beforeAll(() => {
    subscribe('undici:request:create', onCreate);
    subscribe('undici:request:trailers', onDone);
    subscribe('undici:request:error', onDone);
  });
  afterAll(() => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:trailers', onDone);
    unsubscribe('undici:request:error', onDone);
  });
  // Hooks after a test run last-registered first: register this before the rig so the rig is torn
  // down first, then the in-flight set cleared.
  afterEach(() => inFlight.clear());
}

const immediates = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

/** Waits (real time) until no HTTP exchange is in flight and the promise chains behind them ran. */
async function settle(): Promise<void> {
  const end = Date.now() + 5000;
  for (;;) {
    await immediates(10);
    if (inFlight.size === 0) {
      await immediates(10);
      if (inFlight.size === 0) return;
    }
    if (Date.now() > end) throw new Error(`${inFlight.size} HTTP exchange(s) did not settle`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** A manual clock shared by the emulator, the client and the monitor, counting from `start`. */
export class SteppedClock extends FakeClock {
  constructor(readonly start: number) {
    super({ start, settle });
  }
  /** Fake ms since the start. */
  elapsed(): number {
    return this.t - this.start;
  }
  /** Moves time to start + ms, firing due timers one at a time and letting HTTP settle after each. */
  async runTo(ms: number): Promise<void> {
    const end = this.start + ms;
    if (end < this.t) throw new Error('time cannot go back');
    await this.advance(end - this.t);
  }
  async runFor(ms: number): Promise<void> {
    await this.runTo(this.elapsed() + ms);
  }
  /** Runs until cond() holds, at most maxMs more; returns the fake time it took. */
  async runUntil(what: string, cond: () => boolean, maxMs: number, stepMs = 250): Promise<number> {
    const from = this.elapsed();
    while (!cond()) {
      if (this.elapsed() - from >= maxMs) throw new Error(`not within ${maxMs} fake ms: ${what}`);
      await this.runFor(stepMs);
    }
    return this.elapsed() - from;
  }
}

export interface SteppedRigOptions {
  start: number;
  key: string;
  teamId: string;
  agents: SeedAgents;
  tmpPrefix: string;
  seeds: { emulator: number; monitor: number };
  /** The app's poll settings: this interval, a fast poll of 2 s, the poller's other defaults. */
  intervalMs: number;
  monitor?: Partial<MonitorOptions>;
}

/** A monitor rig (emulator, client, monitor) on one stepped clock. */
export async function steppedRig(rig: ReturnType<typeof monitorRig>, o: SteppedRigOptions) {
  const clock = new SteppedClock(o.start);
  const h = await rig({
    key: o.key,
    teamId: o.teamId,
    agents: o.agents,
    tmpPrefix: o.tmpPrefix,
    emulator: { clock, random: mulberry32(o.seeds.emulator) },
    client: { clock },
    monitor: {
      clock,
      random: mulberry32(o.seeds.monitor),
      poll: { intervalMs: o.intervalMs, fastIntervalMs: 2000 },
      ...o.monitor,
    },
  });
  return { ...h, clock };
}
