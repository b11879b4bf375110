// Watching agents, the one way every shell does it: the saved settings become the monitor's alert
// rules and poll intervals (overrides of a run, such as `serve --poll-sec` or `monitor --interval`,
// on top), and a snooze ends where the monitor's one rule says (core/monitor/time.ts snoozeEnd).
// The companion (app, browser host, `serve`) and the `monitor` command both build their monitor here.
import type { AppSettings } from '../../core/teams';
import { Monitor, type AlertRules, type AlertSink, type MonitorOptions, type PollTarget } from '../../core/monitor';
import type { Clock, Logger } from '../../core/ports';

export { AlertmanagerSink, alertWords, type Alert } from '../../core/monitor';

/** Poll intervals a run sets over the saved ones (not saved). */
export interface PollOverrides {
  intervalMs?: number;
  fastIntervalMs?: number;
}

/** The poll intervals: the saved ones or the run's; the fast one never slower than the normal one. */
export function pollConfig(
  s: Pick<AppSettings, 'pollIntervalSec' | 'fastPollIntervalSec'> | null,
  o: PollOverrides = {},
) {
  const intervalMs = o.intervalMs ?? (s ? s.pollIntervalSec : 15) * 1000;
  const fastIntervalMs = Math.min(o.fastIntervalMs ?? (s ? s.fastPollIntervalSec : 2) * 1000, intervalMs);
  return { intervalMs, fastIntervalMs, coalesceMs: Math.min(250, fastIntervalMs / 4) };
}

/** The alert rules the saved settings choose (the rest keep the monitor's defaults). */
export function alertRules(s: Pick<AppSettings, 'alertRules'> | null): Partial<AlertRules> {
  if (!s) return {};
  const r = s.alertRules;
  return {
    reconnectGraceSec: r.reconnectGraceSec,
    repeatDropGraceSec: r.repeatDropGraceSec,
    realertMinutes: r.realertMinutes,
    flapCount: r.flapCount,
    flapWindowMinutes: r.flapWindowMinutes,
    quietHours: r.quietHours,
  };
}

export interface AgentMonitorOptions {
  targets: () => PollTarget[];
  readSession: MonitorOptions['readSession'];
  /** The saved settings (null: an ad hoc run with none). */
  settings: Pick<AppSettings, 'pollIntervalSec' | 'fastPollIntervalSec' | 'alertRules'> | null;
  poll?: PollOverrides;
  /** A team's label: what every alert calls the team. */
  teamLabel: (teamId: string) => string;
  clock: Clock;
  logger?: Logger;
  /** The timeline's folder (absent: kept in memory). */
  dataDir?: string;
  /** Whether this app keeps the files in dataDir now (MonitorOptions.keepsFiles; default always). */
  keepsFiles?: () => boolean;
  sinks?: AlertSink[];
  /** An agent gone from targets() is still watched elsewhere (MonitorOptions.watchedElsewhere). */
  watchedElsewhere?: MonitorOptions['watchedElsewhere'];
  /** Who judges a team's team-wide incidents (MonitorOptions.teamJudge). */
  teamJudge?: MonitorOptions['teamJudge'];
}

export function createAgentMonitor(o: AgentMonitorOptions): Monitor {
  return new Monitor({
    targets: o.targets,
    readSession: o.readSession,
    clock: o.clock,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.dataDir !== undefined ? { dataDir: o.dataDir } : {}),
    ...(o.keepsFiles ? { keepsFiles: o.keepsFiles } : {}),
    rules: alertRules(o.settings),
    poll: pollConfig(o.settings, o.poll),
    sinks: o.sinks ?? [],
    teamLabel: o.teamLabel,
    ...(o.watchedElsewhere ? { watchedElsewhere: o.watchedElsewhere } : {}),
    ...(o.teamJudge ? { teamJudge: o.teamJudge } : {}),
  });
}

/** How long a snooze lasts, as a person chooses it: N minutes, or until tomorrow morning. */
export type SnoozeChoice = { minutes: number } | { until: 'tomorrow' };

/** Snoozes the monitor's alerts (monitoring goes on); returns when the snooze ends (ms epoch). */
export function snoozeAlerts(monitor: Pick<Monitor, 'snoozeFor'>, choice: SnoozeChoice): number {
  return monitor.snoozeFor('minutes' in choice ? { minutes: choice.minutes } : 'tomorrow');
}
