// The monitor against an emulator over loopback HTTP: emulator, service client, data folder and
// Monitor set up together, recording every alert, incident update, health change and poll; torn down
// after each test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { type ServiceClient, type ServiceClientOptions } from '../../src-main/core/api/service';
import {
  Monitor,
  type Alert,
  type HealthEvent,
  type IncidentUpdate,
  type PollResult,
} from '../../src-main/core/monitor';
import { type MonitorOptions } from '../../src-main/core/monitor/monitor';
import { startEmulator, type Emulator, type EmulatorOptions, type EmulatorSeed } from '../../src-main/emulator';

export type SeedAgents = EmulatorSeed['teams'][number]['agents'];

/** Small deterministic PRNG. */
export function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MonitorRigOptions {
  key: string;
  teamId: string;
  agents: SeedAgents;
  tmpPrefix: string;
  emulator?: Omit<EmulatorOptions, 'seed'>;
  client?: Omit<ServiceClientOptions, 'baseUrl' | 'apiKey'>;
  /** Monitor options besides the targets (every seeded agent), readSession (the client) and dataDir. */
  monitor?: Partial<MonitorOptions>;
}

/** Registers the teardown (afterEach) and returns the setup for one rig per test. */
export function monitorRig() {
  let emu: Emulator | null = null;
  let client: ServiceClient | null = null;
  let monitor: Monitor | null = null;
  let dir: string | null = null;

  afterEach(async () => {
    await monitor?.stop();
    await client?.close();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    emu = client = monitor = dir = null;
  });

  return async (o: MonitorRigOptions) => {
    emu = await startEmulator({ seed: { teams: [{ id: o.teamId, apiKey: o.key, agents: o.agents }] }, ...o.emulator });
    client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: o.key, ...o.client });
    dir = await mkdtemp(join(tmpdir(), o.tmpPrefix));
    const c = client;
    const ids = o.agents.map((a) => a.agentId);
    monitor = new Monitor({
      targets: () => ids.map((agentId) => ({ teamId: o.teamId, agentId })),
      readSession: (_teamId, agentId, signal) => c.getSession(agentId, { signal }),
      dataDir: dir,
      ...o.monitor,
    });
    const alerts: Alert[] = [];
    const health: HealthEvent[] = [];
    const polls: PollResult[] = [];
    const incidents: IncidentUpdate[] = [];
    monitor.on('alert', (a) => alerts.push(a));
    monitor.on('incident', (u) => incidents.push(u));
    monitor.on('health', (h) => health.push(h));
    monitor.on('poll', (p) => polls.push(p));
    const m = monitor;
    const healthOf = (agentId: string) => m.snapshot().find((s) => s.agentId === agentId)?.health;
    return { emu, client, monitor, alerts, health, polls, incidents, healthOf };
  };
}
