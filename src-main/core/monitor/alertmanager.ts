// Alertmanager sink: every incident the alert policy raises is posted to Alertmanager's v2 API
// (POST /api/v2/alerts) as a firing alert, and as resolved when it closes, with stable labels
// (alertname, team, agent, severity, kind) so Alertmanager groups, dedupes, silences and routes it;
// `incident_group` names the incident group it was raised in (incidents of one kind raised together),
// so a route grouping by it sends one notification for "20 agents need a QR scan".
// Alertmanager, not the companion, then decides who hears about it: the companion's snooze and
// quiet hours do not apply here (silence in Alertmanager instead). Firing alerts are posted again
// every resendMs with endsAt a few resends ahead, as Prometheus does, so an Alertmanager that
// restarted learns them again and one the companion stopped talking to lets them expire. A post
// Alertmanager does not take is tried again at once with backoff (AM_RETRY), posts staying in
// order, a firing alert's endsAt reckoned when it is sent; one refused as bad (4xx) is dropped.
import type { Dispatcher } from 'undici';
import { backoffDelay, type BackoffPolicy } from '../backoff';
import type { Unsubscribe } from '../events';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { httpUrlSchema, redactUrl } from '../url';
import type { IncidentUpdate } from './policy';
import { postOnce } from './sinks';
import type { Alert, AlertRules, Incident } from './types';
import { IncidentWords } from './words';

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
  /**
   * Whether to post now (default: always). While it says no, incidents are still followed and posts
   * are dropped; the resend posts every firing alert once it says yes again.
   */
  active?: () => boolean;
}

/** Waits before trying a post again: 1 s doubling to 30 s, exact. */
const AM_RETRY: BackoffPolicy = { baseMs: 1000, maxMs: 30_000, jitter: 0 };
/** Posts kept while Alertmanager does not take them; past this the oldest go. */
const MAX_QUEUED = 200;
/** Alerts waiting to be posted go together, this many at most in one post. */
const MAX_ALERTS_PER_POST = 500;

/** One post: its alerts, and which of them fire (their endsAt is set when sent). */
interface Post {
  alerts: Array<{ alert: PostableAlert; firing: boolean }>;
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
  on(event: 'alert', fn: (a: Alert) => void): Unsubscribe;
  on(event: 'released', fn: (t: { teamId: string; agentId: string }) => void): Unsubscribe;
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
function alertmanagerLabels(i: Incident, team: string): Record<string, string> {
  const teamWide = i.agentId === null;
  const labels: Record<string, string> = {
    alertname:
      teamWide && i.kind === 'unreachable' ? 'ChannelServiceUnreachable' : (ALERTNAME[i.kind] ?? 'ChannelIncident'),
    team,
    kind: i.kind,
    severity: i.kind === 'needs-scan' || teamWide ? 'critical' : 'warning',
    source: 'channel-companion',
  };
  if (i.agentId !== null) labels['agent'] = i.agentId;
  labels['incident_group'] = i.group ?? i.id;
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
  private readonly words = new IncidentWords();
  private readonly queue: Post[] = [];
  private sending: Promise<void> | null = null;
  private retryTimer: unknown = null;
  private failures = 0;
  private timer: unknown = null;
  private rules: () => Pick<AlertRules, 'flapCount' | 'flapWindowMinutes'> = () => ({
    flapCount: 3,
    flapWindowMinutes: 10,
  });

  constructor(
    baseUrl: string,
    private readonly opts: AlertmanagerSinkOptions = {},
  ) {
    const parsed = httpUrlSchema.safeParse(baseUrl);
    if (!parsed.success)
      throw new RangeError(`The Alertmanager URL ${parsed.error.issues[0]?.message ?? 'must be an http(s) URL'}.`);
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
    // The monitor emits an incident's update, then the alert that words it: the update is taken up
    // once the step is over, with the alert's words.
    const offIncident = monitor.on('incident', (u) => queueMicrotask(() => this.update(u)));
    const offAlert = monitor.on('alert', (a) => void this.words.record(a));
    // Another watcher polls the agent now: it posts (and resolves) the agent's alert from here on.
    const offReleased = monitor.on('released', (t) => {
      for (const [id, a] of this.firing)
        if (a.annotations['team_id'] === t.teamId && a.labels['agent'] === t.agentId) this.firing.delete(id);
    });
    this.schedule();
    return () => {
      offIncident();
      offAlert();
      offReleased();
      if (this.timer !== null) this.clock.clearTimeout(this.timer);
      if (this.retryTimer !== null) this.clock.clearTimeout(this.retryTimer);
      this.timer = this.retryTimer = null;
    };
  }

  /** An incident changed: fire it (once raised), re-label it, or resolve it. */
  update(u: IncidentUpdate): void {
    const i = u.incident;
    const before = this.firing.get(i.id);
    const now = this.clock.now();
    if (u.change === 'resolved' || i.resolvedAt !== null) {
      this.words.forget(i.id);
      if (!before) return;
      this.firing.delete(i.id);
      // Ends at the incident's end, so Alertmanager's length is the incident's one length.
      const endsAt = new Date(i.endedAt ?? i.resolvedAt ?? now).toISOString();
      this.post([{ alert: { ...before, endsAt }, firing: false }]);
      return;
    }
    if (!i.raised) return; // tracked only (a pairing started on purpose): nothing to page about
    const alert = this.toAlert(i);
    const out: Post['alerts'] = [];
    // New labels (a new kind, a new group) are a new alert in Alertmanager's eyes: the old one resolves.
    if (before && JSON.stringify(before.labels) !== JSON.stringify(alert.labels))
      out.push({ alert: { ...before, endsAt: new Date(now).toISOString() }, firing: false });
    else if (before && JSON.stringify(before) === JSON.stringify(alert)) return;
    this.firing.set(i.id, alert);
    out.push({ alert, firing: true });
    this.post(out);
  }

  /**
   * This app took over posting the alerts from another app on the data folder: Alertmanager hears at
   * once what fires here (not at the next resend), and that the other app's incidents this app sees
   * recovered are resolved (their alerts would fire on until their endsAt).
   */
  takeOver(recovered: Incident[]): void {
    const ended = new Date(this.clock.now()).toISOString();
    const alerts: Post['alerts'] = recovered.map((i) => ({
      alert: { ...this.toAlert(i), endsAt: ended },
      firing: false,
    }));
    for (const alert of this.firing.values()) alerts.push({ alert, firing: true });
    if (alerts.length > 0) this.post(alerts);
  }

  /** Waits for the post under way (not for one waiting to be tried again). */
  async flush(): Promise<void> {
    await Promise.resolve(); // the updates taken up at the end of the step
    while (this.sending) await this.sending;
  }

  private toAlert(i: Incident): PostableAlert {
    const team = this.label(i.teamId);
    const t = this.words.of(i, this.rules(), team);
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

  /** The resend: every firing alert again (while posts wait to be tried again, they go first and this one waits). */
  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      if (this.firing.size > 0 && this.queue.length === 0)
        this.post([...this.firing.values()].map((alert) => ({ alert, firing: true })));
      this.schedule();
    }, this.resendMs);
  }

  /**
   * Queues a post; posts go one at a time in order (a resolve never overtakes its firing). Alerts
   * queued while a post is under way join the one waiting behind it (the incidents of a group go together).
   */
  private post(alerts: Post['alerts']): void {
    if (this.opts.active && !this.opts.active()) return;
    const tail = this.queue.at(-1);
    if (tail && tail !== this.queue[0] && tail.alerts.length + alerts.length <= MAX_ALERTS_PER_POST) {
      tail.alerts.push(...alerts);
      return;
    }
    this.queue.push({ alerts });
    if (this.queue.length > MAX_QUEUED) {
      this.queue.splice(0, this.queue.length - MAX_QUEUED);
      this.log.warn('Alertmanager posts dropped while it did not answer', { target: this.target });
    }
    this.drain();
  }

  private drain(): void {
    if (this.sending !== null || this.retryTimer !== null || this.queue.length === 0) return;
    const head = this.queue[0]!;
    this.sending = this.send(head).finally(() => {
      this.sending = null;
      this.drain();
    });
  }

  /** One attempt at the first post: taken or refused → the next; otherwise tried again after a backoff. */
  private async send(head: Post): Promise<void> {
    const now = this.clock.now();
    const body = JSON.stringify(head.alerts.map((a) => (a.firing ? this.live(a.alert, now) : a.alert)));
    const outcome = await postOnce(this.endpoint, body, this.clock, {
      dispatcher: this.opts.dispatcher,
      timeoutMs: this.opts.timeoutMs,
    });
    if (outcome === 'retry') {
      this.failures++;
      const wait = backoffDelay(AM_RETRY, this.failures);
      this.log.warn('Alertmanager did not take the alerts; trying again', {
        target: this.target,
        count: head.alerts.length,
        inMs: wait,
      });
      this.retryTimer = this.clock.setTimeout(() => {
        this.retryTimer = null;
        this.drain();
      }, wait);
      return;
    }
    if (outcome === 'give-up')
      this.log.warn('Alertmanager refused the alerts', { target: this.target, count: head.alerts.length });
    this.failures = 0;
    if (this.queue[0] === head) this.queue.shift();
  }
}
