// Alertmanager sink: every incident the alert policy raises is posted to Alertmanager's v2 API
// (POST /api/v2/alerts) as a firing alert, and as resolved when it closes, with stable labels
// (alertname, team, agent, severity, kind) so Alertmanager groups, dedupes, silences and routes it.
// Alertmanager, not the companion, then decides who hears about it: the companion's snooze and
// quiet hours do not apply here (silence in Alertmanager instead). Firing alerts are posted again
// every resendMs with endsAt a few resends ahead, as Prometheus does, so an Alertmanager that
// restarted learns them again and one the companion stopped talking to lets them expire.
import type { Dispatcher } from 'undici';
import type { Unsubscribe } from '../events';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { httpUrlSchema, redactUrl } from '../url';
import type { IncidentUpdate } from './policy';
import { incidentText } from './policy-text';
import { postJson } from './sinks';
import type { AlertRules, Incident } from './types';

export interface AlertmanagerSinkOptions {
  dispatcher?: Dispatcher;
  clock?: Clock;
  logger?: Logger;
  /** A team's label (default: its id). */
  teamLabel?: (teamId: string) => string;
  /** Firing alerts are posted again this often. Default 60 000. */
  resendMs?: number;
  /** Per attempt. Default 5 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
}

/** One alert of Alertmanager's v2 API (postableAlert). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string;
}

/** What the sink reads from the monitor. */
export interface IncidentSource {
  on(event: 'incident', fn: (u: IncidentUpdate) => void): Unsubscribe;
  incidents(): Incident[];
  rules(): AlertRules;
}

const ALERTNAME: Record<string, string> = {
  'needs-scan': 'ChannelNeedsScan',
  reconnecting: 'ChannelReconnecting',
  flapping: 'ChannelFlapping',
  unreachable: 'ChannelAgentUnreachable',
  'key-rejected': 'ChannelApiKeyRejected',
};

/** Alertmanager's labels for an incident: the same incident state always gives the same set. */
export function alertmanagerLabels(i: Incident, team: string): Record<string, string> {
  const teamWide = i.agentId === null;
  const labels: Record<string, string> = {
    alertname: teamWide && i.kind === 'unreachable' ? 'ChannelServiceUnreachable' : (ALERTNAME[i.kind] ?? 'ChannelIncident'),
    team,
    kind: i.kind,
    severity: i.kind === 'needs-scan' || teamWide ? 'critical' : 'warning',
    source: 'channel-companion',
  };
  if (i.agentId !== null) labels['agent'] = i.agentId;
  return labels;
}

export class AlertmanagerSink {
  /** POST target: <base>/api/v2/alerts. */
  readonly endpoint: string;
  /** The endpoint without anything secret-looking — safe to show. */
  readonly target: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly label: (teamId: string) => string;
  private readonly resendMs: number;
  private readonly firing = new Map<string, PostableAlert>();
  private chain: Promise<unknown> = Promise.resolve();
  private timer: unknown = null;
  private rules: () => Pick<AlertRules, 'flapCount' | 'flapWindowMinutes'> = () => ({ flapCount: 3, flapWindowMinutes: 10 });

  constructor(
    baseUrl: string,
    private readonly opts: AlertmanagerSinkOptions = {},
  ) {
    const parsed = httpUrlSchema.safeParse(baseUrl);
    if (!parsed.success) throw new RangeError(`The Alertmanager URL ${parsed.error.issues[0]?.message ?? 'must be an http(s) URL'}.`);
    const base = new URL(parsed.data);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    base.search = '';
    base.hash = '';
    this.endpoint = new URL('api/v2/alerts', base).toString();
    this.target = redactUrl(this.endpoint);
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? silentLogger;
    this.label = opts.teamLabel ?? ((id) => id);
    this.resendMs = Math.max(1000, opts.resendMs ?? 60_000);
  }

  /** Follows a monitor: its raised incidents now, then every update; resends on a timer. */
  attach(monitor: IncidentSource): Unsubscribe {
    this.rules = () => monitor.rules();
    for (const i of monitor.incidents()) this.update({ change: 'opened', incident: i });
    const off = monitor.on('incident', (u) => this.update(u));
    this.schedule();
    return () => {
      off();
      if (this.timer !== null) this.clock.clearTimeout(this.timer);
      this.timer = null;
    };
  }

  /** An incident changed: fire it (once raised), re-label it, or resolve it. */
  update(u: IncidentUpdate): void {
    const i = u.incident;
    const before = this.firing.get(i.id);
    const now = this.clock.now();
    if (u.change === 'resolved' || i.resolvedAt !== null) {
      if (!before) return;
      this.firing.delete(i.id);
      this.post([{ ...before, endsAt: new Date(i.resolvedAt ?? now).toISOString() }]);
      return;
    }
    if (!i.raised) return; // tracked only (a pairing started on purpose): nothing to page about
    const alert = this.toAlert(i);
    const out: PostableAlert[] = [];
    // A new kind is a new alert in Alertmanager's eyes: the old one resolves.
    if (before && before.labels['alertname'] !== alert.labels['alertname']) out.push({ ...before, endsAt: new Date(now).toISOString() });
    else if (before && JSON.stringify(before) === JSON.stringify(alert)) return;
    this.firing.set(i.id, alert);
    out.push(this.live(alert, now));
    this.post(out);
  }

  /** Waits for the posts under way. */
  async flush(): Promise<void> {
    await this.chain;
  }

  private toAlert(i: Incident): PostableAlert {
    const team = this.label(i.teamId);
    const t = incidentText(i, this.rules(), team);
    return {
      labels: alertmanagerLabels(i, team),
      annotations: { summary: t.title, description: t.body, incident_id: i.id, team_id: i.teamId },
      startsAt: new Date(i.openedAt).toISOString(),
    };
  }

  /** A firing alert with endsAt a few resends ahead. */
  private live(a: PostableAlert, now: number): PostableAlert {
    return { ...a, endsAt: new Date(now + 4 * this.resendMs).toISOString() };
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      const now = this.clock.now();
      if (this.firing.size > 0) this.post([...this.firing.values()].map((a) => this.live(a, now)));
      this.schedule();
    }, this.resendMs);
  }

  /** Posts in order (a resolve never overtakes its firing); a failure is logged, never thrown. */
  private post(alerts: PostableAlert[]): void {
    const body = JSON.stringify(alerts);
    this.chain = this.chain.then(async () => {
      const ok = await postJson(this.endpoint, body, { clock: this.clock, dispatcher: this.opts.dispatcher, timeoutMs: this.opts.timeoutMs, retries: this.opts.retries });
      if (!ok) this.log.warn('Alertmanager did not take the alerts', { target: this.target, count: alerts.length });
    });
  }
}
