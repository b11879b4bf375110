// `agent add|list|remove`: the agents of a saved team, asked of the companion of the data folder (agents.add,
// agents.list, agents.remove: what Settings does; started here for the command when none runs). Adding checks
// the agent against the service with the team's key (from the keychain). --json prints the contract's
// AgentDTO (with its health as the monitor last saw it).
import type { Command } from 'commander';
import { z } from 'zod';
import type { AgentDTO, TeamDTO } from '../../../src-shared/contract';
import { addCompanionOptions } from '../companion';
import { teamNamed, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { agentId, parseFlags, teamName } from '../flags';

const folder = z.string().min(1, 'expected a folder').optional();

const addSchema = z.object({
  team: teamName,
  agent: agentId,
  label: z.string().trim().min(1, 'the label is empty').max(64, 'at most 64 characters').optional(),
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
const listSchema = z.object({
  team: teamName.optional(),
  configDir: folder,
  dataDir: folder,
  json: z.boolean().optional(),
});

/** "Demo/a1 (Support bot)". */
function agentLine(t: Pick<TeamDTO, 'label'>, a: Pick<AgentDTO, 'agentId' | 'label'>): string {
  return `${t.label}/${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''}`;
}

export function register(program: Command, ctx: CliContext): void {
  const agent = program.command('agent').description('the agents of a saved team');

  const add = addCompanionOptions(
    agent
      .command('add')
      .description("add an agent to a saved team (checked against the service with the team's key)")
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id (from the dashboard)')
      .option('--label <label>', 'a name for the agent'),
  ).option('--json', 'the added agent as one JSON object (the contract’s AgentDTO)');
  defineAction(ctx, add, async (opts, out) => {
    const f = parseFlags(addSchema, opts);
    const { team, a } = await withCompanion(ctx, out, f, async (client) => {
      const team = await teamNamed(client, f.team);
      const a = await client.request('agents.add', {
        teamId: team.teamId,
        agentId: f.agent,
        ...(f.label !== undefined ? { label: f.label } : {}),
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
