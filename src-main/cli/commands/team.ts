// `team add|list|edit|remove`: saved teams, asked of the companion of the data folder (teams.add, teams.list,
// teams.update, teams.remove: what Settings does; started here for the command when none runs). The API key is
// read from an environment variable (never a flag), checked against the service, and stored only in the OS
// keychain; the config file and the output carry a hint of it (the last 4 characters) at most. --json prints
// the contract's TeamDTO.
import type { Command } from 'commander';
import { z } from 'zod';
import type { AgentDTO, TeamDTO } from '../../../src-shared/contract';
import type { ContractClient } from '../../app/client';
import { addCompanionOptions, type CompanionSession } from '../companion';
import { teamNamed, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { UsageError } from '../errors';
import { baseUrlSchema } from '../../app/url';
import { agentId, envVarName, parseFlags, teamName } from '../flags';
import { checkKeyTransport, DEFAULT_API_KEY_ENV } from '../target';

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addConfigDirOption(cmd: Command): Command {
  return cmd.option(
    '--config-dir <dir>',
    'where saved teams live (default: the app config folder; env CHANNEL_COMPANION_HOME)',
  );
}

const configDir = z.string().min(1, 'expected a folder').optional();
const dataDir = z.string().min(1, 'expected a folder').optional();

const addSchema = z.object({
  label: z.string().trim().min(1, 'the label is empty').max(64, 'at most 64 characters'),
  baseUrl: baseUrlSchema,
  agent: z.array(agentId).min(1, 'give at least one --agent (the key is checked against it)'),
  apiKeyEnv: envVarName,
  configDir,
  dataDir,
  allowInsecureHttp: z.boolean().optional(),
  json: z.boolean().optional(),
});

const listSchema = z.object({ configDir, dataDir, json: z.boolean().optional() });

const editSchema = z.object({
  label: z.string().trim().min(1, 'the label is empty').max(64, 'at most 64 characters').optional(),
  baseUrl: baseUrlSchema.optional(),
  keyFromEnv: z.boolean().optional(),
  apiKeyEnv: envVarName,
  configDir,
  dataDir,
  allowInsecureHttp: z.boolean().optional(),
  json: z.boolean().optional(),
});

/** "Demo (t_…)  https://…  key …9f2c" and one line per agent (its label when it has its own). */
function teamLines(t: TeamDTO, agents: readonly AgentDTO[]): string {
  return [
    `${t.label} (${t.teamId})  ${t.baseUrl}  key ${t.keyHint}${t.allowInsecureHttp ? '  (plain http allowed)' : ''}${t.keyRejected ? '  (key rejected by the service)' : ''}`,
    ...agents.map((a) => `  - ${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''}`),
  ].join('\n');
}

/** The team's agents as the companion lists them. */
function agentsOf(client: ContractClient, t: TeamDTO): Promise<AgentDTO[]> {
  return client.request('agents.list', { teamId: t.teamId });
}

/** Where the companion keeps a team's key, as the confirmation says it. */
function keyKeeper(session: CompanionSession): string {
  return session.hub ? `kept by the hub at ${session.hub.origin}` : 'in the OS keychain';
}

export function register(program: Command, ctx: CliContext): void {
  const team = program.command('team').description('saved teams: base URL, API key (in the OS keychain) and agents');

  const add = addCompanionOptions(
    team
      .command('add')
      .description('save a team; the key (from an environment variable) is checked against the service first')
      .requiredOption('--label <label>', 'a name for the team')
      .requiredOption('--base-url <url>', 'service base URL')
      .option('--agent <id>', 'an agent of the team (repeatable; the key is checked against each)', collect)
      .option('--api-key-env <name>', 'environment variable holding the team API key', DEFAULT_API_KEY_ENV)
      .option(
        '--allow-insecure-http',
        'let the key go over plain http:// to this base URL, not this machine (anyone on the way can read it)',
      ),
  ).option('--json', 'the saved team as one JSON object (the contract’s TeamDTO)');

  defineAction(ctx, add, async (opts, out) => {
    const f = parseFlags(addSchema, { ...opts, agent: opts.agent ?? [] });
    const apiKey = ctx.io.env[f.apiKeyEnv]?.trim();
    if (!apiKey)
      throw new UsageError(
        `no API key: set the environment variable ${f.apiKeyEnv} (or name another with --api-key-env); the key is never accepted as a flag`,
      );
    checkKeyTransport(f.baseUrl, f.allowInsecureHttp);
    const { t, agents, where } = await withCompanion(ctx, out, f, async (client, session) => {
      const t = await client.request('teams.add', {
        label: f.label,
        baseUrl: f.baseUrl,
        apiKey,
        agents: f.agent.map((a) => ({ agentId: a })),
        ...(f.allowInsecureHttp === true ? { allowInsecureHttp: true } : {}),
      });
      return { t, agents: await agentsOf(client, t), where: keyKeeper(session) };
    });
    out.result({ ...t }, `saved team ${teamLines(t, agents)}\nthe API key is ${where}`);
  });

  const list = addCompanionOptions(team.command('list').description('list saved teams (key hints only)')).option(
    '--json',
    'one JSON object per team (the contract’s TeamDTO)',
  );
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(listSchema, opts);
    const teams = await withCompanion(ctx, out, f, async (client) => {
      const all = await client.request('teams.list', {});
      return Promise.all(all.map(async (t) => ({ t, agents: await agentsOf(client, t) })));
    });
    if (teams.length === 0) out.note('no saved teams; add one with `channel-companion team add`');
    for (const { t, agents } of teams) out.result({ ...t }, teamLines(t, agents));
  });

  const edit = addCompanionOptions(
    team
      .command('edit')
      .description(
        'change a saved team in place (its id, incidents and history stay); a new base URL or key is checked with its agents first',
      )
      .argument('<team>', 'team id or label')
      .option('--label <label>', 'a new name for the team')
      .option('--base-url <url>', 'a new service base URL')
      .option('--key-from-env', 'a new API key, read from the environment variable --api-key-env names (never a flag)')
      .option('--api-key-env <name>', 'environment variable holding the new API key', DEFAULT_API_KEY_ENV)
      .option(
        '--allow-insecure-http',
        'let the key go over plain http:// to this base URL, not this machine (anyone on the way can read it)',
      )
      .option(
        '--no-allow-insecure-http',
        'no longer let the key go over plain http:// to a host other than this machine',
      ),
  ).option('--json', 'the saved team as one JSON object (the contract’s TeamDTO)');
  defineAction(ctx, edit, async (opts, out, cmd) => {
    const f = parseFlags(editSchema, opts);
    const name = parseFlags(z.object({ team: teamName }), { team: cmd.args[0] }).team;
    let apiKey: string | undefined;
    if (f.keyFromEnv) {
      apiKey = ctx.io.env[f.apiKeyEnv]?.trim();
      if (!apiKey)
        throw new UsageError(
          `no API key: set the environment variable ${f.apiKeyEnv} (or name another with --api-key-env); the key is never accepted as a flag`,
        );
    }
    if (f.label === undefined && f.baseUrl === undefined && apiKey === undefined && f.allowInsecureHttp === undefined)
      throw new UsageError('nothing to change: give --label, --base-url, --key-from-env or --allow-insecure-http');
    const { t, agents, where } = await withCompanion(ctx, out, f, async (client, session) => {
      const before = await teamNamed(client, name);
      checkKeyTransport(f.baseUrl ?? before.baseUrl, f.allowInsecureHttp ?? before.allowInsecureHttp);
      const t = await client.request('teams.update', {
        teamId: before.teamId,
        ...(f.label !== undefined ? { label: f.label } : {}),
        ...(f.baseUrl !== undefined ? { baseUrl: f.baseUrl } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(f.allowInsecureHttp !== undefined ? { allowInsecureHttp: f.allowInsecureHttp } : {}),
      });
      return { t, agents: await agentsOf(client, t), where: keyKeeper(session) };
    });
    out.result(
      { ...t },
      `saved team ${teamLines(t, agents)}${apiKey !== undefined ? `\nthe new API key is ${where}` : ''}`,
    );
  });

  const remove = addCompanionOptions(
    team
      .command('remove')
      .description('remove a saved team and its keychain entries')
      .argument('<team>', 'team id or label'),
  ).option('--json', 'the result as one JSON object');
  defineAction(ctx, remove, async (opts, out, cmd) => {
    const f = parseFlags(listSchema, opts);
    const name = parseFlags(z.object({ team: teamName }), { team: cmd.args[0] }).team;
    const t = await withCompanion(ctx, out, f, async (client) => {
      const t = await teamNamed(client, name);
      await client.request('teams.remove', { teamId: t.teamId });
      return t;
    });
    out.result({ removed: t.teamId, label: t.label }, `removed team ${t.label} (${t.teamId}) and its keychain entries`);
  });
}
