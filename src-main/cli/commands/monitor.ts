// `monitor`: the saved teams' health and incidents as they change, from the data folder's companion
// (cli/monitor-companion.ts), until Ctrl-C / SIGTERM. Ad hoc (--base-url/--agent with the env key, no saved
// team) it polls those agents itself and prints what this file's monitor sees. With --json: one
// object per line — {"event":"started"}, {"event":"metrics"}, {"event":"health"}, {"event":"alert"},
// {"event":"stopped"}. --metrics-port serves OpenMetrics for Prometheus; --alertmanager posts every
// raised incident (firing, then resolved) to Alertmanager's v2 API; --snooze starts with alerts
// snoozed. The monitor, its rules and poll intervals from the saved settings, the snooze and the
// words of an alert are the app's (app/usecases/monitor.ts, core/monitor/words.ts): this command
// parses its flags and prints.
import type { Command } from 'commander';
import { z } from 'zod';
import { HEALTH_SHORT } from '../../../src-shared/words';
import type { ServiceClient } from '../../app/service';
import { monitorThroughCompanion } from '../monitor-companion';
import { defineAction, type CliContext } from '../context';
import { UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { baseUrlSchema, httpUrlSchema } from '../../app/url';
import { agentId, envVarName, parseFlags, secondsString, teamName } from '../flags';
import { addMetricsOptions, metricsFlagsSchema, metricsListen } from '../metrics-flags';
import { cliLogger } from '../output';
import type { Alert } from '../../app/usecases/monitor';
import { DEFAULT_API_KEY_ENV } from '../target';
import { collect } from './team';
import { addCompanionOptions } from '../companion';
import { untilAborted } from '../io';

const ADHOC_TEAM = 'adhoc';

const flagsSchema = z
  .object({
    team: z.array(teamName).optional(),
    baseUrl: baseUrlSchema.optional(),
    agent: z.array(agentId).optional(),
    apiKeyEnv: envVarName,
    interval: secondsString.optional(),
    fastInterval: secondsString.optional(),
    configDir: z.string().min(1, 'expected a folder').optional(),
    dataDir: z.string().min(1, 'expected a folder').optional(),
    alertmanager: httpUrlSchema.optional(),
    snooze: z
      .union(
        [
          z.literal('tomorrow'),
          z
            .string()
            .regex(/^\d{1,5}$/, 'expected minutes (a whole number) or "tomorrow"')
            .transform(Number),
        ],
        { error: 'expected minutes (a whole number) or "tomorrow"' },
      )
      .refine((v) => v === 'tomorrow' || (v >= 1 && v <= 7 * 24 * 60), 'expected 1 to 10080 minutes, or "tomorrow"')
      .optional(),
    ...metricsFlagsSchema,
    json: z.boolean().optional(),
  })
  .refine((f) => !(f.team && f.baseUrl), { message: 'give either --team or --base-url, not both', path: ['team'] })
  .refine((f) => !f.baseUrl || (f.agent?.length ?? 0) > 0, {
    message: 'with --base-url, name the agents to watch with --agent',
    path: ['agent'],
  })
  .refine((f) => f.interval === undefined || f.fastInterval === undefined || f.fastInterval <= f.interval, {
    message: 'must not exceed --interval',
    path: ['fastInterval'],
  });

interface Watched {
  teamId: string;
  team: string;
  agentId: string;
  label: string;
  /** Polled at the fast interval all the time (the agent's setting). */
  watchClosely?: boolean;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** An alert as one JSON line's fields: the team by id and label; a grouped alert's parts as data. */
function alertData(a: Alert): Record<string, unknown> {
  const data: Record<string, unknown> = {
    kind: a.kind,
    urgent: a.urgent,
    teamId: a.teamId,
    team: a.teamLabel,
    agentIds: a.agentIds,
    title: a.title,
    body: a.body,
    at: iso(a.at),
  };
  if (a.incidentId) data.incidentId = a.incidentId;
  if (a.parts) data.parts = a.parts.map(alertData);
  return data;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addCompanionOptions(
    program
      .command('monitor')
      .description("watch the agents' channel health and print alerts as they happen, until Ctrl-C")
      .option('--team <team>', 'a saved team to watch (repeatable; default: every saved team)', collect)
      .option('--base-url <url>', 'ad hoc: service base URL (with --agent and the key in the environment)')
      .option('--agent <id>', 'an agent to watch (repeatable); with --team, only these', collect)
      .option('--api-key-env <name>', 'ad hoc: environment variable holding the API key', DEFAULT_API_KEY_ENV)
      .option('--interval <seconds>', 'poll interval (default: the saved setting, 15)')
      .option(
        '--fast-interval <seconds>',
        'poll interval while pairing or reconnecting (default: the saved setting, 2)',
      )
      .option(
        '--alertmanager <url>',
        'post every raised incident to this Alertmanager (its v2 API), firing then resolved',
      )
      .option(
        '--snooze <minutes|tomorrow>',
        'start with alerts snoozed for this many minutes, or until tomorrow 08:00 (health lines still print)',
      ),
  );
  addMetricsOptions(cmd).option('--json', 'one JSON object per line: started, metrics, health, alert, stopped');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const listen = metricsListen(f, out);
    if (!f.baseUrl) return monitorThroughCompanion(ctx, out, f, listen);
    const { AlertmanagerSink, alertWords, createAgentMonitor, snoozeAlerts } =
      await import('../../app/usecases/monitor');
    const watched: Watched[] = [];
    const clients = new Map<string, ServiceClient>();

    const apiKey = ctx.io.env[f.apiKeyEnv]?.trim();
    if (!apiKey)
      throw new UsageError(
        `no API key: set the environment variable ${f.apiKeyEnv} (or name another with --api-key-env); the key is never accepted as a flag`,
      );
    clients.set(ADHOC_TEAM, ctx.client({ baseUrl: f.baseUrl, apiKey, agentId: '', keySource: `env ${f.apiKeyEnv}` }));
    for (const a of new Set(f.agent)) watched.push({ teamId: ADHOC_TEAM, team: ADHOC_TEAM, agentId: a, label: a });

    const byKey = new Map(watched.map((w) => [`${w.teamId}\u0000${w.agentId}`, w]));
    const labels = new Map(watched.map((w) => [w.teamId, w.team]));
    const teamLabel = (teamId: string) => labels.get(teamId) ?? teamId;
    const targets = watched.map((w) => ({
      teamId: w.teamId,
      agentId: w.agentId,
      watchClosely: w.watchClosely === true,
    }));
    const monitor = createAgentMonitor({
      targets: () => targets,
      readSession: (teamId, agent, signal) => clients.get(teamId)!.getSession(agent, { signal }),
      settings: null,
      poll: {
        ...(f.interval !== undefined ? { intervalMs: f.interval * 1000 } : {}),
        ...(f.fastInterval !== undefined ? { fastIntervalMs: f.fastInterval * 1000 } : {}),
      },
      teamLabel,
      clock: ctx.clock,
    });
    const { intervalMs, fastIntervalMs } = monitor.pollConfig();
    const intervalSec = intervalMs / 1000;
    const snoozedUntil =
      f.snooze === undefined
        ? null
        : snoozeAlerts(monitor, f.snooze === 'tomorrow' ? { until: 'tomorrow' } : { minutes: f.snooze });
    const alertmanager = f.alertmanager
      ? new AlertmanagerSink(f.alertmanager, { clock: ctx.clock, teamLabel, logger: cliLogger(out) })
      : null;
    const detach = alertmanager?.attach(monitor);

    monitor.on('health', (ev) => {
      const w = byKey.get(`${ev.teamId}\u0000${ev.agentId}`);
      const phone = ev.status?.phone ?? null;
      const data: Record<string, unknown> = {
        event: 'health',
        teamId: ev.teamId,
        team: w?.team ?? ev.teamId,
        agentId: ev.agentId,
        health: ev.health,
        previous: ev.previous,
        state: ev.state,
        phone,
        at: iso(ev.since),
      };
      if (ev.error) data.error = { kind: ev.error.kind, code: ev.error.code, message: ev.error.message };
      out.event(
        data,
        `${iso(ev.since)} ${w?.team ?? ev.teamId}/${ev.agentId}: ${HEALTH_SHORT[ev.health]} (was ${HEALTH_SHORT[ev.previous]})${phone ? ` +${phone}` : ''}${ev.error ? ` — ${ev.error.message}` : ''}`,
      );
    });
    monitor.on('alert', (a) => {
      const w = alertWords(a);
      out.event(
        { event: 'alert', id: a.id, ...alertData(a) },
        `${iso(a.at)} ${w.line}${w.body ? `\n  ${w.body.replace(/\n/g, '\n  ')}` : ''}`,
      );
    });

    out.event(
      {
        event: 'started',
        agents: watched.map((w) => ({ teamId: w.teamId, team: w.team, agentId: w.agentId })),
        intervalSec,
        fastIntervalSec: fastIntervalMs / 1000,
        alertmanager: alertmanager?.target ?? null,
        snoozedUntil: snoozedUntil === null ? null : iso(snoozedUntil),
      },
      `watching ${watched.length} agent${watched.length === 1 ? '' : 's'} (${watched.map((w) => `${w.team}/${w.agentId}`).join(', ')}) every ${intervalSec} s — Ctrl-C to stop` +
        (snoozedUntil !== null ? `\n  alerts snoozed until ${iso(snoozedUntil)}` : '') +
        (alertmanager ? `\n  alerts also go to Alertmanager at ${alertmanager.target}` : ''),
    );
    let server: { url: string; close(): Promise<void> } | null = null;
    try {
      if (listen) {
        const { CompanionMetrics, startMetricsServer } = await import('../../app/metrics');
        const metrics = new CompanionMetrics({
          teamLabel,
          sendBudgets: () => [...clients].map(([teamId, c]) => ({ teamId, ...c.sendBudget() })),
        });
        metrics.attach(monitor);
        server = await startMetricsServer(metrics, listen);
        out.event({ event: 'metrics', url: server.url }, `  Prometheus metrics at ${server.url}`);
      }
      monitor.start();
      await untilAborted(ctx.signal);
    } finally {
      await monitor.stop();
      detach?.();
      await alertmanager?.flush();
      await server?.close();
    }
    out.event({ event: 'stopped' }, 'monitor stopped');
    return EXIT.ok;
  });
}
