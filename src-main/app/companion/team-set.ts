// The teams the companion watches: the person's own (config.json + the OS keychain) and, when the
// demo was started, the demo team. The demo team lives in a second TeamStore over the data folder's
// demo/ (demo.ts) and a MemorySecretStore, so its emulator key never reaches the OS keychain nor any
// file, and the demo works on a machine without a keychain; the team (its id) is kept across restarts,
// and its key is held in memory again when the demo starts.
import type { ServiceClient } from '../../core/api/service';
import { TeamStore, type AgentLabelsChange, type AgentRecord, type TeamRecord } from '../../core/teams';

export interface TeamView extends TeamRecord {
  /** The team of the local demo emulator (kept in the data folder's demo/, its key in memory only). */
  demo: boolean;
}

export interface AgentTarget {
  teamId: string;
  agentId: string;
  watchClosely: boolean;
}

export class TeamSet {
  private demo: TeamStore | null = null;

  constructor(readonly main: TeamStore) {}

  /** Installs the in-memory team store of the demo team (once). */
  setDemo(teamStore: TeamStore): void {
    this.demo = teamStore;
  }

  get demoTeamStore(): TeamStore | null {
    return this.demo;
  }

  listTeams(): TeamView[] {
    return [
      ...this.main.listTeams().map((t) => ({ ...t, demo: false })),
      ...(this.demo?.listTeams().map((t) => ({ ...t, demo: true })) ?? []),
    ];
  }

  targets(): AgentTarget[] {
    return this.listTeams().flatMap((t) =>
      t.agents.map((a) => ({ teamId: t.id, agentId: a.agentId, watchClosely: a.watchClosely === true })),
    );
  }

  /** The TeamStore holding a team (by id or label); the person's own when none does. */
  private ownerOf(teamIdOrLabel: string): TeamStore {
    if (this.demo?.findTeam(teamIdOrLabel) && !this.main.findTeam(teamIdOrLabel)) return this.demo;
    return this.main;
  }

  /** The first team (as listTeams orders them) that has this agent, without copying any. */
  teamOfAgent(agentId: string): string | null {
    return this.main.teamOfAgent(agentId) ?? this.demo?.teamOfAgent(agentId) ?? null;
  }

  findTeam(teamIdOrLabel: string): TeamView | undefined {
    const own = this.main.findTeam(teamIdOrLabel);
    if (own) return { ...own, demo: false };
    const demo = this.demo?.findTeam(teamIdOrLabel);
    return demo && { ...demo, demo: true };
  }

  clientFor(teamIdOrLabel: string): Promise<ServiceClient> {
    return this.ownerOf(teamIdOrLabel).clientFor(teamIdOrLabel);
  }

  updateTeam(
    teamIdOrLabel: string,
    input: { label?: string; baseUrl?: string; apiKey?: string; allowInsecureHttp?: boolean },
  ): Promise<TeamRecord> {
    return this.ownerOf(teamIdOrLabel).updateTeam(teamIdOrLabel, input);
  }

  removeTeam(teamIdOrLabel: string): Promise<void> {
    return this.ownerOf(teamIdOrLabel).removeTeam(teamIdOrLabel);
  }

  addAgent(
    teamIdOrLabel: string,
    agent: { agentId: string; label?: string; labels?: readonly string[] },
  ): Promise<AgentRecord> {
    return this.ownerOf(teamIdOrLabel).addAgent(teamIdOrLabel, agent);
  }

  removeAgent(teamIdOrLabel: string, agentId: string): Promise<void> {
    return this.ownerOf(teamIdOrLabel).removeAgent(teamIdOrLabel, agentId);
  }

  setWatchClosely(teamIdOrLabel: string, agentId: string, on: boolean): Promise<AgentRecord> {
    return this.ownerOf(teamIdOrLabel).setWatchClosely(teamIdOrLabel, agentId, on);
  }

  setAgentLabels(teamIdOrLabel: string, agentId: string, change: AgentLabelsChange): Promise<AgentRecord> {
    return this.ownerOf(teamIdOrLabel).setAgentLabels(teamIdOrLabel, agentId, change);
  }

  setSigningSecret(teamIdOrLabel: string, agentId: string, secret: string): Promise<void> {
    return this.ownerOf(teamIdOrLabel).setSigningSecret(teamIdOrLabel, agentId, secret);
  }

  /** The team's API key from its keychain (main process only). */
  getApiKey(teamIdOrLabel: string): Promise<string> {
    return this.ownerOf(teamIdOrLabel).getApiKey(teamIdOrLabel);
  }

  getSigningSecrets(teamIdOrLabel: string, agentId: string): Promise<string[]> {
    return this.ownerOf(teamIdOrLabel).getSigningSecrets(teamIdOrLabel, agentId);
  }

  /**
   * Every signing secret held for an agent id, newest first, across the teams that watch it (the
   * tunnel addresses agents by id only). A team whose keychain cannot answer is skipped.
   */
  async secretsOfAgent(agentId: string): Promise<string[]> {
    const out: string[] = [];
    for (const t of this.listTeams()) {
      if (!t.agents.some((a) => a.agentId === agentId)) continue;
      const secrets = await this.getSigningSecrets(t.id, agentId).catch(() => [] as string[]);
      for (const s of secrets) if (!out.includes(s)) out.push(s);
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.main.close(), this.demo?.close()]);
  }
}
