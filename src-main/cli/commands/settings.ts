// `settings`: switch groups, read receipts and delivery receipts; with no switch, shows them.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ChannelSettings } from '../../core/api/types';
import { defineAction, type CliContext } from '../context';
import { onOff, parseFlags } from '../flags';
import { yesNo } from '../health';
import { addTargetOptions } from '../target';

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
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const patch: Partial<ChannelSettings> = {};
    if (f.groups !== undefined) patch.groups = f.groups;
    if (f.readReceipts !== undefined) patch.readReceipts = f.readReceipts;
    if (f.deliveryReceipts !== undefined) patch.deliveryReceipts = f.deliveryReceipts;
    const s = await ctx.client(target).updateSettings(target.agentId, patch, { signal: ctx.signal });
    if (s.unconfirmed)
      out.note('the service accepted the change but did not say what the switches are now; showing what was sent');
    out.result(
      { ...s },
      `groups=${yesNo(s.groups)} read-receipts=${yesNo(s.readReceipts)} delivery-receipts=${yesNo(s.deliveryReceipts)}`,
    );
  });
}
