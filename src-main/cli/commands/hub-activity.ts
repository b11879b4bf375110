// `hub activity`: what the team's members did on the hub, newest first — who sent, registered, deleted,
// acknowledged (the hub's hub.activity). A client command: it asks the hub at CHANNEL_HUB_URL (or --hub) with
// CHANNEL_HUB_TOKEN, as any member may (viewer and up).
import type { Command } from 'commander';
import { z } from 'zod';
import { hubActivityLine } from '../../../src-shared/words';
import { when } from '../../app/usecases/registration-status';
import { defineAction, type CliContext } from '../context';
import { UsageError } from '../errors';
import { intString, parseFlags } from '../flags';
import { connectHub, HUB_FLAG_HELP, hubUrlOf } from '../hub-client';
import { terminalSafe } from '../../../src-shared/terminal-text';

const activitySchema = z.object({
  limit: intString(1, 500).optional(),
  before: intString(1, Number.MAX_SAFE_INTEGER).optional(),
  hub: z.string().optional(),
  json: z.boolean().optional(),
});

export function registerHubActivity(hubCmd: Command, ctx: CliContext): void {
  const activity = hubCmd
    .command('activity')
    .description("the team's activity on the hub, newest first: who sent, registered or deleted what")
    .option('--limit <n>', 'at most this many entries (1–500, default 50)')
    .option('--before <id>', "entries older than this one (a page's `next`)")
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object: {"entries":[{"id","at","member","action","subject"}],"next"}');
  defineAction(ctx, activity, async (opts, out) => {
    const f = parseFlags(activitySchema, opts);
    const given = hubUrlOf(ctx);
    if (given === undefined)
      throw new UsageError(
        "hub activity asks a team's hub: set CHANNEL_HUB_URL (or --hub URL) and CHANNEL_HUB_TOKEN to your member token",
      );
    const { client, hub } = await connectHub(ctx, given);
    try {
      const page = await client.request('hub.activity', {
        ...(f.limit !== undefined ? { limit: f.limit } : {}),
        ...(f.before !== undefined ? { before: f.before } : {}),
      });
      const now = ctx.clock.now();
      out.result({ ...page }, () =>
        page.entries.length === 0
          ? `no activity on the hub at ${hub.origin} yet`
          : [
              `activity on the hub at ${hub.origin}, newest first:`,
              ...page.entries.map((e) => `  ${when(e.at, now)}  ${terminalSafe(hubActivityLine(e))}`),
              ...(page.next !== null ? [`older: channel-companion hub activity --before ${page.next}`] : []),
            ].join('\n'),
      );
    } finally {
      await client.close();
    }
  });
}
