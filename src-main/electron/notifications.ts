// Native notifications from the alert stream and of new messages. An alert the monitor's alert
// policy told the person about shows one (its `notice`, once, though every incident it tells of has
// an event): an incident group's ("20 agents need a QR scan") or a lone incident's, replacing the one
// on screen with the same key: urgent → critical and kept on screen until it is dealt with. Each
// incident is on one notification at a time; once every incident on it is resolved or acknowledged,
// the notification closes itself; a recovery notice shows as a quiet one. A click opens the agent's
// page (pairing when a scan is needed), or the Alerts screen for a notice about several incidents. A new-message notice (the core's notify
// policy decided it) shows one per conversation, replaced by the next of the same conversation and
// closed when it is read; a click opens the thread. While the screen is locked the message
// notifications on screen lose their text.
import type { AlertEventDTO, AlertNoticeDTO, IncidentDTO, MessageNoticeDTO } from '../../src-shared/contract';
import { agentRoute } from './tray-model';

interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
  close(): void;
}

export interface NotificationOptionsLike {
  title: string;
  body: string;
  urgency: 'normal' | 'critical' | 'low';
  silent: boolean;
  timeoutType: 'default' | 'never';
}

export interface NotifierDeps {
  Notification: (new (options: NotificationOptionsLike) => NotificationLike) & { isSupported(): boolean };
  /** Reveals the window on a route. */
  openRoute(route: string): void;
  /** Whether the user wants notifications at all (app settings). Snooze/quiet hours are the monitor's. */
  enabled(): boolean;
}

function routeForIncident(i: IncidentDTO): string {
  return agentRoute(i.teamId, i.agentId, i.kind === 'needs-scan');
}

function notificationOptions(i: IncidentDTO): NotificationOptionsLike {
  if (i.resolvedAt !== null)
    return { title: i.title, body: i.message, urgency: 'low', silent: true, timeoutType: 'default' };
  const urgent = i.severity === 'urgent';
  return {
    title: i.title,
    body: i.message,
    urgency: urgent ? 'critical' : i.severity === 'info' ? 'low' : 'normal',
    silent: i.severity === 'info',
    timeoutType: urgent ? 'never' : 'default',
  };
}

function noticeOptions(n: AlertNoticeDTO): NotificationOptionsLike {
  if (n.resolved) return { title: n.title, body: n.body, urgency: 'low', silent: true, timeoutType: 'default' };
  return {
    title: n.title,
    body: n.body,
    urgency: n.urgent ? 'critical' : 'normal',
    silent: false,
    timeoutType: n.urgent ? 'never' : 'default',
  };
}

/**
 * Notifications on screen by key (an incident, a conversation): showing one for a key replaces the
 * one before. Kept referenced until they go away, or they could be garbage-collected with their
 * click handlers.
 */
function keyedNotifications(deps: Pick<NotifierDeps, 'Notification' | 'openRoute'>) {
  const live = new Map<string, NotificationLike>();
  const close = (key: string): void => {
    const n = live.get(key);
    live.delete(key);
    n?.close();
  };
  const show = (key: string, options: NotificationOptionsLike, route: string): void => {
    close(key);
    const n = new deps.Notification(options);
    live.set(key, n);
    n.on('click', () => {
      if (live.get(key) === n) live.delete(key);
      deps.openRoute(route);
    });
    n.on('close', () => {
      if (live.get(key) === n) live.delete(key);
    });
    n.show();
  };
  return { live, close, show };
}

export function createAlertNotifier(deps: NotifierDeps) {
  const shown = keyedNotifications(deps);
  /** The key of the notification each open incident is on, and the incidents on each key. */
  const keyOf = new Map<string, string>();
  const onKey = new Map<string, Set<string>>();
  /** The notice each key shows now (its id). */
  const showing = new Map<string, string>();
  const closeKey = (key: string): void => {
    onKey.delete(key);
    showing.delete(key);
    shown.close(key);
  };
  /** The incident leaves its notification, which closes once no open incident is on it. */
  const detach = (incidentId: string): void => {
    const key = keyOf.get(incidentId);
    if (key === undefined) return;
    keyOf.delete(incidentId);
    const on = onKey.get(key);
    on?.delete(incidentId);
    if (!on || on.size === 0) closeKey(key);
  };
  const attach = (incidentId: string, key: string): void => {
    if (keyOf.get(incidentId) === key) return;
    detach(incidentId);
    keyOf.set(incidentId, key);
    const on = onKey.get(key) ?? new Set<string>();
    on.add(incidentId);
    onKey.set(key, on);
  };
  return {
    live: shown.live,
    handle(event: AlertEventDTO): void {
      const { incident, notice } = event;
      const over = event.change === 'resolved' || incident.acknowledgedAt !== null;
      if (over) {
        detach(incident.id);
        shown.close(incident.id);
      }
      if (!event.notify || (incident.acknowledgedAt !== null && event.change !== 'resolved')) return;
      if (!deps.enabled() || !deps.Notification.isSupported()) return;
      const key = notice?.key ?? incident.id;
      if (!notice) shown.show(key, notificationOptions(incident), routeForIncident(incident));
      else if (showing.get(key) !== notice.id || !shown.live.has(key)) {
        // Every event of one alert carries its notice: shown once.
        shown.show(key, noticeOptions(notice), notice.several ? '#/alerts' : routeForIncident(incident));
        showing.set(key, notice.id);
      }
      if (!over) attach(incident.id, key);
    },
  };
}

type MessageShow = Extract<MessageNoticeDTO, { kind: 'show' }>;

const messageOptions = (m: MessageShow, body: string, silent: boolean): NotificationOptionsLike => ({
  title: m.title,
  body,
  urgency: 'normal',
  silent,
  timeoutType: 'default',
});

/** New-message notices (whether one shows at all is the core's notify policy's decision). */
export function createMessageNotifier(deps: Pick<NotifierDeps, 'Notification' | 'openRoute'>) {
  const shown = keyedNotifications(deps);
  /** The notice each conversation's notification shows. */
  const notices = new Map<string, MessageShow>();
  return {
    live: shown.live,
    handle(notice: MessageNoticeDTO): void {
      if (notice.kind === 'clear') {
        notices.delete(notice.group);
        shown.close(notice.group);
        return;
      }
      if (!deps.Notification.isSupported()) return;
      notices.set(notice.group, notice);
      shown.show(notice.group, messageOptions(notice, notice.body, notice.silent), notice.route);
    },
    /** The screen locked: notifications on screen that show a message's text show it no more. */
    screenLocked(): void {
      for (const [group, n] of notices) {
        if (!shown.live.has(group)) notices.delete(group);
        else if (n.body !== n.privateBody) {
          const hidden = { ...n, body: n.privateBody };
          notices.set(group, hidden);
          shown.show(group, messageOptions(hidden, hidden.body, true), n.route);
        }
      }
    },
  };
}
