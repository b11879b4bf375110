// Saved teams for the CLI: opens TeamStore (config dir + OS keychain) lazily, on the first command
// that needs it — commands without --team never touch the keychain. Provides the `--team` target
// resolver, and the keychain keeper of signing secrets for --team targets (`webhook set --team`;
// only a hint is ever printed).
import { resolve } from 'node:path';
import {
  TeamStore,
  defaultConfigDir,
  findAgent,
  isTeamStoreError,
  type TeamStoreError,
  type TeamRecord,
  KeychainSecretStore,
  type SecretStore,
} from '../app/teams';
import type { CliContext } from './context';
import { CliFailure, UsageError } from './errors';
import { EXIT } from './exit-codes';
import type { CliIO } from './io';
import type { Target, TargetFlags, TargetResolver } from './target';
import { signingHint } from '../app/usecases/webhooks';

export interface TeamStoreHookDeps {
  /** Config directory instead of --config-dir / defaultConfigDir() (tests). */
  configDir?: string;
  /** Secret store instead of the OS keychain (tests: MemorySecretStore). */
  secretStore?: SecretStore;
}

interface ResolvedTeam {
  teamId: string;
  label: string;
  baseUrl: string;
  apiKey: string;
  json: boolean;
  configDir: string | undefined;
}

/** TeamStoreError → the CLI's exit codes (the messages never hold a key). */
function teamStoreFailure(e: TeamStoreError): Error {
  switch (e.code) {
    case 'KEY_REJECTED':
      return new CliFailure(e.message, EXIT.auth, e.code);
    case 'AGENT_NOT_FOUND':
      return new CliFailure(e.message, EXIT.service, e.code);
    case 'INVALID':
      return new UsageError(e.message);
    default:
      return new CliFailure(e.message, EXIT.failure, e.code);
  }
}

/** Runs fn, turning a TeamStoreError into a CLI error with the right exit code. */
export async function withTeams<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw isTeamStoreError(e) ? teamStoreFailure(e) : e;
  }
}

/** A team by id or label, the agent by id or label (or the team's only agent). */
function pickAgent(team: TeamRecord, wanted: string | undefined): string {
  if (wanted !== undefined) {
    const a = findAgent(team.agents, wanted);
    if (!a)
      throw new UsageError(
        `--agent: team "${team.label}" has no agent "${wanted}" (add it with \`channel-companion agent add\`)`,
      );
    return a.agentId;
  }
  if (team.agents.length === 1) return team.agents[0]!.agentId;
  throw new UsageError(
    `--agent is required: team "${team.label}" has ${team.agents.length} agents (${team.agents.map((a) => a.agentId).join(', ') || 'none'})`,
  );
}

export class CliTeams {
  private ctx: CliContext | null = null;
  private store: SecretStore | null = null;
  private readonly opened = new Map<string, Promise<TeamStore>>();
  private readonly resolved: ResolvedTeam[] = [];

  constructor(
    private readonly io: CliIO,
    private readonly deps: TeamStoreHookDeps = {},
  ) {}

  bind(ctx: CliContext): void {
    this.ctx = ctx;
  }

  /** --config-dir (relative to the cwd), else the injected dir, else defaultConfigDir() (CHANNEL_COMPANION_HOME respected). */
  configDir(flag?: string): string {
    if (flag !== undefined) return resolve(this.io.cwd, flag);
    return this.deps.configDir ?? defaultConfigDir({ env: this.io.env });
  }

  /** The secret store, created on first use. */
  secrets(): SecretStore {
    this.store ??= this.deps.secretStore ?? new KeychainSecretStore();
    return this.store;
  }

  /** TeamStore for a config dir, opened once per run. */
  open(configDirFlag?: string): Promise<TeamStore> {
    const dir = this.configDir(configDirFlag);
    let p = this.opened.get(dir);
    if (!p) {
      const ctx = this.ctx;
      if (!ctx) throw new Error('CliTeams used before bind()');
      p = withTeams(() =>
        TeamStore.open({
          configDir: dir,
          secrets: this.secrets(),
          clock: ctx.clock,
          clientFactory: (o) =>
            ctx.client({
              baseUrl: o.baseUrl,
              apiKey: o.apiKey,
              agentId: '',
              keySource: 'keychain',
              allowInsecureHttp: o.allowInsecureHttp === true,
            }),
        }),
      );
      this.opened.set(dir, p);
      p.catch(() => this.opened.delete(dir));
    }
    return p;
  }

  /** A saved team by id or label; a UsageError naming --team when there is none. */
  async team(name: string, configDirFlag?: string): Promise<{ teamStore: TeamStore; team: TeamRecord }> {
    const teamStore = await this.open(configDirFlag);
    const team = teamStore.findTeam(name);
    if (!team) throw new UsageError(`--team: no saved team "${name}" (see \`channel-companion team list\`)`);
    return { teamStore, team };
  }

  /** The `--team NAME` target resolver: base URL, agent and the key from the keychain. */
  readonly resolver: TargetResolver = async (flags: TargetFlags) => {
    const name = typeof flags.team === 'string' ? flags.team.trim() : undefined;
    if (!name) return null;
    const configDir = typeof flags.configDir === 'string' ? flags.configDir : undefined;
    const { teamStore, team } = await this.team(name, configDir);
    const agentId = pickAgent(team, typeof flags.agent === 'string' ? flags.agent : undefined);
    const apiKey = await withTeams(() => teamStore.getApiKey(team.id));
    this.resolved.push({
      teamId: team.id,
      label: team.label,
      baseUrl: team.baseUrl,
      apiKey,
      json: flags.json === true,
      configDir,
    });
    return {
      baseUrl: team.baseUrl,
      agentId,
      apiKey,
      keySource: `keychain (team ${team.label})`,
      allowInsecureHttp: team.allowInsecureHttp,
    };
  };

  /** The saved team a target was resolved from (--team), or null. */
  teamOf(target: Target): { teamId: string; label: string } | null {
    const team = this.resolved.find((r) => r.apiKey === target.apiKey && r.baseUrl === target.baseUrl);
    return team ? { teamId: team.teamId, label: team.label } : null;
  }

  /** An agent of a saved team by id or label (or the team's only agent). */
  agentOf(team: TeamRecord, wanted: string | undefined): string {
    return pickAgent(team, wanted);
  }

  /**
   * For a target the --team resolver produced: stores an agent's new signing secret in the keychain
   * (the app's behaviour) and notes only a hint. null for any other target.
   */
  signingSecretKeeper(target: Target): ((agentId: string, secret: string) => Promise<void>) | null {
    const team = this.resolved.find((r) => r.apiKey === target.apiKey && r.baseUrl === target.baseUrl);
    if (!team) return null;
    return async (agentId, secret) => {
      const teamStore = await this.open(team.configDir);
      try {
        await withTeams(() => teamStore.setSigningSecret(team.teamId, agentId, secret));
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new CliFailure(
          `the webhook is set, but its signing secret could not be stored in the keychain: ${why}`,
          EXIT.failure,
          'SECRET_NOT_STORED',
        );
      }
      this.ctx
        ?.output(team.json)
        .note(`signing secret ${signingHint(secret)} stored in the keychain for team ${team.label}, agent ${agentId}`);
    };
  }

  async close(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }
}

const registry = new WeakMap<CliContext, CliTeams>();

export function attachTeams(ctx: CliContext, teamStore: CliTeams): void {
  registry.set(ctx, teamStore);
}

/** The run's saved-teams access (main() attaches it; a bare context gets one on demand). */
export function teamsOf(ctx: CliContext): CliTeams {
  let a = registry.get(ctx);
  if (!a) {
    a = new CliTeams(ctx.io);
    a.bind(ctx);
    registry.set(ctx, a);
  }
  return a;
}
