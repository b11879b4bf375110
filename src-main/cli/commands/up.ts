// `up`: the companion, headless, until Ctrl-C / SIGTERM. It owns the data folder (its teams' monitor, the
// webhook receiver, the message store, the alerts) and serves the contract on the folder's local endpoint:
// every other command (and `serve`'s or the desktop app's screens, when they start later… they attach to it
// instead of starting another) is its client. A second `up` on the same folder says who owns it.
import type { Command } from 'commander';
import { z } from 'zod';
import { defineAction, type CliContext } from '../context';
import { refuseHub } from '../hub-client';
import { EXIT } from '../exit-codes';
import { parseFlags, secondsString } from '../flags';
import { cliLogger } from '../output';
import { addCompanionOptions, companionFolders } from '../companion';
import { teamsOf } from '../teams-context';
import { untilAborted } from '../io';

const flagsSchema = z.object({
  configDir: z.string().min(1, 'expected a folder').optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  pollSec: secondsString.optional(),
  tunnelPort: z
    .string()
    .regex(/^\d{1,5}$/, 'expected a port number')
    .transform(Number)
    .refine((n) => n <= 65_535, 'at most 65535')
    .optional(),
  json: z.boolean().optional(),
});

export function register(program: Command, ctx: CliContext): void {
  const cmd = addCompanionOptions(
    program
      .command('up')
      .description(
        'run the companion headless until Ctrl-C: it owns the data folder and every other command attaches to it',
      ),
  )
    .option('--poll-sec <s>', 'poll interval for this run, not saved (seconds)')
    .option('--tunnel-port <n>', "the receiver's port for this run, not saved (0 = any free port)")
    .option('--json', 'one JSON object per line on stdout; the first is {"event":"ready",…}');

  defineAction(ctx, cmd, async (opts, out) => {
    refuseHub(ctx, 'up');
    const f = parseFlags(flagsSchema, opts);
    const { configDir, dataDir } = companionFolders(ctx, f);
    const { hostCompanion } = await import('../../app/companion/hosted');
    const hosted = await hostCompanion({
      shell: 'up',
      command: 'channel-companion up',
      configDir,
      dataDir,
      secrets: teamsOf(ctx).secrets(),
      clock: ctx.clock,
      logger: cliLogger(out),
      ...(f.pollSec !== undefined ? { poll: { intervalMs: Math.round(f.pollSec * 1000) } } : {}),
      ...(f.tunnelPort !== undefined ? { tunnelPort: f.tunnelPort } : {}),
    });
    try {
      const teams = hosted.companion.listTeams();
      out.event(
        {
          event: 'ready',
          pid: process.pid,
          configDir,
          dataDir,
          socket: hosted.socket,
          teams: teams.map((t) => ({ teamId: t.id, label: t.label, agents: t.agents.length })),
          receiverUrl: hosted.companion.tunnelUrl(),
        },
        [
          `The companion is running for ${dataDir} (process ${process.pid}).`,
          `  ${teams.length} team${teams.length === 1 ? '' : 's'}; commands on this data folder attach to it.`,
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      await untilAborted(ctx.signal);
    } finally {
      await hosted.close();
    }
    out.event({ event: 'closed' }, 'stopped');
    return EXIT.ok;
  });
}
