// `agent add|list|remove`: the agents of a saved team. Adding checks the agent against the service
// with the team's key (from the keychain).
import type { Command } from 'commander';
import { z } from 'zod';
import { teamsOf, withTeams } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { agentId, parseFlags, teamName } from '../flags';
import { addConfigDirOption } from './team';

const configDir = z.string().min(1, 'expected a folder').optional();

const addSchema = z.object({
  team: teamName,
  agent: agentId,
  label: z.string().trim().min(1, 'the label is empty').max(64, 'at most 64 characters').optional(),
  configDir,
  json: z.boolean().optional(),
});
const removeSchema = z.object({ team: teamName, agent: agentId, configDir, json: z.boolean().optional() });
const listSchema = z.object({ team: teamName.optional(), configDir, json: z.boolean().optional() });

export function register(program: Command, ctx: CliContext): void {
  const agent = program.command('agent').description('the agents of a saved team');

  const add = addConfigDirOption(
    agent
      .command('add')
      .description("add an agent to a saved team (checked against the service with the team's key)")
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id (from the dashboard)')
      .option('--label <label>', 'a name for the agent'),
  ).option('--json', 'the added agent as one JSON object');
  defineAction(ctx, add, async (opts, out) => {
    const f = parseFlags(addSchema, opts);
    const { teamStore, team } = await teamsOf(ctx).team(f.team, f.configDir);
    const a = await withTeams(() =>
      teamStore.addAgent(team.id, f.label !== undefined ? { agentId: f.agent, label: f.label } : { agentId: f.agent }),
    );
    out.result(
      { teamId: team.id, team: team.label, ...a },
      `added agent ${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''} to team ${team.label}`,
    );
  });

  const list = addConfigDirOption(
    agent
      .command('list')
      .description('list the agents of saved teams')
      .option('--team <team>', 'only this team (id or label)'),
  ).option('--json', 'one JSON object per agent');
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(listSchema, opts);
    const teamStore = teamsOf(ctx);
    const teams =
      f.team !== undefined
        ? [(await teamStore.team(f.team, f.configDir)).team]
        : (await teamStore.open(f.configDir)).listTeams();
    let n = 0;
    for (const t of teams) {
      for (const a of t.agents) {
        n++;
        out.result(
          { teamId: t.id, team: t.label, agentId: a.agentId, label: a.label },
          `${t.label}/${a.agentId}${a.label !== a.agentId ? ` (${a.label})` : ''}`,
        );
      }
    }
    if (n === 0)
      out.note(teams.length === 0 ? 'no saved teams; add one with `channel-companion team add`' : 'no agents');
  });

  const remove = addConfigDirOption(
    agent
      .command('remove')
      .description('remove an agent from a saved team (and its signing secrets from the keychain)')
      .requiredOption('--team <team>', 'team id or label')
      .requiredOption('--agent <id>', 'agent id'),
  ).option('--json', 'the result as one JSON object');
  defineAction(ctx, remove, async (opts, out) => {
    const f = parseFlags(removeSchema, opts);
    const { teamStore, team } = await teamsOf(ctx).team(f.team, f.configDir);
    await withTeams(() => teamStore.removeAgent(team.id, f.agent));
    out.result(
      { teamId: team.id, team: team.label, removed: f.agent },
      `removed agent ${f.agent} from team ${team.label}`,
    );
  });
}
