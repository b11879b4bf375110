// `settings`: switch groups, read receipts and delivery receipts; with no switch, shows them. These are the
// service's switches of the agent's channel (not the app's settings). With --team it is the companion's
// channel.updateSettings; given by --base-url and a key from the environment, the service directly.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ChannelSettings } from '../../app/service';
import { defineAction, type CliContext } from '../context';
import { onOff, parseFlags } from '../flags';
import { yesNo } from '../health';
import { addTargetOptions } from '../target';
import { COMPANION_DATA_DIR_HELP } from '../companion';
import { HUB_FLAG_HELP } from '../hub-client';
import { teamAgentOf, teamFlag, withCompanion } from '../companion-run';

const flagsSchema = z.looseObject({
  groups: onOff.optional(),
  readReceipts: onOff.optional(),
  deliveryReceipts: onOff.optional(),
});

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(
    program.command('settings').description('change the channel switches: groups, read receipts, delivery receipts'),
  );
  cmd
    .option('--groups <on|off>', 'receive group messages')
    .option('--read-receipts <on|off>', 'send read receipts')
    .option('--delivery-receipts <on|off>', 'send delivery receipts')
    .option('--data-dir <dir>', `with --team: the ${COMPANION_DATA_DIR_HELP}`)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const patch: Partial<ChannelSettings> = {};
    if (f.groups !== undefined) patch.groups = f.groups;
    if (f.readReceipts !== undefined) patch.readReceipts = f.readReceipts;
    if (f.deliveryReceipts !== undefined) patch.deliveryReceipts = f.deliveryReceipts;
    const team = teamFlag(opts);
    const s: ChannelSettings =
      team !== undefined
        ? await withCompanion(ctx, out, opts, async (client) => {
            const t = await teamAgentOf(client, {
              team,
              agent: typeof opts.agent === 'string' ? opts.agent : undefined,
            });
            return client.request('channel.updateSettings', { teamId: t.teamId, agentId: t.agentId, patch });
          })
        : await (async () => {
            const target = await ctx.resolveTarget(opts);
            return ctx.client(target).updateSettings(target.agentId, patch, { signal: ctx.signal });
          })();
    if (s.unconfirmed)
      out.note('the service accepted the change but did not say what the switches are now; showing what was sent');
    out.result(
      { ...s },
      `groups=${yesNo(s.groups)} read-receipts=${yesNo(s.readReceipts)} delivery-receipts=${yesNo(s.deliveryReceipts)}`,
    );
  });
}
