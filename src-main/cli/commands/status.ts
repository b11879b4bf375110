// `status`: the agent's session status — its health word (the monitor's) plus the fields the service reported.
import type { Command } from 'commander';
import { defineAction, type CliContext } from '../context';
import { healthOfStatus } from '../../core/monitor/health';
import { yesNo } from '../health';
import { addTargetOptions } from '../target';

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(program.command('status').description("show the agent's channel session status"));
  cmd.option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const target = await ctx.resolveTarget(opts);
    const status = await ctx.client(target).getSession(target.agentId, { signal: ctx.signal });
    const health = healthOfStatus(status);
    out.result({ agentId: target.agentId, health, ...status }, () =>
      [
        `${target.agentId}: ${health}${status.phone ? ` (+${status.phone})` : ''}`,
        `  state=${status.state} connected=${yesNo(status.connected)} linked=${yesNo(status.linked)} needsScan=${yesNo(status.needsScan)}` +
          `${status.live !== undefined ? ` live=${yesNo(status.live)}` : ''} qr=${status.qr ? 'offered' : 'none'}`,
        ...(status.needsScan ? ['  a QR scan is needed: run `channel-companion pair`'] : []),
      ].join('\n'),
    );
  });
}
