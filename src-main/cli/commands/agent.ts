// `agent add|list|remove|label`: the agents of a saved team, asked of the companion of the data folder (agents.add,
// agents.list, agents.remove, agents.setLabels: what Settings does; started here for the command when none runs).
// Adding checks the agent against the service with the team's key (from the keychain). --json prints the
// contract's AgentDTO (with its health as the monitor last saw it, and its labels).
import type { Command } from 'commander';
import { z } from 'zod';
import type { AgentDTO, TeamDTO } from '../../../src-shared/contract';
import { addCompanionOptions } from '../companion';
import { teamNamed, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { agentId, parseFlags, teamName } from '../flags';
import { splitAgentLabels } from '../../../src-shared/agent-labels';

const folder = z.string().min(1, 'expected a folder').optional();

/** A repeatable flag's values, in order (each may be a comma list: splitAgentLabels). */
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const labelList = z.array(z.string()).transform(splitAgentLabels);

const addSchema = z.object({
  team: teamName,
  agent: agentId,
  label: z.string().trim().min(1, 'the label is empty').max(64, 'at most 64 characters').optional(),
  labels: labelList.optional(),
  configDir: folder,
  dataDir: folder,
  json: z.boolean().optional(),
});
const removeSchema = z.object({
  team: teamName,
  agent: agentId,
  configDir: folder,
  dataDir: folder,
  json: z.boolean().optional(),
});
const labelSchema = z
  .object({
    team: teamName,
    agent: agentId,
    set: z
      .string()
      .transform((s) => splitAgentLabels([s]))
      .optional(),
    add: labelList.optional(),
    remove: labelList.optional(),
    configDir: folder,
    dataDir: folder,
    json: z.boolean().optional(),
  })
  .refine((f) => f.set !== undefined || f.add !== undefined || f.remove !== undefined, {
    message: 'give --add, --remove or --set (--set "" takes every label away)',
  });
const listSchema = z.object({
  team: teamName.optional(),
  configDir: folder,
  dataDir: folder,
  json: z.boolean().optional(),
});

/** "Demo/a1 (Support bot)". */
function agentLine(t: Pick<TeamDTO, 'label'>, a: Pick<AgentDTO, 'agentId' | 'label' | 'labels'>): string {
  const labels = a.labels.length > 0 ? ` [${a.labels.join(', ')}]` : '';
  return `${t.label}/${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''}${labels}`;
}

export function register(program: Command, ctx: CliContext): void {
  const agent = program.command('agent').description('the agents of a saved team');

  const add = addCompanionOptions(
    agent
      .command('add')
      .description("add an agent to a saved team (checked against the service with the team's key)")
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id (from the dashboard)')
      .option('--label <label>', 'a name for the agent')
      .option('--labels <labels>', 'labels to find the agent by (a comma list; repeatable)', collect),
  ).option('--json', 'the added agent as one JSON object (the contract’s AgentDTO)');
  defineAction(ctx, add, async (opts, out) => {
    const f = parseFlags(addSchema, opts);
    const { team, a } = await withCompanion(ctx, out, f, async (client) => {
      const team = await teamNamed(client, f.team);
      const a = await client.request('agents.add', {
        teamId: team.teamId,
        agentId: f.agent,
        ...(f.label !== undefined ? { label: f.label } : {}),
        ...(f.labels !== undefined ? { labels: f.labels } : {}),
      });
      return { team, a };
    });
    out.result(
      { ...a },
      `added agent ${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''} to team ${team.label}`,
    );
  });

  const list = addCompanionOptions(
    agent
      .command('list')
      .description('list the agents of saved teams')
      .option('--team <team>', 'only this team (id or label)'),
  ).option('--json', 'one JSON object per agent (the contract’s AgentDTO)');
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(listSchema, opts);
    const { teams, agents } = await withCompanion(ctx, out, f, async (client) => {
      const teams = f.team !== undefined ? [await teamNamed(client, f.team)] : await client.request('teams.list', {});
      const agents =
        f.team !== undefined
          ? await client.request('agents.list', { teamId: teams[0]!.teamId })
          : await client.request('agents.list', {});
      return { teams, agents };
    });
    for (const t of teams)
      for (const a of agents.filter((x) => x.teamId === t.teamId)) out.result({ ...a }, agentLine(t, a));
    if (agents.length === 0)
      out.note(teams.length === 0 ? 'no saved teams; add one with `channel-companion team add`' : 'no agents');
  });

  const label = addCompanionOptions(
    agent
      .command('label')
      .description("change an agent's labels (kept in the team's config; a hub's admin role)")
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id')
      .option('--add <labels>', 'labels to add (a comma list; repeatable)', collect)
      .option('--remove <labels>', 'labels to take away (a comma list; repeatable)', collect)
      .option('--set <labels>', 'the agent\'s labels from now on, replacing them (a comma list; "" for none)'),
  ).option('--json', 'the agent as one JSON object (the contract’s AgentDTO)');
  defineAction(ctx, label, async (opts, out) => {
    const f = parseFlags(labelSchema, opts);
    const { team, a } = await withCompanion(ctx, out, f, async (client) => {
      const team = await teamNamed(client, f.team);
      const a = await client.request('agents.setLabels', {
        teamId: team.teamId,
        agentId: f.agent,
        ...(f.set !== undefined ? { labels: f.set } : {}),
        ...(f.add !== undefined ? { add: f.add } : {}),
        ...(f.remove !== undefined ? { remove: f.remove } : {}),
      });
      return { team, a };
    });
    out.result({ ...a }, `${team.label}/${a.agentId}: ${a.labels.length > 0 ? a.labels.join(', ') : 'no labels'}`);
  });

  const remove = addCompanionOptions(
    agent
      .command('remove')
      .description('remove an agent from a saved team (and its signing secrets from the keychain)')
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id'),
  ).option('--json', 'the result as one JSON object');
  defineAction(ctx, remove, async (opts, out) => {
    const f = parseFlags(removeSchema, opts);
    const team = await withCompanion(ctx, out, f, async (client) => {
      const team = await teamNamed(client, f.team);
      await client.request('agents.remove', { teamId: team.teamId, agentId: f.agent });
      return team;
    });
    out.result(
      { teamId: team.teamId, team: team.label, removed: f.agent },
      `removed agent ${f.agent} from team ${team.label}`,
    );
  });
}
