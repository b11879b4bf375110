// `media`: downloads an inbound message's photo or file. The key goes only to the service's origin
// (the client follows the redirect without it). Progress on stderr.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { defineAction, type CliContext } from '../context';
import { parseFlags } from '../flags';
import { addTargetOptions } from '../target';

const flagsSchema = z.looseObject({
  messageId: z.string().regex(/^[^\s/?#]{1,256}$/, 'expected a message id'),
  out: z.string().min(1).optional(),
});

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(program.command('media').description("download an inbound message's photo or file"));
  cmd
    .requiredOption('--message-id <id>', 'id of the inbound message (message.id of the event)')
    .option('--out <path>', 'file to write, or a folder to name it in (default: the current folder)')
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const dest = resolve(ctx.io.cwd, f.out ?? '.');
    const tty = ctx.io.stderrIsTTY && !out.json;
    let lastAt = 0;
    let lastLine = '';
    const r = await ctx.client(target).downloadMedia(target.agentId, f.messageId, dest, {
      signal: ctx.signal,
      onProgress: (received, total) => {
        const now = ctx.clock.now();
        const done = total !== null && received >= total;
        if (!done && now - lastAt < 200) return;
        lastAt = now;
        if (out.json) {
          ctx.io.stderr.write(`${JSON.stringify({ progress: { received, total } })}\n`);
          return;
        }
        const line = `downloading ${size(received)}${total !== null ? ` / ${size(total)} (${Math.floor((received / Math.max(total, 1)) * 100)}%)` : ''}`;
        if (line === lastLine) return;
        lastLine = line;
        ctx.io.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
      },
    });
    if (tty && lastLine) ctx.io.stderr.write('\n');
    out.result({ ...r }, `saved ${r.path} (${r.bytes} bytes${r.contentType ? `, ${r.contentType}` : ''})`);
  });
}
