// `check`: is a phone number on WhatsApp?
import type { Command } from 'commander';
import { z } from 'zod';
import { defineAction, type CliContext } from '../context';
import { parseFlags, phone } from '../flags';
import { addTargetOptions } from '../target';

const flagsSchema = z.looseObject({ phone });

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(program.command('check').description('check whether a phone number is on WhatsApp'));
  cmd
    .requiredOption('--phone <number>', 'E.164 number, e.g. +15550102000')
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const r = await ctx.client(target).checkContact(target.agentId, f.phone, { signal: ctx.signal });
    out.result({ ...r }, r.exists ? `+${r.phone}: on WhatsApp (${r.jid})` : `+${r.phone}: not on WhatsApp`);
  });
}
