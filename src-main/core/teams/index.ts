// Teams (base URL + API key reference) and their agents, plus app settings. Non-secret config lives
// in <configDir>/config.json; API keys and signing secrets live only in the SecretStore.
import { randomUUID } from 'node:crypto';
import { ulid } from 'ulid';
import type { ServiceClient } from '../api/service';
import { inputProblem, ruleWords } from '../input-words';
import { insecureKeyProblem } from '../url';
import { systemClock, type Clock } from '../ports';
import type { SecretStore } from '../secrets/types';
import { configPath, moveCorruptConfigAside, readConfig } from './config-file';
import { configFileStore, type ConfigStore } from './config-store';
import { TeamStoreError } from './errors';
import { deepMerge, isPlainObject, type DeepPartial } from './merge';
import { apiKeyRef, keyHint, signingSecretRef } from './refs';
import {
  CONFIG_SCHEMA_VERSION,
  settingsLoadSchema,
  settingsUpdateSchema,
  type AgentConfig,
  type ConfigFile,
  type TeamConfig,
} from './schema';
import { decodeSigningSecrets, encodeSigningSecrets, rotate } from './signing';
import {
  checkedLabels,
  parseAddAgent,
  parseAddTeam,
  parseEditTeam,
  parseLabelsChange,
  parseSigningSecret,
} from './inputs';
import { keychain, verifyAgent } from './verify';
import { serial } from '../serial';
import { findAgent } from './agent-id';

export { TeamStoreError, isTeamStoreError } from './errors';
export type { TeamStoreErrorCode } from './errors';
export { defaultConfigDir } from './paths';
export { findAgent } from './agent-id';
export type { DeepPartial } from './merge';
export type { ConfigStore } from './config-store';

export interface AgentRecord {
  agentId: string;
  label: string;
  /** Polled at the fast interval all the time (absent: no). */
  watchClosely?: boolean;
  /** Words to find the agent by, normalised and sorted (src-shared/agent-labels.ts); [] when none. */
  labels: string[];
}

/** A change of an agent's labels: `labels` replaces them, then `add` and `remove` change them. */
export interface AgentLabelsChange {
  labels?: readonly string[];
  add?: readonly string[];
  remove?: readonly string[];
}
export interface TeamRecord {
  id: string;
  label: string;
  baseUrl: string;
  keyHint: string;
  /** The key may go over plain http:// to a host other than this machine (the person's choice). */
  allowInsecureHttp: boolean;
  agents: AgentRecord[];
}
export interface AppSettings {
  pollIntervalSec: number;
  fastPollIntervalSec: number;
  tunnelPort: number;
  startAtLogin: boolean;
  theme: 'system' | 'light' | 'dark';
  alertRules: {
    reconnectGraceSec: number;
    /** A drop within the flap window of an earlier one alerts once it lasts this long (at least reconnectGraceSec). */
    repeatDropGraceSec: number;
    realertMinutes: number;
    flapCount: number;
    flapWindowMinutes: number;
    quietHours: null | { start: string; end: string };
  };
  alertWebhookUrl: string | null;
  /** Alertmanager to post raised incidents to (its base URL); null: none. */
  alertmanagerUrl: string | null;
  /** Port of the Prometheus /metrics endpoint on 127.0.0.1 (0: any free one); null: off. */
  metricsPort: number | null;
  installId: string;
}

/** What TeamStore.moveAsideIfUnreadable found and did; configFile is <configDir>/config.json. */
export type UnreadableConfigOutcome =
  | { outcome: 'moved'; configFile: string; movedTo: string }
  | { outcome: 'readable'; configFile: string }
  | { outcome: 'missing'; configFile: string };

export type ClientFactory = (o: { baseUrl: string; apiKey: string; allowInsecureHttp?: boolean }) => ServiceClient;

export interface TeamStoreOptions {
  configDir: string;
  /** Where the config lives; default <configDir>/config.json (configFileStore). */
  configStore?: ConfigStore;
  secrets: SecretStore;
  clientFactory: ClientFactory;
  clock?: Clock;
  /** Random ids (team ids, installId); default crypto. */
  randomId?: () => string;
}

/** How often a change is made again when another process wrote the config between its read and its write. */
const WRITE_ATTEMPTS = 20;

const busy = (): TeamStoreError =>
  new TeamStoreError(
    'CONFIG_BUSY',
    'The config kept changing under this change (other processes write it); try again.',
  );

/** Team ids: a ULID (time-ordered, 80 random bits). */
const defaultRandomId = (): string => ulid();

function agentRecord(a: AgentConfig): AgentRecord {
  return {
    agentId: a.agentId,
    label: a.label,
    ...(a.watchClosely ? { watchClosely: true } : {}),
    labels: [...a.labels],
  };
}

function toRecord(t: TeamConfig): TeamRecord {
  return {
    id: t.id,
    label: t.label,
    baseUrl: t.baseUrl,
    keyHint: t.keyHint,
    allowInsecureHttp: t.allowInsecureHttp,
    agents: t.agents.map(agentRecord),
  };
}

export class TeamStore {
  private config: ConfigFile;
  /** The version of `config` in the store (what the next write compares). */
  private version: number | null;
  private readonly store: ConfigStore;
  private readonly clients = new Map<string, Promise<ServiceClient>>();
  private readonly inTurn = serial();

  private constructor(
    private readonly opts: TeamStoreOptions,
    store: ConfigStore,
    config: ConfigFile,
    version: number,
  ) {
    this.store = store;
    this.config = config;
    this.version = version;
  }

  /**
   * Loads <configDir>/config.json (creating it, with a fresh installId, when missing).
   * A corrupt or invalid file throws TeamStoreError CONFIG_CORRUPT and is left untouched; nothing is
   * written until it is fixed or set aside with TeamStore.moveAsideIfUnreadable().
   */
  static async open(opts: TeamStoreOptions): Promise<TeamStore> {
    const store = opts.configStore ?? configFileStore(opts.configDir);
    for (let attempt = 0; ; attempt++) {
      const stored = await store.read();
      if (stored) return new TeamStore(opts, store, stored.config, stored.version);
      const randomId = opts.randomId ?? (() => randomUUID());
      const config: ConfigFile = {
        schemaVersion: CONFIG_SCHEMA_VERSION,
        settings: settingsLoadSchema.parse({ installId: randomId().replace(/[^A-Za-z0-9_-]/g, '') }),
        teams: [],
      };
      const version = await store.write(config, null);
      if (version !== null) return new TeamStore(opts, store, config, version);
      // Another process wrote the first config meanwhile: that one is read.
      if (attempt >= WRITE_ATTEMPTS) throw busy();
    }
  }

  /**
   * The recovery: renames config.json to config.json.corrupt-<ISO time> (kept) only when loading it
   * throws CONFIG_CORRUPT. A file that loads, or no file, is left as it is and said so.
   */
  static async moveAsideIfUnreadable(configDir: string, clock: Clock = systemClock): Promise<UnreadableConfigOutcome> {
    const file = configPath(configDir);
    try {
      if ((await readConfig(configDir)) === null) return { outcome: 'missing', configFile: file };
      return { outcome: 'readable', configFile: file };
    } catch (err) {
      if (!(err instanceof TeamStoreError) || err.code !== 'CONFIG_CORRUPT') throw err;
    }
    const movedTo = await moveCorruptConfigAside(configDir, clock.now());
    return movedTo === null
      ? { outcome: 'missing', configFile: file }
      : { outcome: 'moved', configFile: file, movedTo };
  }

  listTeams(): TeamRecord[] {
    return this.config.teams.map(toRecord);
  }

  /** The id of the first team that has this agent (no team copied, as listTeams does), if any. */
  teamOfAgent(agentId: string): string | undefined {
    return this.config.teams.find((t) => t.agents.some((a) => a.agentId === agentId))?.id;
  }

  findTeam(idOrLabel: string): TeamRecord | undefined {
    const t = this.lookup(idOrLabel);
    return t && toRecord(t);
  }

  async addTeam(input: {
    label: string;
    baseUrl: string;
    apiKey: string;
    allowInsecureHttp?: boolean;
    agents?: Array<{ agentId: string; label?: string }>;
  }): Promise<TeamRecord> {
    const v = parseAddTeam(input);
    return this.serial(async () => {
      if (this.lookupByLabel(v.label))
        throw new TeamStoreError('DUPLICATE', `A team labelled "${v.label}" already exists.`);
      const client = this.opts.clientFactory({
        baseUrl: v.baseUrl,
        apiKey: v.apiKey,
        allowInsecureHttp: v.allowInsecureHttp,
      });
      let stored = false;
      let id = '';
      try {
        for (const a of v.agents) await verifyAgent(client, a.agentId, v.baseUrl);
        id = this.newTeamId();
        const team: TeamConfig = {
          id,
          label: v.label,
          baseUrl: v.baseUrl,
          keyHint: keyHint(v.apiKey),
          apiKeyRef: apiKeyRef(id),
          allowInsecureHttp: v.allowInsecureHttp,
          agents: v.agents.map((a) => ({ ...a, signingSecretRef: null, watchClosely: false })),
        };
        await keychain(() => this.opts.secrets.set(team.apiKeyRef, v.apiKey));
        stored = true;
        await this.commit((c) => {
          // Checked again on the file as it is now: the agent checks above take a while.
          if (c.teams.some((t) => t.label.toLowerCase() === v.label.toLowerCase()))
            throw new TeamStoreError('DUPLICATE', `A team labelled "${v.label}" already exists.`);
          return { ...c, teams: [...c.teams, team] };
        });
        this.clients.set(id, Promise.resolve(client));
        return toRecord(team);
      } catch (err) {
        if (stored) await this.opts.secrets.delete(apiKeyRef(id)).catch(() => false);
        await client.close().catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * Changes a team in place: its label, base URL, key or insecure-http choice. The id stays, and with it
   * everything kept under it (incidents, timelines, registrations, secrets). A new base URL or key is
   * checked with every agent of the team first, as when the team was added; a refused change keeps the
   * team as it was (the old key is put back when the file cannot be written).
   */
  async updateTeam(
    idOrLabel: string,
    input: { label?: string; baseUrl?: string; apiKey?: string; allowInsecureHttp?: boolean },
  ): Promise<TeamRecord> {
    const v = parseEditTeam(input);
    return this.serial(async () => {
      const team = this.requireTeam(idOrLabel);
      const label = v.label ?? team.label;
      const other = this.lookupByLabel(label);
      if (other && other.id !== team.id)
        throw new TeamStoreError('DUPLICATE', `A team labelled "${label}" already exists.`);
      const baseUrl = v.baseUrl ?? team.baseUrl;
      const allowInsecureHttp = v.allowInsecureHttp ?? team.allowInsecureHttp;
      const problem = insecureKeyProblem(baseUrl, allowInsecureHttp);
      if (problem !== null) throw new TeamStoreError('INVALID', `${problem}.`, { field: 'baseUrl' });
      const reaches =
        baseUrl !== team.baseUrl || v.apiKey !== undefined || allowInsecureHttp !== team.allowInsecureHttp;
      const oldKey = v.apiKey !== undefined ? await keychain(() => this.opts.secrets.get(team.apiKeyRef)) : null;
      let client: ServiceClient | null = null;
      if (reaches) {
        const apiKey = v.apiKey ?? (await this.getApiKey(team.id));
        client = this.opts.clientFactory({ baseUrl, apiKey, allowInsecureHttp });
      }
      let keyStored = false;
      try {
        if (client) for (const a of team.agents) await verifyAgent(client, a.agentId, baseUrl);
        if (v.apiKey !== undefined) {
          await keychain(() => this.opts.secrets.set(team.apiKeyRef, v.apiKey!));
          keyStored = true;
        }
        const keyHintNow = v.apiKey !== undefined ? keyHint(v.apiKey) : team.keyHint;
        await this.commit((c) => {
          // Checked again on the file as it is now: the agent checks above take a while.
          const l = label.toLowerCase();
          if (c.teams.some((t) => t.id !== team.id && t.label.toLowerCase() === l))
            throw new TeamStoreError('DUPLICATE', `A team labelled "${label}" already exists.`);
          return this.withTeam(team, (t) => ({ ...t, label, baseUrl, allowInsecureHttp, keyHint: keyHintNow }))(c);
        });
      } catch (err) {
        if (keyStored && oldKey !== null) await this.opts.secrets.set(team.apiKeyRef, oldKey).catch(() => undefined);
        await client?.close().catch(() => undefined);
        throw err;
      }
      if (client) {
        await this.dropClient(team.id);
        this.clients.set(team.id, Promise.resolve(client));
      }
      return toRecord(this.requireTeam(team.id));
    });
  }

  /** Deletes the team's keychain entries (API key and every signing secret), then its config. */
  async removeTeam(idOrLabel: string): Promise<void> {
    return this.serial(async () => {
      const team = this.requireTeam(idOrLabel);
      for (const a of team.agents) await keychain(() => this.deleteSigning(team, a));
      await keychain(() => this.opts.secrets.delete(team.apiKeyRef));
      await this.commit((c) => ({ ...c, teams: c.teams.filter((t) => t.id !== team.id) }));
      // Once more now that the file no longer has them: a secret another process stored meanwhile
      // (see setSigningSecret) is not left behind. The removal stands if this fails: the first pass
      // deleted every secret the file named.
      for (const a of team.agents) await keychain(() => this.deleteSigning(team, a)).catch(() => undefined);
      await this.dropClient(team.id);
    });
  }

  async addAgent(
    teamIdOrLabel: string,
    agent: { agentId: string; label?: string; labels?: readonly string[] },
  ): Promise<AgentRecord> {
    const a = parseAddAgent(agent);
    return this.serial(async () => {
      const team = this.requireTeam(teamIdOrLabel);
      if (team.agents.some((x) => x.agentId === a.agentId))
        throw new TeamStoreError('DUPLICATE', `Agent "${a.agentId}" is already in team "${team.label}".`);
      if (team.agents.some((x) => x.label.toLowerCase() === a.label.toLowerCase()))
        throw new TeamStoreError('DUPLICATE', `Team "${team.label}" already has an agent labelled "${a.label}".`);
      const client = await this.clientFor(team.id);
      await verifyAgent(client, a.agentId, team.baseUrl);
      const next: AgentConfig = { ...a, signingSecretRef: null, watchClosely: false };
      await this.commit(
        this.withTeam(team, (t) => {
          // Checked again on the file as it is now: the service's check above takes a while.
          if (t.agents.some((x) => x.agentId === a.agentId))
            throw new TeamStoreError('DUPLICATE', `Agent "${a.agentId}" is already in team "${team.label}".`);
          return { ...t, agents: [...t.agents, next] };
        }),
      );
      return agentRecord(next);
    });
  }

  async removeAgent(teamIdOrLabel: string, agentId: string): Promise<void> {
    return this.serial(async () => {
      const team = this.requireTeam(teamIdOrLabel);
      const agent = this.requireAgent(team, agentId);
      await keychain(() => this.deleteSigning(team, agent));
      await this.commit(
        this.withTeam(team, (t) => ({ ...t, agents: t.agents.filter((x) => x.agentId !== agent.agentId) })),
      );
      // Once more now that the file no longer has it (see removeTeam).
      await keychain(() => this.deleteSigning(team, agent)).catch(() => undefined);
    });
  }

  /** Whether the monitor polls the agent at the fast interval all the time; kept in the config. */
  async setWatchClosely(teamIdOrLabel: string, agentId: string, on: boolean): Promise<AgentRecord> {
    return this.serial(async () => {
      const team = this.requireTeam(teamIdOrLabel);
      const agent = this.requireAgent(team, agentId);
      await this.commit(
        this.withTeam(team, (t) => ({
          ...t,
          agents: t.agents.map((x) => (x.agentId === agent.agentId ? { ...x, watchClosely: on } : x)),
        })),
      );
      return agentRecord({ ...agent, watchClosely: on });
    });
  }

  /**
   * Changes the agent's labels, kept in the config: `labels` replaces them, then `add` and `remove` change them
   * (made on the config as it is at the write, so two people adding a label each keep both). A label that
   * breaks the rule is refused as INVALID, naming it, and nothing changes.
   */
  async setAgentLabels(teamIdOrLabel: string, agentId: string, change: AgentLabelsChange): Promise<AgentRecord> {
    const v = parseLabelsChange(change);
    return this.serial(async () => {
      const team = this.requireTeam(teamIdOrLabel);
      const agent = this.requireAgent(team, agentId);
      let next: AgentConfig = agent;
      await this.commit(
        this.withTeam(team, (t) => {
          const now = findAgent(t.agents, agent.agentId);
          if (!now) throw this.noAgent(team, agent.agentId);
          const kept = (v.labels ?? now.labels).filter((l) => !v.remove.includes(l));
          next = { ...now, labels: checkedLabels([...kept, ...v.add]) };
          return { ...t, agents: t.agents.map((x) => (x.agentId === agent.agentId ? next : x)) };
        }),
      );
      return agentRecord(next);
    });
  }

  /** The team's API key from the keychain. Main process only; never send it to a renderer. */
  async getApiKey(teamIdOrLabel: string): Promise<string> {
    const team = this.requireTeam(teamIdOrLabel);
    const key = await keychain(() => this.opts.secrets.get(team.apiKeyRef));
    if (key === null)
      throw new TeamStoreError(
        'KEYCHAIN',
        `The API key of team "${team.label}" is missing from the OS keychain; remove the team and add it again.`,
      );
    return key;
  }

  /** One client per team, created on first use and closed when the team is removed. */
  clientFor(teamIdOrLabel: string): Promise<ServiceClient> {
    let team: TeamConfig;
    try {
      team = this.requireTeam(teamIdOrLabel);
    } catch (err) {
      return Promise.reject(err);
    }
    let client = this.clients.get(team.id);
    if (!client) {
      client = this.getApiKey(team.id).then((apiKey) =>
        this.opts.clientFactory({ baseUrl: team.baseUrl, apiKey, allowInsecureHttp: team.allowInsecureHttp }),
      );
      this.clients.set(team.id, client);
      client.catch(() => this.clients.delete(team.id));
    }
    return client;
  }

  /** Stores a new signing secret; the previous current one is kept so deliveries signed with it still verify. */
  async setSigningSecret(teamIdOrLabel: string, agentId: string, secret: string): Promise<void> {
    const value = parseSigningSecret(secret);
    return this.serial(async () => {
      const team = this.requireTeam(teamIdOrLabel);
      const agent = this.requireAgent(team, agentId);
      const ref = agent.signingSecretRef ?? signingSecretRef(team.id, agent.agentId);
      const existing = decodeSigningSecrets(await keychain(() => this.opts.secrets.get(ref)));
      await keychain(() => this.opts.secrets.set(ref, encodeSigningSecrets(rotate(existing, value))));
      // Another process may have removed the team or the agent while the secret was being stored: it
      // is not left in the keychain for an agent the config no longer has. (A removal deletes the
      // secrets again once its file is written, which covers the other order.)
      await this.reload();
      const now = this.config.teams.find((t) => t.id === team.id);
      if (!now?.agents.some((x) => x.agentId === agent.agentId)) {
        await keychain(() => this.opts.secrets.delete(ref));
        throw now ? this.noAgent(team, agentId) : this.noTeam(team.label);
      }
      if (agent.signingSecretRef !== ref) {
        await this.commit(
          this.withTeam(team, (t) => ({
            ...t,
            agents: t.agents.map((x) => (x.agentId === agent.agentId ? { ...x, signingSecretRef: ref } : x)),
          })),
        );
      }
    });
  }

  /**
   * [current, previous?]; [] when none was set. An agent whose config names no secret yet is looked
   * up under its usual keychain entry anyway: another process on this config (`webhook set` while the
   * app runs) may have stored one since this store read the file.
   */
  async getSigningSecrets(teamIdOrLabel: string, agentId: string): Promise<string[]> {
    const team = this.requireTeam(teamIdOrLabel);
    const agent = this.requireAgent(team, agentId);
    const ref = agent.signingSecretRef ?? signingSecretRef(team.id, agent.agentId);
    return decodeSigningSecrets(await keychain(() => this.opts.secrets.get(ref)));
  }

  settings(): AppSettings {
    return structuredClone(this.config.settings);
  }

  /**
   * Deep-merges the patch, validates the whole result (unknown keys rejected) and saves it. Bad input
   * changes nothing and is refused as INVALID in the words of core/input-words.ts, with the field's path.
   */
  async updateSettings(patch: DeepPartial<AppSettings>): Promise<AppSettings> {
    if (!isPlainObject(patch)) throw new TeamStoreError('INVALID', 'Settings patch must be an object.');
    return this.serial(async () => {
      const current = this.config.settings;
      if (patch.installId !== undefined && patch.installId !== current.installId)
        throw new TeamStoreError('INVALID', 'installId cannot be changed.');
      const parsed = settingsUpdateSchema.safeParse(deepMerge(current, patch), { error: ruleWords });
      if (!parsed.success) {
        const problem = inputProblem(parsed.error);
        throw new TeamStoreError(
          'INVALID',
          problem.message,
          problem.field !== undefined ? { cause: parsed.error, field: problem.field } : { cause: parsed.error },
        );
      }
      await this.commit((c) => ({ ...c, settings: parsed.data }));
      return this.settings();
    });
  }

  /** Closes every cached client. */
  async close(): Promise<void> {
    await this.serial(async () => {
      const all = [...this.clients.keys()];
      await Promise.all(all.map((id) => this.dropClient(id)));
    });
  }

  // ---- internals

  /**
   * Runs a change after the ones before it, on the file as it is now: another process on this config
   * (the command line while the app runs, or the app while a command runs) may have written it since
   * this store read it, and its change must not be lost. A file that no longer loads refuses the
   * change (CONFIG_CORRUPT), as at open: nothing is written over it.
   */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.inTurn(async () => {
      await this.reload();
      return fn();
    });
  }

  /**
   * Reads config.json again, in turn with the changes (another process may have written it): what
   * this store answers follows the file. Throws CONFIG_CORRUPT for a file that no longer loads.
   */
  refresh(): Promise<void> {
    return this.serial(async () => undefined);
  }

  /** Reads config.json again (a missing file keeps what this store has: the next write recreates it). */
  private async reload(): Promise<void> {
    const stored = await this.store.read();
    if (!stored) {
      this.version = null;
      return;
    }
    const disk = stored.config;
    const before = this.config;
    this.config = disk;
    this.version = stored.version;
    // A team changed by another process (`team edit`): its client is made again with the new URL or key.
    for (const t of before.teams) {
      const now = disk.teams.find((x) => x.id === t.id);
      if (now?.baseUrl !== t.baseUrl || now.keyHint !== t.keyHint || now.allowInsecureHttp !== t.allowInsecureHttp)
        void this.dropClient(t.id);
    }
  }

  /**
   * Makes the change on the file as it is right now (read again first: the keychain and the service's
   * checks since the change began can take seconds, and another process may have written it
   * meanwhile), then writes the file; memory changes only when the write succeeded.
   */
  private async commit(change: (c: ConfigFile) => ConfigFile): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await this.reload();
      const next = change(this.config);
      const version = await this.store.write(next, this.version);
      if (version !== null) {
        this.config = next;
        this.version = version;
        return;
      }
      // A shared store changed between the read and the write: the change is made again on what it holds now.
      if (attempt >= WRITE_ATTEMPTS) throw busy();
    }
  }

  /** A change of one team (removed meanwhile: NOT_FOUND, in requireTeam's words). */
  private withTeam(team: TeamConfig, fn: (t: TeamConfig) => TeamConfig): (c: ConfigFile) => ConfigFile {
    return (c) => {
      if (!c.teams.some((t) => t.id === team.id)) throw this.noTeam(team.label);
      return { ...c, teams: c.teams.map((t) => (t.id === team.id ? fn(t) : t)) };
    };
  }

  private lookupByLabel(label: string): TeamConfig | undefined {
    const l = label.trim().toLowerCase();
    return this.config.teams.find((t) => t.label.toLowerCase() === l);
  }

  private lookup(idOrLabel: string): TeamConfig | undefined {
    if (typeof idOrLabel !== 'string') return undefined;
    return this.config.teams.find((t) => t.id === idOrLabel) ?? this.lookupByLabel(idOrLabel);
  }

  private requireTeam(idOrLabel: string): TeamConfig {
    const t = this.lookup(idOrLabel);
    if (!t) throw this.noTeam(String(idOrLabel));
    return t;
  }

  private noTeam(name: string): TeamStoreError {
    return new TeamStoreError('NOT_FOUND', `No team "${name}".`);
  }

  private noAgent(team: TeamConfig, agentId: string): TeamStoreError {
    return new TeamStoreError('NOT_FOUND', `Team "${team.label}" has no agent "${agentId}".`);
  }

  private requireAgent(team: TeamConfig, agentId: string): AgentConfig {
    const a = findAgent(team.agents, agentId);
    if (!a) throw this.noAgent(team, String(agentId));
    return a;
  }

  private async deleteSigning(team: TeamConfig, agent: AgentConfig): Promise<void> {
    const refs = new Set([
      signingSecretRef(team.id, agent.agentId),
      ...(agent.signingSecretRef ? [agent.signingSecretRef] : []),
    ]);
    for (const ref of refs) await this.opts.secrets.delete(ref);
  }

  private async dropClient(teamId: string): Promise<void> {
    const client = this.clients.get(teamId);
    this.clients.delete(teamId);
    if (client) await client.then((c) => c.close()).catch(() => undefined);
  }

  private newTeamId(): string {
    const randomId = this.opts.randomId ?? defaultRandomId;
    for (let i = 0; i < 10; i++) {
      const id = `t_${randomId()
        .replace(/[^A-Za-z0-9]/g, '')
        .slice(0, 26)}`;
      if (id.length > 2 && !this.config.teams.some((t) => t.id === id)) return id;
    }
    throw new TeamStoreError('INVALID', 'Could not allocate a unique team id.');
  }
}
