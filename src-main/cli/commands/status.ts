// `status`: the agent's session status — its health (the monitor's, in the screens' words) plus the fields the service reported.
// With --team it is the companion's pairing.session (the session as the screens read it); given by --base-url and
// a key from the environment, the service is asked directly. --team without --agent, for a team of several agents,
// is the team's status: every agent's health as the companion's monitor last saw it (no call to the service per agent).
// --with-label keeps the agents that have the label (every one given), of the team or, without --team, of every team.
import type { Command } from 'commander';
import type { AgentDTO, Health, SessionDTO } from '../../../src-shared/contract';
import { HEALTH_SHORT } from '../../../src-shared/words';
import { defineAction, type CliContext } from '../context';
import { healthOfStatus, worstHealth } from '../../app/health';
import { COMPANION_DATA_DIR_HELP } from '../companion';
import { HUB_FLAG_HELP } from '../hub-client';
import { agentOfTeam, teamFlag, teamNamed, withCompanion } from '../companion-run';
import { yesNo } from '../health';
import { addTargetOptions } from '../target';
import { UsageError } from '../errors';
import { normaliseAgentLabels, splitAgentLabels } from '../../../src-shared/agent-labels';

type Session = Pick<SessionDTO, 'connected' | 'linked' | 'state' | 'needsScan' | 'phone' | 'qr' | 'live'>;

/** One agent of a team's status, as the monitor last saw it. */
function agentLine(a: AgentDTO): Record<string, unknown> {
  const h = a.health;
  return {
    agentId: a.agentId,
    label: a.label,
    labels: a.labels,
    health: h.health,
    state: h.state,
    phone: h.phone,
    needsScan: h.needsScan,
    since: h.since,
    checkedAt: h.checkedAt,
  };
}

/** The labels of --with-label, normalised (null: none given); a label that breaks the rule is a usage error. */
function withLabels(opts: Record<string, unknown>): string[] | null {
  const given = opts.withLabel;
  if (!Array.isArray(given)) return null;
  const r = normaliseAgentLabels(splitAgentLabels(given as string[]));
  if (!r.ok) throw new UsageError(`--with-label: ${r.problem}`);
  if (r.labels.length === 0) throw new UsageError('--with-label: give a label');
  return r.labels;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(
    program
      .command('status')
      .description(
        "show the agent's channel session status (--team without --agent: every agent of the team; nothing named: every agent of every saved team)",
      ),
  );
  cmd
    .option('--data-dir <dir>', `with --team: the ${COMPANION_DATA_DIR_HELP}`)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option(
      '--with-label <label>',
      'only the agents with this label (repeatable: every one; without --team: of every team)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--json', 'one JSON object on stdout (with --team: the contract’s SessionDTO and the health)');

  defineAction(ctx, cmd, async (opts, out) => {
    const team = teamFlag(opts);
    const labelled = withLabels(opts);
    // Nothing named (no team, no service, no agent): every agent of every saved team.
    const everyTeam = team === undefined && opts.baseUrl === undefined && opts.agent === undefined;
    if (labelled !== null || everyTeam) {
      if (typeof opts.agent === 'string')
        throw new UsageError('--with-label lists agents: give --team or nothing, not --agent');
      const { teams, agents } = await withCompanion(ctx, out, opts, async (client) => {
        const teams = team !== undefined ? [await teamNamed(client, team)] : await client.request('teams.list', {});
        const agents = await client.request('agents.list', team !== undefined ? { teamId: teams[0]!.teamId } : {});
        return { teams, agents: agents.filter((a) => (labelled ?? []).every((l) => a.labels.includes(l))) };
      });
      if (teams.length === 0)
        throw new UsageError(
          'no saved team: add one with `channel-companion team add`, or name the service with --base-url URL and --agent ID (the key in the environment)',
        );
      const teamLabel = new Map(teams.map((t) => [t.teamId, t.label]));
      const worst = worstHealth(agents.map((a) => a.health.health));
      const one = team !== undefined ? teams[0] : undefined;
      out.result(
        {
          ...(one ? { teamId: one.teamId, label: one.label } : {}),
          ...(labelled ? { withLabels: labelled } : {}),
          worst,
          agents: agents.map((a) => ({ teamId: a.teamId, ...agentLine(a) })),
        },
        () =>
          [
            `${one ? `${one.label}, ` : ''}${labelled ? `labelled ${labelled.join(' + ')}` : `${teams.length} team${teams.length === 1 ? '' : 's'}`}: ${agents.length} agent${agents.length === 1 ? '' : 's'}${agents.length ? `, the worst ${HEALTH_SHORT[worst]}` : ''}`,
            ...agents.map(
              (a) =>
                `  ${one ? '' : `${teamLabel.get(a.teamId) ?? a.teamId}/`}${a.agentId}: ${HEALTH_SHORT[a.health.health]}${a.health.phone ? ` (+${a.health.phone})` : ''}`,
            ),
          ].join('\n'),
      );
      return;
    }
    let agentId: string;
    let data: Record<string, unknown>;
    let status: Session;
    if (team !== undefined) {
      const wanted = typeof opts.agent === 'string' ? opts.agent : undefined;
      const asked = await withCompanion(ctx, out, opts, async (client) => {
        const t = await teamNamed(client, team);
        const agents = await client.request('agents.list', { teamId: t.teamId });
        if (wanted === undefined && agents.length !== 1) return { kind: 'team' as const, team: t, agents };
        const a = await agentOfTeam(client, t, wanted);
        return {
          kind: 'agent' as const,
          session: await client.request('pairing.session', { teamId: t.teamId, agentId: a.agentId }),
        };
      });
      if (asked.kind === 'team') {
        const { team: t, agents } = asked;
        const worst = worstHealth(agents.map((a) => a.health.health));
        out.result({ teamId: t.teamId, label: t.label, worst, agents: agents.map(agentLine) }, () =>
          [
            `${t.label}: ${agents.length} agent${agents.length === 1 ? '' : 's'}${agents.length ? `, the worst ${HEALTH_SHORT[worst]}` : ''}`,
            ...agents.map(
              (a) => `  ${a.agentId}: ${HEALTH_SHORT[a.health.health]}${a.health.phone ? ` (+${a.health.phone})` : ''}`,
            ),
          ].join('\n'),
        );
        return;
      }
      const { session } = asked;
      ({ agentId } = session);
      status = session;
      data = { ...session, health: healthOfStatus(session) };
    } else {
      const target = await ctx.resolveTarget(opts);
      agentId = target.agentId;
      const s = await ctx.client(target).getSession(target.agentId, { signal: ctx.signal });
      status = s;
      data = { agentId, health: healthOfStatus(s), ...s };
    }
    const health = data.health as Health;
    out.result(data, () =>
      [
        `${agentId}: ${HEALTH_SHORT[health]}${status.phone ? ` (+${status.phone})` : ''}`,
        `  state=${status.state} connected=${yesNo(status.connected)} linked=${yesNo(status.linked)} needsScan=${yesNo(status.needsScan)}` +
          `${status.live !== undefined ? ` live=${yesNo(status.live)}` : ''} qr=${status.qr ? 'offered' : 'none'}`,
        ...(status.needsScan ? ['  a QR scan is needed: run `channel-companion pair`'] : []),
      ].join('\n'),
    );
  });
}
