// The demo: a local emulator of the service (loopback) with its seeded team, added to the companion
// as the "Demo (emulator)" team. It lives in the data folder (demo/): the demo team's config (its id,
// label, base URL and key hint; the emulator's made-up key is held in memory only) and the emulator's
// agents' session states, so a companion started again continues the same world: the same team id,
// the same port when it is free (the team's base URL follows when it is not), the same agents linked
// or not. The emulator is loaded on demand so the app never pays for it unless the demo is used.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TeamStore, type ClientFactory } from '../../core/teams';
import type { Clock, Logger } from '../../core/ports';
import { MemorySecretStore } from '../../core/secrets';
import { isPortTaken } from '../../core/port-owner';
import type { Emulator, EmulatorSeed } from '../../emulator';

/** The demo's folder in the data folder, and its emulator's agent states in it. */
const DEMO_DIR = 'demo';
const EMULATOR_STATE_FILE = 'emulator-agents.json';

export const DEMO_TEAM_LABEL = 'Demo (emulator)';

export interface DemoInfo {
  baseUrl: string;
  controlUrl: string;
  /** The emulator's own made-up key: shown by `serve --emulator`, never by the app's handlers. */
  apiKey: string;
  agents: Array<{ agentId: string; label: string }>;
}

/**
 * Whether the data folder holds a demo team (a companion started on it, by any shell, resumes the demo so the
 * demo team's incidents and conversations go on, rather than being closed as removed).
 */
export async function hasKeptDemo(dataDir: string): Promise<boolean> {
  try {
    const o = JSON.parse(await readFile(path.join(dataDir, DEMO_DIR, 'config.json'), 'utf8')) as { teams?: unknown };
    return Array.isArray(o.teams) && o.teams.length > 0;
  } catch {
    return false;
  }
}

export class DemoHost {
  private emulator: Promise<{ emu: Emulator; seed: EmulatorSeed }> | null = null;
  private teamStore: Promise<TeamStore> | null = null;
  private readonly dir: string;

  constructor(
    /** The companion's data folder (the demo keeps its team and its emulator's state in demo/). */
    dataDir: string,
    private readonly clock: Clock,
    private readonly clientFactory: ClientFactory,
    private readonly logger: Logger,
    /** Dialect names its answers use (the emulator's own shapes when empty). */
    private readonly dialect: readonly string[] = [],
  ) {
    this.dir = path.join(dataDir, DEMO_DIR);
  }

  /** Starts the emulator once (seeded with the demo team), on the port of the last run when it is free. */
  start(): Promise<{ emu: Emulator; seed: EmulatorSeed }> {
    if (!this.emulator) {
      const p = (async () => {
        const mod = await import('../../emulator');
        const seed = mod.defaultSeed();
        const kept = await this.keptPort();
        const run = (port: number) =>
          mod.startEmulator({
            port,
            host: '127.0.0.1',
            seed,
            clock: this.clock,
            dialect: [...this.dialect],
            stateFile: path.join(this.dir, EMULATOR_STATE_FILE),
            onStateError: (err) => this.logger.warn('demo: the emulator state is not kept', { error: err.message }),
          });
        let emu: Emulator;
        try {
          emu = await run(kept);
        } catch (err) {
          if (kept === 0 || !isPortTaken(err)) throw err;
          this.logger.warn('demo: the port of the last run is taken; the emulator listens on another one', {
            port: kept,
          });
          emu = await run(0);
        }
        return { emu, seed };
      })();
      this.emulator = p;
      p.catch(() => {
        if (this.emulator === p) this.emulator = null;
      });
    }
    return this.emulator;
  }

  /** The port of the demo team's base URL (the emulator of the last run), 0 when there is none. */
  private async keptPort(): Promise<number> {
    const team = (await this.openTeamStore()).listTeams()[0];
    if (!team) return 0;
    try {
      const u = new URL(team.baseUrl);
      return u.hostname === '127.0.0.1' && u.port !== '' ? Number(u.port) : 0;
    } catch {
      return 0;
    }
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

  /** The demo's TeamStore: its config in the data folder (demo/config.json), its key in memory only. */
  openTeamStore(): Promise<TeamStore> {
    if (!this.teamStore) {
      const p = (async () => {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
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
  }
}
