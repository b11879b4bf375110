// A team of thousands of agents in a running `serve`, made the way a person's tools would: the
// emulator gets a team and its agents through its control API; the companion adds the team through
// the host's own teams.add with the first agents (the key goes to the keychain, each agent checked
// with the service), then the rest of the agents are written into config.json, as another program
// on the same config folder would (teams.add takes at most 100 agents, and adding thousands one by
// one rewrites the file each time); the companion follows the file, and the helper waits until the
// host lists every agent.
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { emulatorControl, hostCall, type EmulatorReady, type ServeReady } from './serve';

export interface ScaleTeam {
  teamId: string;
  label: string;
  /** The agents' ids, in the order they were made (`<prefix>-00001`, …). */
  agentIds: string[];
  /** The ids of the agents left unlinked (they need a QR scan); the others are connected. */
  unlinked: string[];
}

/** teams.add's limit on the agents it takes at once. */
const ADD_AT_ONCE = 100;
/** Control calls in flight at once. */
const PARALLEL = 16;

const pad = (i: number): string => String(i).padStart(5, '0');

/**
 * A team `label` of `count` agents (ids `<prefix>-00001` …, labels `<label> line 00001` …), every
 * `unlinkedEvery`-th unlinked, the others connected with a number of their own; present in the
 * emulator and in serve's config. Resolves once the host lists all of them.
 */
export async function addScaleTeam(
  ready: ServeReady,
  emu: EmulatorReady,
  configDir: string,
  opts: {
    label: string;
    prefix: string;
    count: number;
    unlinkedEvery?: number;
    phoneBase?: number;
    /** The labels of the i-th agent (0-based); none when absent. */
    labels?: (i: number) => string[];
  },
): Promise<ScaleTeam> {
  const { label, prefix, count } = opts;
  const apiKey = `${prefix}-key-${Date.now().toString(36)}-0123456789`;
  const team = await emulatorControl<{ id: string }>(emu, '/teams', { id: `${prefix}-team`, name: label, apiKey });
  const agentIds = Array.from({ length: count }, (_, i) => `${prefix}-${pad(i + 1)}`);
  const unlinked = opts.unlinkedEvery ? agentIds.filter((_, i) => (i + 1) % opts.unlinkedEvery! === 0) : [];
  const gone = new Set(unlinked);
  const phoneBase = opts.phoneBase ?? 15_557_000_000;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < agentIds.length) {
      const i = next++;
      const agentId = agentIds[i]!;
      await emulatorControl(
        emu,
        `/teams/${encodeURIComponent(team.id)}/agents`,
        gone.has(agentId)
          ? { agentId, state: 'unlinked' }
          : { agentId, state: 'connected', phone: String(phoneBase + i) },
      );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));

  const labelOf = (i: number): string => scaleLabel({ label }, i);
  const added = await hostCall<{ teamId: string }>(ready, 'teams.add', {
    label,
    baseUrl: emu.baseUrl,
    apiKey,
    agents: agentIds.slice(0, ADD_AT_ONCE).map((agentId, i) => ({ agentId, label: labelOf(i) })),
  });

  const config = await readConfig(configDir);
  const saved = config.teams.find((t) => t.id === added.teamId);
  if (!saved) throw new Error(`config.json has no team ${added.teamId} after teams.add`);
  for (let i = saved.agents.length; i < count; i++)
    saved.agents.push({
      agentId: agentIds[i]!,
      label: labelOf(i),
      signingSecretRef: null,
      watchClosely: false,
    } as never);
  if (opts.labels) saved.agents.forEach((a, i) => (a.labels = opts.labels!(i)));
  await writeConfig(configDir, config);
  await untilListed(ready, added.teamId, count);
  return { teamId: added.teamId, label, agentIds, unlinked };
}

/**
 * Takes the team out of config.json again (as addScaleTeam put most of it there), and waits until
 * the host no longer lists its agents: then no poll of them is under way.
 */
export async function removeScaleTeam(ready: ServeReady, configDir: string, team: ScaleTeam): Promise<void> {
  const config = await readConfig(configDir);
  config.teams = config.teams.filter((t) => t.id !== team.teamId);
  await writeConfig(configDir, config);
  await untilListed(ready, team.teamId, 0);
}

interface ConfigShape {
  teams: Array<{ id: string; agents: Array<{ agentId: string; label: string; labels?: string[] }> }>;
}

const configFile = (configDir: string): string => path.join(configDir, 'config.json');

async function readConfig(configDir: string): Promise<ConfigShape> {
  return JSON.parse(await readFile(configFile(configDir), 'utf8')) as ConfigShape;
}

/** Written whole, then renamed over the file (the companion never reads half of it). */
async function writeConfig(configDir: string, config: ConfigShape): Promise<void> {
  const temp = `${configFile(configDir)}.scale-${process.pid}`;
  await writeFile(temp, JSON.stringify(config, null, 2), { mode: 0o600 });
  await rename(temp, configFile(configDir));
}

/** Waits until the host lists `count` agents of the team. */
async function untilListed(ready: ServeReady, teamId: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const listed = (await hostCall<Array<{ teamId: string }>>(ready, 'agents.list')).filter((a) => a.teamId === teamId);
    if (listed.length === count) return;
    if (Date.now() > deadline)
      throw new Error(`the host lists ${listed.length} agents of the team, not ${count}, after a minute`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The label a scale team gives its agent number i (0-based). */
export function scaleLabel(team: Pick<ScaleTeam, 'label'>, i: number): string {
  return `${team.label} line ${pad(i + 1)}`;
}
