// `status`: the agent's session status — its health (the monitor's, in the screens' words) plus the fields the service reported.
// With --team it is the companion's pairing.session (the session as the screens read it); given by --base-url and
// a key from the environment, the service is asked directly.
import type { Command } from 'commander';
import type { Health, SessionDTO } from '../../../src-shared/contract';
import { HEALTH_SHORT } from '../../../src-shared/words';
import { defineAction, type CliContext } from '../context';
import { healthOfStatus } from '../../app/health';
import { COMPANION_DATA_DIR_HELP } from '../companion';
import { HUB_FLAG_HELP } from '../hub-client';
import { teamAgentOf, teamFlag, withCompanion } from '../companion-run';
import { yesNo } from '../health';
import { addTargetOptions } from '../target';

type Session = Pick<SessionDTO, 'connected' | 'linked' | 'state' | 'needsScan' | 'phone' | 'qr' | 'live'>;

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(program.command('status').description("show the agent's channel session status"));
  cmd
    .option('--data-dir <dir>', `with --team: the ${COMPANION_DATA_DIR_HELP}`)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout (with --team: the contract’s SessionDTO and the health)');

  defineAction(ctx, cmd, async (opts, out) => {
    const team = teamFlag(opts);
    let agentId: string;
    let data: Record<string, unknown>;
    let status: Session;
    if (team !== undefined) {
      const session = await withCompanion(ctx, out, opts, async (client) => {
        const t = await teamAgentOf(client, { team, agent: typeof opts.agent === 'string' ? opts.agent : undefined });
        return client.request('pairing.session', { teamId: t.teamId, agentId: t.agentId });
      });
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
