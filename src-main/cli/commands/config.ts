// `config reset`: sets aside a config file that cannot be loaded (renamed to
// config.json.corrupt-<time>, kept), so the next start begins with an empty config. A config that
// loads is never moved: the command refuses and changes nothing.
import type { Command } from 'commander';
import { z } from 'zod';
import { TeamStore } from '../../app/teams';
import { teamsOf, withTeams } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure } from '../errors';
import { EXIT } from '../exit-codes';
import { parseFlags } from '../flags';
import { addConfigDirOption } from './team';

const resetSchema = z.object({
  configDir: z.string().min(1, 'expected a folder').optional(),
  json: z.boolean().optional(),
});

export function register(program: Command, ctx: CliContext): void {
  const config = program.command('config').description('the config file shared by the app and the CLI');

  const reset = addConfigDirOption(
    config
      .command('reset')
      .description(
        'set an unreadable config file aside (kept as config.json.corrupt-<time>) so the next start begins afresh',
      ),
  ).option('--json', 'the result as one JSON object');
  defineAction(ctx, reset, async (opts, out) => {
    const f = parseFlags(resetSchema, opts);
    const dir = teamsOf(ctx).configDir(f.configDir);
    const r = await withTeams(() => TeamStore.moveAsideIfUnreadable(dir, ctx.clock));
    switch (r.outcome) {
      case 'readable':
        throw new CliFailure(
          `the config file ${r.configFile} reads fine, so it was left as it is: config reset only sets aside a config that cannot be read (to drop a team, use \`channel-companion team remove\`)`,
          EXIT.usage,
          'CONFIG_READABLE',
        );
      case 'missing':
        out.result(
          { outcome: 'missing', configFile: r.configFile },
          `there is no config file at ${r.configFile}: nothing to reset`,
        );
        return;
      case 'moved':
        out.result(
          { outcome: 'moved', configFile: r.configFile, movedTo: r.movedTo },
          [
            `the unreadable config file is set aside, kept as ${r.movedTo}`,
            'the next start begins with an empty config: no teams, default settings',
            'the API keys stay in the OS keychain, but the new config does not point to them: add the teams again with `channel-companion team add` (the key from CHANNEL_API_KEY once more) or in the app',
          ].join('\n'),
        );
        return;
    }
  });
}
