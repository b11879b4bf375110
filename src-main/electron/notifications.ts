// Native notifications from the alert stream and of new messages. An event the monitor's alert
// policy told the person about (`notify`) shows one, replacing the incident's previous one: urgent →
// critical and kept on screen until it is dealt with. When the incident resolves (or is
// acknowledged) its notification closes itself; a recovery notice shows as a quiet one. A click
// opens the agent's page (pairing when a scan is needed). A new-message notice (the core's notify
// policy decided it) shows one per conversation, replaced by the next of the same conversation and
// closed when it is read; a click opens the thread. While the screen is locked the message
// notifications on screen lose their text.
import type { AlertEventDTO, IncidentDTO, MessageNoticeDTO } from '../../src-shared/contract';
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
  return {
    live: shown.live,
    handle(event: AlertEventDTO): void {
      const { incident } = event;
      const over = event.change === 'resolved' || incident.acknowledgedAt !== null;
      if (over) shown.close(incident.id);
      if (!event.notify || (incident.acknowledgedAt !== null && event.change !== 'resolved')) return;
      if (!deps.enabled() || !deps.Notification.isSupported()) return;
      shown.show(incident.id, notificationOptions(incident), routeForIncident(incident));
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
