// `serve`: the whole app in a browser. Builds the companion (team store + keychain, monitor, tunnel,
// chat), the contract handlers over it and the browser host serving the built renderer, prints the
// URL to open ONCE (with --json: a first line {"event":"ready",…}), and runs until Ctrl-C / SIGTERM.
// Its port and access token are kept in the config folder (host/state), so a restart answers the
// open tabs at the same address with the same token; --new-token makes a new one (old tabs are
// refused), --token-env takes it from the environment instead.
// --emulator also starts the local emulator and (unless --no-demo-team) adds its demo team.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { z } from 'zod';
import { isLoopbackHost } from '../../../src-shared/url';
import { DIALECT_NAMES, dialectListSchema } from '../../emulator/dialect';
import { defineAction, type CliContext } from '../context';
import { refuseHub } from '../hub-client';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { envVarName, hostName, intString, parseFlags, secondsString } from '../flags';
import { addMetricsOptions, metricsFlagsSchema, metricsListen } from '../metrics-flags';
import { cliLogger } from '../output';
import { alertsPostedElsewhereWords } from '../../../src-shared/vocabulary';
import { isHostToken, newToken } from '../../host/access';
import { describeOwner, isPortTaken, portOwner } from '../../app/port-owner';
import { companionFolders } from '../companion';
import { teamsOf } from '../teams-context';
import { untilAborted } from '../io';

const flagsSchema = z
  .object({
    port: intString(0, 65_535).optional(),
    tunnelPort: intString(0, 65_535).optional(),
    host: hostName.optional(),
    emulator: z.boolean().optional(),
    demoTeam: z.boolean().optional(),
    configDir: z.string().min(1, 'expected a folder').optional(),
    dataDir: z.string().min(1, 'expected a folder').optional(),
    rendererDir: z.string().min(1, 'expected a folder').optional(),
    pollSec: secondsString.optional(),
    fastPollSec: secondsString.optional(),
    tokenEnv: envVarName.optional(),
    newToken: z.boolean().optional(),
    dialect: dialectListSchema.optional(),
    ...metricsFlagsSchema,
    json: z.boolean().optional(),
  })
  .refine((f) => f.dialect === undefined || f.emulator === true, {
    message: "--dialect shapes the emulator's answers: give --emulator too",
    path: ['dialect'],
  })
  .refine((f) => !(f.newToken && f.tokenEnv !== undefined), {
    message:
      '--new-token makes a token, --token-env takes it from the environment: give one of them (with --token-env, change the variable)',
    path: ['newToken'],
  });

/** The token from --token-env, or undefined: then the one kept in the config folder (or a new one). */
function tokenFrom(env: Record<string, string | undefined>, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const v = env[name];
  if (!v) throw new UsageError(`the environment variable ${name} is not set (it should hold the access token)`);
  if (!isHostToken(v)) throw new UsageError(`the access token in ${name} must be 32 to 512 letters, digits, - or _`);
  return v;
}

/** out/renderer, from the source tree (src-main/cli/commands) or the build (out/main[/chunks]). */
function findRendererDir(given?: string): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = given
    ? [path.resolve(given)]
    : [
        path.resolve(here, '../../../out/renderer'),
        path.resolve(here, '../renderer'),
        path.resolve(here, '../../renderer'),
      ];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? null;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('serve')
    .description('run the app in your browser (loopback only) until Ctrl-C')
    .option(
      '--port <n>',
      'port of the browser host (default: the one it used last time, else any free port; 0 = any free port)',
    )
    .option(
      '--host <host>',
      'interface to listen on (anything but loopback needs this flag and is warned about)',
      '127.0.0.1',
    )
    .option(
      '--tunnel-port <n>',
      'port of the webhook receiver for this run, not saved (default: the saved one; 0 = any free port)',
    )
    .option('--emulator', 'also start the local emulator of the service and add its demo team')
    .option('--no-demo-team', 'with --emulator: start the emulator but do not add its team')
    .option('--config-dir <dir>', 'folder of config.json (default: the platform config folder)')
    .option('--data-dir <dir>', 'folder of transcripts, timelines and the tunnel log (default: <config-dir>/data)')
    .option('--renderer-dir <dir>', 'folder of the built renderer (default: out/renderer)')
    .option('--poll-sec <s>', 'poll interval for this run, not saved (seconds)')
    .option('--fast-poll-sec <s>', 'fast poll interval (pairing, reconnecting) for this run, not saved (seconds)')
    .option(
      '--token-env <name>',
      'take the access token from this environment variable (instead of the one kept in the config folder)',
    )
    .option(
      '--new-token',
      'make a new access token (kept for the next starts): links and tabs opened before stop working',
    )
    .option(
      '--dialect <names>',
      `with --emulator: the emulator answers in other shapes a real service may use, comma-separated: ${DIALECT_NAMES.join(', ')}`,
    );
  addMetricsOptions(cmd).option('--json', 'one JSON object per line on stdout; the first is {"event":"ready",…}');

  defineAction(ctx, cmd, async (opts, out) => {
    refuseHub(ctx, 'serve');
    const f = parseFlags(flagsSchema, opts);
    const host = f.host ?? '127.0.0.1';
    const token = tokenFrom(ctx.io.env, f.tokenEnv);
    const metrics = metricsListen(f, out);
    const rendererDir = findRendererDir(f.rendererDir);
    if (!rendererDir)
      throw new CliFailure(
        'The renderer is not built (no out/renderer/index.html): run npm run build',
        EXIT.failure,
        'NOT_BUILT',
      );
    if (!isLoopbackHost(host)) {
      out.warn(
        `listening on ${host}, beyond this machine: anyone who can reach it and learns the URL's token can use the app. Prefer the default 127.0.0.1.`,
      );
    }

    // Loaded on demand: the other commands never pay for the app core.
    const [
      { hostCompanion },
      { startHostServer },
      { readHostState, writeHostState },
      { hubSwitchable },
      { createHandlers },
    ] = await Promise.all([
      import('../../app/companion/hosted'),
      import('../../host/server'),
      import('../../host/state'),
      import('../../app/hub-connection'),
      import('../../app/handlers'),
    ]);
    const poll: { intervalMs?: number; fastIntervalMs?: number } = {};
    if (f.pollSec !== undefined) poll.intervalMs = Math.round(f.pollSec * 1000);
    if (f.fastPollSec !== undefined) poll.fastIntervalMs = Math.round(f.fastPollSec * 1000);
    const secrets = teamsOf(ctx).secrets();
    await secrets
      .probe()
      .catch((e: unknown) =>
        out.warn(
          `${e instanceof Error ? e.message : 'The OS keychain is not reachable.'} Adding a team will fail until it is; the demo (--emulator) works without it.`,
        ),
      );
    const { configDir, dataDir } = companionFolders(ctx, f);
    const hosted = await hostCompanion({
      shell: 'serve',
      command: 'channel-companion serve',
      secrets,
      clock: ctx.clock,
      logger: cliLogger(out),
      poll,
      // The demo team is there before the monitor starts: its incidents of the last run are taken up.
      demo: f.emulator === true && f.demoTeam !== false,
      ...(f.tunnelPort !== undefined ? { tunnelPort: f.tunnelPort } : {}),
      ...(f.dialect ? { demoDialect: f.dialect } : {}),
      ...(metrics ? { metrics } : {}),
      configDir,
      dataDir,
    });
    const { companion } = hosted;
    // The tabs work with this companion, or with the team's hub they were connected to (Settings → Team hub).
    const contract = await hubSwitchable(hosted.contract, {
      configDir: companion.configDir,
      secrets,
      logger: cliLogger(out),
    });
    const handlers = createHandlers(contract.implementations);
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
      // The address of the last run: same port, same token, so open tabs recover by themselves.
      const saved = await readHostState(companion.configDir);
      if (saved.note) out.warn(saved.note);
      const keptToken = f.newToken || !saved.state ? newToken() : saved.state.token;
      const listenOn = (port: number) =>
        startHostServer({
          handlers,
          events: contract.events,
          rendererDir,
          host,
          port,
          token: token ?? keptToken,
        });
      const port = f.port ?? saved.state?.port ?? 0;
      try {
        hostServer = await listenOn(port);
      } catch (e) {
        if (!isPortTaken(e) || port === 0) throw e;
        const owner = describeOwner(await portOwner(port));
        if (f.port !== undefined)
          throw new CliFailure(
            `the browser host could not listen on ${host}:${port}: the port is taken by ${owner}; give another --port (0: any free port), or stop what holds it`,
            EXIT.failure,
            'PORT_TAKEN',
          );
        hostServer = await listenOn(0);
        out.warn(
          `port ${port}, where the browser host listened last time, is taken by ${owner}: listening on ${hostServer.port} instead, so tabs opened before need the new link`,
        );
      }
      await hosted.setBrowserOrigin(hostServer.origin);
      await writeHostState(companion.configDir, { port: hostServer.port, token: keptToken }).catch((e: unknown) =>
        out.warn(
          `could not keep the browser host's address for the next start (${e instanceof Error ? e.message : String(e)}): the next start makes a new link`,
        ),
      );
      const metricsUrl = await companion.metricsUrl();
      // Only one app on a data folder posts the alerts (the other would page the team twice).
      const posting = () => {
        const s = companion.settings().app;
        return s.alertWebhookUrl !== null || s.alertmanagerUrl !== null;
      };
      const postedBy = () => (posting() ? companion.alertsPostedElsewhere() : null);
      const elsewhere = postedBy();
      companion.events.on('alertSender', () => {
        const by = postedBy();
        if (by) out.note(alertsPostedElsewhereWords(by.pid));
        else if (posting()) out.note('This app posts the alerts now (alert webhook, Alertmanager).');
      });
      out.event(
        {
          event: 'ready',
          url: hostServer.openUrl,
          port: hostServer.port,
          pid: process.pid,
          origin: hostServer.origin,
          configDir: companion.configDir,
          dataDir: companion.dataDir,
          socket: hosted.socket,
          emulator,
          demoTeam,
          metricsUrl,
          alertsPostedBy: elsewhere && { pid: elsewhere.pid, since: elsewhere.since },
        },
        [
          `Channel Companion is running. Open: ${hostServer.openUrl}`,
          ...(metricsUrl ? [`  Prometheus metrics: ${metricsUrl}`] : []),
          ...(elsewhere ? [`  ${alertsPostedElsewhereWords(elsewhere.pid)}`] : []),
          ...(emulator
            ? [
                `  emulator: ${emulator.baseUrl} (control ${emulator.controlUrl}; its made-up key: ${emulator.apiKey})`,
                ...(demoTeam ? [`  demo team "${demoTeam.label}" added (its key in memory only)`] : []),
              ]
            : []),
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      await untilAborted(ctx.signal);
    } finally {
      await hostServer?.close();
      contract.dispose();
      await hosted.close();
    }
    out.event({ event: 'closed' }, 'stopped');
    return EXIT.ok;
  });
}
