// A command's run as a client of the companion of its data folder: attach (or start one in this process), ask
// it, close. Saved teams and their agents are named as the screens name them (a team by id or name, an agent
// by id or label), and looked up in what the companion answers, never in the config file.
import type { AgentDTO, TeamDTO } from '../../src-shared/contract';
import type { ContractClient } from '../app/client';
import { findAgent } from '../app/teams';
import { connectCompanion, type CompanionFlags, type CompanionSession } from './companion';
import type { CliContext } from './context';
import { UsageError } from './errors';
import type { Output } from './output';

/** Runs fn with a client of the folder's companion (attached, or started here for the command) and closes it. */
export async function withCompanion<T>(
  ctx: CliContext,
  out: Output,
  f: CompanionFlags,
  fn: (client: ContractClient, session: CompanionSession) => Promise<T>,
): Promise<T> {
  const session = await connectCompanion(ctx, out, f, { none: 'start' });
  try {
    return await fn(session.client, session);
  } finally {
    await session.close();
  }
}

/** A team of the list by id, else by name (any case); a UsageError naming --team when there is none. */
export function teamIn(teams: readonly TeamDTO[], name: string): TeamDTO {
  const wanted = name.trim();
  const team =
    teams.find((t) => t.teamId === wanted) ?? teams.find((t) => t.label.toLowerCase() === wanted.toLowerCase());
  if (!team) throw new UsageError(`--team: no saved team "${name}" (see \`channel-companion team list\`)`);
  return team;
}

/** A saved team by id, else by name (any case); a UsageError naming --team when there is none. */
export async function teamNamed(client: ContractClient, name: string): Promise<TeamDTO> {
  return teamIn(await client.request('teams.list', {}), name);
}

/** An agent of the team by id or label, or the team's only agent when none is named. */
export async function agentOfTeam(
  client: ContractClient,
  team: TeamDTO,
  wanted: string | undefined,
): Promise<AgentDTO> {
  const agents = await client.request('agents.list', { teamId: team.teamId });
  if (wanted !== undefined) {
    const a = findAgent(agents, wanted);
    if (!a)
      throw new UsageError(
        `--agent: team "${team.label}" has no agent "${wanted}" (add it with \`channel-companion agent add\`)`,
      );
    return a;
  }
  if (agents.length === 1) return agents[0]!;
  throw new UsageError(
    `--agent is required: team "${team.label}" has ${agents.length} agents (${agents.map((a) => a.agentId).join(', ') || 'none'})`,
  );
}

/** A --team command's saved team and agent (--agent by id or label, or the team's only agent). */
export async function teamAgentOf(
  client: ContractClient,
  f: { team: string; agent?: string | undefined },
): Promise<{ teamId: string; label: string; agentId: string }> {
  const team = await teamNamed(client, f.team);
  return { teamId: team.teamId, label: team.label, agentId: (await agentOfTeam(client, team, f.agent)).agentId };
}

/** The --team flag when one is given (a command then asks the companion), else undefined (--base-url and a key). */
export function teamFlag(opts: Record<string, unknown>): string | undefined {
  return typeof opts.team === 'string' && opts.team.trim() !== '' ? opts.team : undefined;
}

/** ms epoch → ISO time, as the command line prints times. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
