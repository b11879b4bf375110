// Monitor incidents and alerts → the contract's IncidentDTOs and 'alert' events, and the alerts.*
// requests. The monitor emits an incident update and then, in the same synchronous step, the alert
// that words it; updates are therefore collected and published on the next microtask, with the
// words of the alert when there was one (each part of a grouped alert words its own incident), and
// `notify` set when an alert about the incident reached the person in that step, and that alert's
// `notice` (one alert of an incident group tells of all of them: each of its events carries the same
// notice, which a notification shows once). The words of an
// incident are the monitor's (IncidentWords: its last alert's, or incidentText while none reached
// the person), the same ones Alertmanager's annotations carry. Each resolved incident is kept, with
// those words, in the incident history (alerts.history).
import {
  incidentDurationMs,
  IncidentWords,
  type Alert,
  type Incident,
  type IncidentHistory,
  type IncidentUpdate,
} from '../../core/monitor';
import type {
  AlertEventDTO,
  AlertNoticeDTO,
  AlertStatusDTO,
  IncidentDTO,
  IncidentSeverity,
} from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import { snoozeAlerts } from '../usecases/monitor';
import type { Scope } from './scope';

/** Kinds that turn urgent once open longer than escalateAfterMin. */
const ESCALATING = new Set(['needs-scan', 'unreachable', 'key-rejected']);

export interface FeedSettings {
  escalateAfterMin: number;
  flapCount: number;
  flapWindowMinutes: number;
}

export class IncidentFeed {
  private readonly words = new IncidentWords();
  private pending: IncidentUpdate[] = [];
  /** Incidents an alert reached the person about, in this step, and that alert's notice. */
  private readonly told = new Map<string, AlertNoticeDTO>();
  /** Incidents an alert reached the person about, ever (until resolved), and their last severity. */
  private readonly severity = new Map<string, IncidentSeverity>();
  private scheduled = false;
  private readonly open = new Map<string, Incident>();

  constructor(
    private readonly publish: (e: AlertEventDTO) => void,
    private readonly now: () => number,
    private readonly settings: () => FeedSettings,
    private readonly teamLabel: (teamId: string) => string = (id) => id,
    /** Keeps each resolved incident, with its last words, in the history. */
    private readonly history: IncidentHistory | null = null,
  ) {}

  onIncident(u: IncidentUpdate): void {
    if (u.change === 'resolved') this.open.delete(u.incident.id);
    else this.open.set(u.incident.id, u.incident);
    this.pending.push(u);
    this.schedule();
  }

  onAlert(a: Alert): void {
    const ids = this.words.record(a);
    const notice = noticeOf(a, ids);
    for (const id of ids) {
      this.told.set(id, notice);
      // An alert about an incident that did not change in this step (a re-alert, a summary):
      // publish it as an update so the in-app list shows the newest words.
      const inc = this.open.get(id);
      if (inc && !this.pending.some((u) => u.incident.id === id))
        this.pending.push({ change: 'updated', incident: inc });
    }
    if (ids.length > 0) this.schedule();
  }

  toDTO(i: Incident): IncidentDTO {
    const settings = this.settings();
    const w = this.words.of(i, settings, this.teamLabel(i.teamId));
    const overdue =
      ESCALATING.has(i.kind) && i.resolvedAt === null && this.now() - i.openedAt >= settings.escalateAfterMin * 60_000;
    const severity: IncidentSeverity = w.urgent || overdue ? 'urgent' : 'warning';
    return {
      id: i.id,
      teamId: i.teamId,
      agentId: i.agentId ?? i.agentIds[0] ?? '',
      ...(i.agentId === null ? { teamWide: true } : {}),
      kind: i.kind,
      severity,
      title: w.title,
      message: w.body,
      openedAt: i.openedAt,
      acknowledgedAt: i.acknowledgedAt,
      ...(i.acknowledgedBy !== undefined ? { acknowledgedBy: i.acknowledgedBy } : {}),
      resolvedAt: i.resolvedAt,
      endedAt: i.resolvedAt === null ? null : (i.endedAt ?? i.resolvedAt),
      durationMs: incidentDurationMs(i),
      ...(i.removed ? { removed: true as const } : {}),
      ...(i.group !== undefined ? { group: i.group } : {}),
    };
  }

  /** Publishes what is pending now (tests; also run on the microtask). */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    for (const u of batch) {
      const id = u.incident.id;
      const dto = this.toDTO(u.incident);
      const notice = this.told.get(id);
      const told = notice !== undefined;
      const before = this.severity.get(id);
      const escalated =
        before !== undefined && before !== 'urgent' && dto.severity === 'urgent' && dto.acknowledgedAt === null;
      this.publish({
        change: u.change,
        incident: dto,
        notify: told || (u.change !== 'resolved' && escalated),
        ...(notice ? { notice } : {}),
      });
      if (u.change === 'resolved') {
        this.keep(dto);
        this.words.forget(id);
        this.severity.delete(id);
      } else if (told || before !== undefined) this.severity.set(id, dto.severity);
    }
    this.told.clear();
  }

  private keep(dto: IncidentDTO): void {
    if (this.history === null) return;
    const { acknowledgedAt, teamWide, removed, endedAt, durationMs, ...rest } = dto;
    const resolvedAt = dto.resolvedAt ?? this.now();
    this.history.add({
      ...rest,
      acknowledgedAt,
      resolvedAt,
      endedAt: endedAt ?? resolvedAt,
      durationMs: durationMs ?? resolvedAt - dto.openedAt,
      ...(teamWide ? { teamWide } : {}),
      ...(removed ? { removed } : {}),
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }
}

/** An alert as a notification shows it (`ids`: the incidents it tells of). */
function noticeOf(a: Alert, ids: string[]): AlertNoticeDTO {
  const parts = a.parts ?? [a];
  const resolved = parts.every((p) => p.kind === 'recovered');
  const key = a.group ?? a.incidentId ?? a.id;
  return {
    id: a.id,
    // A recovery notice never takes the place of the notification of the group's other incidents.
    key: resolved ? `${key}/resolved` : key,
    title: a.title,
    body: a.body,
    urgent: a.urgent,
    resolved,
    several: ids.length > 1 || a.kind === 'grouped',
  };
}

type AlertRequests = Pick<
  Implementations,
  | 'alerts.list'
  | 'alerts.history'
  | 'alerts.status'
  | 'alerts.acknowledge'
  | 'alerts.acknowledgeAll'
  | 'alerts.snooze'
  | 'alerts.unsnooze'
  | 'alerts.setQuietHours'
>;

export function alertRequests({ c }: Scope, feed: IncidentFeed, history: IncidentHistory): AlertRequests {
  const status = (): AlertStatusDTO => {
    const s = c.monitor().status();
    // Quiet hours switched off still show the hours they would have (remembered in the preferences).
    const q = s.quietHours ?? c.settings().prefs.quietHours;
    const by = c.alertsPostedElsewhere();
    return {
      snoozedUntil: s.snoozedUntil,
      quietHours: { enabled: s.quietHours !== null, start: q.start, end: q.end },
      alertsPostedBy: by && { pid: by.pid, since: by.since },
    };
  };
  return {
    'alerts.list': async () =>
      c
        .monitor()
        .incidents()
        .sort((a, b) => b.openedAt - a.openedAt)
        .map((i) => feed.toDTO(i)),
    'alerts.history': async ({ teamId, agentId, kind, limit }) =>
      history.list({ teamId, agentId, kind, limit: limit ?? 1000 }).map((r) => ({
        ...r,
        // Kept before the end and the length were: the length reads as the time until it closed.
        endedAt: r.endedAt ?? r.resolvedAt,
        durationMs: r.durationMs ?? r.resolvedAt - r.openedAt,
      })),
    'alerts.status': async () => status(),
    'alerts.acknowledge': async ({ incidentId }) => {
      if (c.monitor().acknowledge(incidentId) === 0)
        throw new AppError('not-found', 'NO_INCIDENT', 'No open incident with that id (it may have been resolved).');
      return null;
    },
    'alerts.acknowledgeAll': async () => ({ count: c.monitor().acknowledgeAll() }),
    // Notifications pause; monitoring itself keeps running.
    'alerts.snooze': async (spec) => {
      snoozeAlerts(c.monitor(), spec);
      return status();
    },
    'alerts.unsnooze': async () => {
      c.monitor().snooze(null);
      return status();
    },
    'alerts.setQuietHours': async (q) => {
      const hours = { start: q.start, end: q.end };
      c.monitor().setQuietHours(q.enabled ? hours : null);
      // Saved in the background: the monitor already applies them; a failed save is logged.
      void c
        .updateSettings({ app: { alertRules: { quietHours: q.enabled ? hours : null } }, prefs: { quietHours: hours } })
        .catch((e: unknown) =>
          c.logger.warn('app: quiet hours not saved', { error: e instanceof Error ? e.message : String(e) }),
        );
      return status();
    },
  };
}
