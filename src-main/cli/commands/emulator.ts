// `emulator`: runs the local stand-in for the service until Ctrl-C / SIGTERM. With --json the first
// stdout line is the ready event, so scripts and tests can read the URLs, the demo key and agents.
import type { Command } from 'commander';
import { z } from 'zod';
import { defineAction, type CliContext } from '../context';
import { CliFailure } from '../errors';
import { EXIT } from '../exit-codes';
import { intString, parseFlags } from '../flags';
import { DEFAULT_API_KEY_ENV } from '../target';
import { DIALECT_NAMES, dialectListSchema } from '../../emulator/dialect';
import { untilAborted } from '../io';

const flagsSchema = z.object({
  port: intString(0, 65_535).optional(),
  host: z
    .string()
    .regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'expected a host name or IP address')
    .optional(),
  seed: z.string().min(1, 'expected a file path').optional(),
  dialect: dialectListSchema.optional(),
  json: z.boolean().optional(),
});

export function register(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('emulator')
    .description('run the local emulator of the service until Ctrl-C')
    .option('--port <n>', 'port for the service API (0 = any free port)', '0')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--seed <file>', 'JSON seed file with teams, keys and agents (default: the demo team)')
    .option(
      '--dialect <names>',
      `answer in other shapes a real service may use, comma-separated (a seed's own dialects win): ${DIALECT_NAMES.join(', ')}`,
    )
    .option('--json', 'one JSON object per line on stdout; the first is {"event":"ready",…}');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    // Loaded on demand: the other commands never pay for the emulator.
    const emu = await import('../../emulator');
    let seed;
    try {
      seed = f.seed ? await emu.loadSeedFile(f.seed) : emu.defaultSeed();
    } catch (e) {
      throw new CliFailure(e instanceof Error ? e.message : String(e), EXIT.usage, 'INVALID_SEED');
    }
    const dialect = f.dialect ?? [];
    const emulator = await emu.startEmulator({
      port: f.port ?? 0,
      host: f.host ?? '127.0.0.1',
      seed,
      clock: ctx.clock,
      dialect,
    });
    try {
      const firstTeam = seed.teams[0];
      const agents = seed.teams.flatMap((t) =>
        t.agents.map((a) => ({
          agentId: a.agentId,
          teamId: t.id,
          label: a.label ?? null,
          state: a.state ?? 'unlinked',
          phone: a.phone ?? null,
        })),
      );
      const ready = {
        event: 'ready',
        baseUrl: emulator.baseUrl,
        controlUrl: emulator.controlUrl,
        mediaOrigin: emulator.mediaOrigin,
        apiKey: firstTeam?.apiKey ?? null,
        teams: seed.teams.map((t) => ({ id: t.id, name: t.name ?? t.id, apiKey: t.apiKey })),
        agents,
        dialect,
      };
      const example = agents.find((a) => a.state === 'connected') ?? agents[0];
      out.event(
        ready,
        [
          `Emulator of the service running at ${emulator.baseUrl}`,
          `  control surface: ${emulator.controlUrl}`,
          `  media origin:    ${emulator.mediaOrigin}`,
          ...(dialect.length > 0 ? [`  dialect:         ${dialect.join(', ')}`] : []),
          ...seed.teams.map((t) => `  team ${t.id}: API key ${t.apiKey} (an emulator key, not a real one)`),
          `  agents: ${agents.map((a) => `${a.agentId} (${a.state}${a.phone ? `, +${a.phone}` : ''})`).join(', ') || 'none'}`,
          '',
          'Try:',
          firstTeam ? `  export ${DEFAULT_API_KEY_ENV}=${firstTeam.apiKey}` : `  export ${DEFAULT_API_KEY_ENV}=<key>`,
          `  channel-companion status --base-url ${emulator.baseUrl} --agent ${example?.agentId ?? '<agent>'}`,
          '',
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      await untilAborted(ctx.signal);
    } finally {
      await emulator.close();
    }
    out.event({ event: 'closed' }, 'emulator stopped');
    return EXIT.ok;
  });
}
