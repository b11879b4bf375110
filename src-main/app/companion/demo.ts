// The demo: a local emulator of the service (loopback, any free port) with its seeded team, added
// to the companion as the in-memory "Demo (emulator)" team. The emulator is loaded on demand so the
// app never pays for it unless the demo is used.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TeamStore, type ClientFactory } from '../../core/teams';
import type { Clock } from '../../core/ports';
import { MemorySecretStore } from '../../core/secrets';
import type { Emulator, EmulatorSeed } from '../../emulator';

export const DEMO_TEAM_LABEL = 'Demo (emulator)';

export interface DemoInfo {
  baseUrl: string;
  controlUrl: string;
  /** The emulator's own made-up key: shown by `serve --emulator`, never by the app's handlers. */
  apiKey: string;
  agents: Array<{ agentId: string; label: string }>;
}

export class DemoHost {
  private emulator: Promise<{ emu: Emulator; seed: EmulatorSeed }> | null = null;
  private teamStore: Promise<TeamStore> | null = null;
  private dir: string | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly clientFactory: ClientFactory,
    /** Dialect names its answers use (the emulator's own shapes when empty). */
    private readonly dialect: readonly string[] = [],
  ) {}

  /** Starts the emulator once (seeded with the demo team). */
  start(): Promise<{ emu: Emulator; seed: EmulatorSeed }> {
    if (!this.emulator) {
      const p = (async () => {
        const mod = await import('../../emulator');
        const seed = mod.defaultSeed();
        const emu = await mod.startEmulator({
          port: 0,
          host: '127.0.0.1',
          seed,
          clock: this.clock,
          dialect: [...this.dialect],
        });
        return { emu, seed };
      })();
      this.emulator = p;
      p.catch(() => {
        if (this.emulator === p) this.emulator = null;
      });
    }
    return this.emulator;
  }

  async info(): Promise<DemoInfo> {
    const { emu, seed } = await this.start();
    const team = seed.teams[0];
    if (!team) throw new Error('the demo seed has no team');
    return {
      baseUrl: emu.baseUrl,
      controlUrl: emu.controlUrl,
      apiKey: team.apiKey,
      agents: team.agents.map((a) => ({ agentId: a.agentId, label: a.label ?? a.agentId })),
    };
  }

  /** The webhook URL the emulator has for each demo agent now (an agent without one is absent). */
  async webhooks(): Promise<Map<string, string>> {
    const { emu } = await this.start();
    const state = await emu.control.state();
    return new Map(state.webhooks.map((w) => [w.agentId, w.url]));
  }

  /** The demo's TeamStore: a throw-away config folder and secrets in memory only. */
  openTeamStore(): Promise<TeamStore> {
    if (!this.teamStore) {
      const p = (async () => {
        this.dir = await mkdtemp(path.join(tmpdir(), 'channel-companion-demo-'));
        return TeamStore.open({
          configDir: this.dir,
          secrets: new MemorySecretStore(),
          clientFactory: this.clientFactory,
          clock: this.clock,
        });
      })();
      this.teamStore = p;
      p.catch(() => {
        if (this.teamStore === p) this.teamStore = null;
      });
    }
    return this.teamStore;
  }

  async close(): Promise<void> {
    const e = this.emulator;
    this.emulator = null;
    if (e) await e.then(({ emu }) => emu.close()).catch(() => undefined);
    if (this.dir) await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
    this.dir = null;
  }
}
