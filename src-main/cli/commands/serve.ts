// `serve`: the whole app in a browser. Builds the companion (team store + keychain, monitor, tunnel,
// chat), the contract handlers over it and the browser host serving the built renderer, prints the
// URL to open ONCE (with --json: a first line {"event":"ready",…}), and runs until Ctrl-C / SIGTERM.
// --emulator also starts the local emulator and (unless --no-demo-team) adds its demo team.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { z } from 'zod';
import { isLoopbackHost } from '../../core/url';
import { DIALECT_NAMES, dialectListSchema } from '../../emulator/dialect';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { envVarName, hostName, intString, parseFlags, secondsString } from '../flags';
import { addMetricsOptions, metricsFlagsSchema, metricsListen } from '../metrics-flags';
import { cliLogger } from '../output';

const flagsSchema = z.object({
  port: intString(0, 65_535).optional(),
  host: hostName.optional(),
  emulator: z.boolean().optional(),
  demoTeam: z.boolean().optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  rendererDir: z.string().min(1, 'expected a folder').optional(),
  pollSec: secondsString.optional(),
  fastPollSec: secondsString.optional(),
  tokenEnv: envVarName.optional(),
  dialect: dialectListSchema.optional(),
  ...metricsFlagsSchema,
  json: z.boolean().optional(),
}).refine((f) => f.dialect === undefined || f.emulator === true, { message: '--dialect shapes the emulator\'s answers: give --emulator too', path: ['dialect'] });

/** An access token given by the person: long and URL-safe, like the ones serve makes. */
const HOST_TOKEN = /^[A-Za-z0-9_-]{32,512}$/;

/** The token from --token-env (so a restart keeps the printed link valid), or undefined for a fresh one. */
function tokenFrom(env: Record<string, string | undefined>, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const v = env[name];
  if (!v) throw new UsageError(`the environment variable ${name} is not set (it should hold the access token)`);
  if (!HOST_TOKEN.test(v)) throw new UsageError(`the access token in ${name} must be 32 to 512 letters, digits, - or _`);
  return v;
}

/** out/renderer, from the source tree (src-main/cli/commands) or the build (out/main[/chunks]). */
function findRendererDir(given?: string): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = given ? [path.resolve(given)] : [path.resolve(here, '../../../out/renderer'), path.resolve(here, '../renderer'), path.resolve(here, '../../renderer')];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? null;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('serve')
    .description('run the app in your browser (loopback only) until Ctrl-C')
    .option('--port <n>', 'port of the browser host (0 = any free port)', '0')
    .option('--host <host>', 'interface to listen on (anything but loopback needs this flag and is warned about)', '127.0.0.1')
    .option('--emulator', 'also start the local emulator of the service and add its demo team')
    .option('--no-demo-team', 'with --emulator: start the emulator but do not add its team')
    .option('--config-dir <dir>', 'folder of config.json (default: the platform config folder)')
    .option('--data-dir <dir>', 'folder of transcripts, timelines and the tunnel log (default: <config-dir>/data)')
    .option('--renderer-dir <dir>', 'folder of the built renderer (default: out/renderer)')
    .option('--poll-sec <s>', 'poll interval for this run, not saved (seconds)')
    .option('--fast-poll-sec <s>', 'fast poll interval (pairing, reconnecting) for this run, not saved (seconds)')
    .option('--token-env <name>', 'take the access token from this environment variable, so the link stays valid across restarts')
    .option('--dialect <names>', `with --emulator: the emulator answers in other shapes a real service may use, comma-separated: ${DIALECT_NAMES.join(', ')}`);
  addMetricsOptions(cmd).option('--json', 'one JSON object per line on stdout; the first is {"event":"ready",…}');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const host = f.host ?? '127.0.0.1';
    const token = tokenFrom(ctx.io.env, f.tokenEnv);
    const metrics = metricsListen(f, out);
    const rendererDir = findRendererDir(f.rendererDir);
    if (!rendererDir) throw new CliFailure('The renderer is not built (no out/renderer/index.html): run npm run build', EXIT.failure, 'NOT_BUILT');
    if (!isLoopbackHost(host)) {
      out.warn(`listening on ${host}, beyond this machine: anyone who can reach it and learns the URL's token can use the app. Prefer the default 127.0.0.1.`);
    }

    // Loaded on demand: the other commands never pay for the app core.
    const [{ createCompanion }, { implementContract }, { createHandlers }, { startHostServer }] = await Promise.all([
      import('../../app/companion/companion'),
      import('../../app/contract'),
      import('../../app/handlers'),
      import('../../host/server'),
    ]);
    const poll: { intervalMs?: number; fastIntervalMs?: number } = {};
    if (f.pollSec !== undefined) poll.intervalMs = Math.round(f.pollSec * 1000);
    if (f.fastPollSec !== undefined) poll.fastIntervalMs = Math.round(f.fastPollSec * 1000);
    const { KeychainSecretStore } = await import('../../core/secrets');
    const secrets = new KeychainSecretStore();
    await secrets.probe().catch((e: unknown) =>
      out.warn(`${e instanceof Error ? e.message : 'The OS keychain is not reachable.'} Adding a team will fail until it is; the demo (--emulator) works without it.`),
    );
    const companion = await createCompanion({
      secrets,
      clock: ctx.clock,
      logger: cliLogger(out),
      poll,
      ...(f.dialect ? { demoDialect: f.dialect } : {}),
      ...(metrics ? { metrics } : {}),
      ...(f.configDir ? { configDir: path.resolve(f.configDir) } : {}),
      ...(f.dataDir ? { dataDir: path.resolve(f.dataDir) } : {}),
    });
    const contract = implementContract(companion);
    let hostServer: Awaited<ReturnType<typeof startHostServer>> | null = null;
    try {
      let emulator: { baseUrl: string; controlUrl: string; apiKey: string } | null = null;
      let demoTeam: { teamId: string; label: string; agentIds: string[] } | null = null;
      if (f.emulator) {
        if (f.demoTeam === false) {
          const info = await companion.startEmulator();
          emulator = { baseUrl: info.baseUrl, controlUrl: info.controlUrl, apiKey: info.apiKey };
        } else {
          const { team, emulator: info } = await companion.startDemo();
          emulator = { baseUrl: info.baseUrl, controlUrl: info.controlUrl, apiKey: info.apiKey };
          demoTeam = { teamId: team.id, label: team.label, agentIds: team.agents.map((a) => a.agentId) };
        }
      }
      hostServer = await startHostServer({ handlers: createHandlers(contract.implementations), events: contract.events, rendererDir, host, ...(f.port !== undefined ? { port: f.port } : {}), ...(token ? { token } : {}) });
      const metricsUrl = await companion.metricsUrl();
      out.event(
        { event: 'ready', url: hostServer.openUrl, port: hostServer.port, pid: process.pid, origin: hostServer.origin, configDir: companion.configDir, dataDir: companion.dataDir, emulator, demoTeam, metricsUrl },
        [
          `Channel Companion is running. Open: ${hostServer.openUrl}`,
          ...(metricsUrl ? [`  Prometheus metrics: ${metricsUrl}`] : []),
          ...(emulator
            ? [`  emulator: ${emulator.baseUrl} (control ${emulator.controlUrl}; its made-up key: ${emulator.apiKey})`, ...(demoTeam ? [`  demo team "${demoTeam.label}" added (in memory only)`] : [])]
            : []),
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      await waitForAbort(ctx.signal);
    } finally {
      await hostServer?.close();
      contract.dispose();
      await companion.close();
    }
    out.event({ event: 'closed' }, 'stopped');
    return EXIT.ok;
  });
}
