// `monitor` over the saved teams: a client of the data folder's companion. It prints the companion's own
// health and incidents — the same ids, starts, lengths and words as the screens — as they change, until Ctrl-C
// or until the companion stops. With none running, the command starts one for its duration (its poll interval,
// metrics and Alertmanager may then be set for the run); beside a running one those belong to the companion's
// settings, so a second poller or a second pager never starts.
import type { AgentDTO, AgentHealthDTO, AlertEventDTO, IncidentDTO, TeamDTO } from '../../src-shared/contract';
import { redactCredentials } from '../../src-shared/url';
import { HEALTH_SHORT, incidentLine } from '../../src-shared/words';
import type { CliContext } from './context';
import { connectCompanion, sessionWords } from './companion';
import { teamIn } from './companion-run';
import { UsageError } from './errors';
import { EXIT } from './exit-codes';
import type { Output } from './output';
import type { MetricsListen } from '../app/companion/observability';
import { untilAborted } from './io';

export interface CompanionMonitorFlags {
  team?: string[] | undefined;
  agent?: string[] | undefined;
  configDir?: string | undefined;
  dataDir?: string | undefined;
  interval?: number | undefined;
  fastInterval?: number | undefined;
  alertmanager?: string | undefined;
  snooze?: number | 'tomorrow' | undefined;
}

const redactOrNull = (url: string | null): string | null => (url === null ? null : redactCredentials(url));

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The teams and agents asked for (--team by id or label, --agent by id or label; default every one). */
function pickAgents(teams: TeamDTO[], agents: AgentDTO[], f: CompanionMonitorFlags): AgentDTO[] {
  let picked = teams;
  if (f.team?.length) picked = f.team.map((name) => teamIn(teams, name));
  const ids = new Set(picked.map((t) => t.teamId));
  const only = f.agent?.length ? new Set(f.agent.map((a) => a.toLowerCase())) : null;
  return agents.filter(
    (a) => ids.has(a.teamId) && (!only || only.has(a.agentId.toLowerCase()) || only.has(a.label.toLowerCase())),
  );
}

export async function monitorThroughCompanion(
  ctx: CliContext,
  out: Output,
  f: CompanionMonitorFlags,
  metrics: MetricsListen | null,
): Promise<number> {
  const runOnly = [
    f.interval !== undefined ? '--interval' : null,
    f.fastInterval !== undefined ? '--fast-interval' : null,
    f.alertmanager !== undefined ? '--alertmanager' : null,
    metrics ? '--metrics-port' : null,
  ].filter((x): x is string => x !== null);
  const session = await connectCompanion(ctx, out, f, {
    none: 'start',
    companion: {
      ...(f.interval !== undefined || f.fastInterval !== undefined
        ? {
            poll: {
              ...(f.interval !== undefined ? { intervalMs: f.interval * 1000 } : {}),
              ...(f.fastInterval !== undefined ? { fastIntervalMs: f.fastInterval * 1000 } : {}),
            },
          }
        : {}),
      ...(f.alertmanager !== undefined ? { alertmanagerUrl: f.alertmanager } : {}),
      ...(metrics ? { metrics } : {}),
    },
  });
  const { client } = session;
  try {
    if (session.where !== 'in-process' && runOnly.length > 0)
      throw new UsageError(
        `${runOnly.join(', ')}: ${sessionWords(session)} polls, serves the metrics and posts the alerts by its own settings, so a second poller or pager never starts beside it; change them with \`channel-companion settings\` (or on its Settings screen), or leave these flags out`,
      );
    const teams = await client.request('teams.list', {});
    if (teams.length === 0)
      throw new UsageError(
        'no saved teams to watch: add one with `channel-companion team add`, or give --base-url and --agent',
      );
    const watched = pickAgents(teams, await client.request('agents.list', {}), f);
    if (watched.length === 0)
      throw new UsageError('no agents to watch (check --agent and `channel-companion agent list`)');
    const teamLabel = new Map(teams.map((t) => [t.teamId, t.label]));
    const key = (teamId: string, agentId: string) => `${teamId}\u0000${agentId}`;
    const wanted = new Set(watched.map((a) => key(a.teamId, a.agentId)));
    const last = new Map<string, AgentHealthDTO>(watched.map((a) => [key(a.teamId, a.agentId), a.health]));
    const where = (i: { teamId: string; agentId: string }) => ({
      team: teamLabel.get(i.teamId) ?? i.teamId,
      agent: i.agentId,
    });
    const ofWatched = (i: IncidentDTO) => wanted.has(key(i.teamId, i.agentId));

    const stopped = new Promise<string>((resolve) => client.onClose(resolve));
    client.on('health.changed', (h) => {
      const k = key(h.teamId, h.agentId);
      if (!wanted.has(k)) return;
      const before = last.get(k);
      last.set(k, h);
      if (before && before.health === h.health) return;
      const w = where(h);
      out.event(
        { event: 'health', agent: h, previous: before?.health ?? null },
        `${iso(h.since)} ${w.team}/${w.agent}: ${HEALTH_SHORT[h.health]}${before ? ` (was ${HEALTH_SHORT[before.health]})` : ''}${h.phone ? ` +${h.phone}` : ''}${h.error ? ` — ${h.error.message}` : ''}`,
      );
    });
    client.on('alert', (a: AlertEventDTO) => {
      if (!ofWatched(a.incident)) return;
      out.event(
        { event: 'alert', alert: a },
        `${iso(ctx.clock.now())} ${incidentLine(a.incident, where(a.incident), ctx.clock.now())}`,
      );
    });
    await client.listening();

    let status = await client.request('alerts.status', {});
    if (f.snooze !== undefined)
      status = await client.request(
        'alerts.snooze',
        f.snooze === 'tomorrow' ? { until: 'tomorrow' } : { minutes: f.snooze },
      );
    const open = (await client.request('alerts.list', {})).filter(ofWatched);
    const settings = await client.request('settings.get', {});
    out.event(
      {
        event: 'started',
        companion:
          session.where === 'attached'
            ? { pid: session.owner?.pid ?? null, shell: session.owner?.shell ?? null }
            : null,
        ...(session.hub ? { hub: session.hub } : {}),
        agents: watched.map((a) => ({
          teamId: a.teamId,
          team: teamLabel.get(a.teamId) ?? a.teamId,
          agentId: a.agentId,
        })),
        intervalSec: f.interval ?? settings.pollIntervalSec,
        alertmanager: redactOrNull(f.alertmanager ?? settings.alertmanagerUrl),
        snoozedUntil: status.snoozedUntil === null ? null : iso(status.snoozedUntil),
      },
      [
        `watching ${watched.length} agent${watched.length === 1 ? '' : 's'} (${watched.map((a) => `${teamLabel.get(a.teamId) ?? a.teamId}/${a.agentId}`).join(', ')}) through ${sessionWords(session)} — Ctrl-C to stop`,
        ...(status.snoozedUntil !== null ? [`  alerts snoozed until ${iso(status.snoozedUntil)}`] : []),
        ...(f.alertmanager !== undefined
          ? [`  alerts also go to Alertmanager at ${redactCredentials(f.alertmanager)}`]
          : []),
      ].join('\n'),
    );
    if (metrics) {
      const url = await session.metricsUrl();
      if (url !== null) out.event({ event: 'metrics', url }, `  Prometheus metrics at ${url}`);
      else out.warn(`--metrics-port: the metrics could not be served on ${metrics.host}:${metrics.port}`);
    }
    for (const a of watched) {
      const w = where(a);
      out.event(
        { event: 'health', agent: a.health, previous: null },
        `${iso(a.health.since)} ${w.team}/${w.agent}: ${HEALTH_SHORT[a.health.health]}${a.health.phone ? ` +${a.health.phone}` : ''}`,
      );
    }
    for (const i of open)
      out.event({ event: 'incident', incident: i }, `${iso(i.openedAt)} ${incidentLine(i, where(i), ctx.clock.now())}`);

    const why = await Promise.race([untilAborted(ctx.signal).then(() => null), stopped]);
    if (why !== null) {
      out.warn(`${why}: no more changes will be seen`);
      return EXIT.failure;
    }
    out.event({ event: 'stopped' }, 'monitor stopped');
    return EXIT.ok;
  } finally {
    await session.close();
  }
}
