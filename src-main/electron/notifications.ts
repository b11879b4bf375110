// Native notifications from the alert stream. An event the monitor's alert policy told the person
// about (`notify`) shows one, replacing the incident's previous one: urgent → critical and kept on
// screen until it is dealt with. When the incident resolves (or is acknowledged) its notification
// closes itself; a recovery notice shows as a quiet one. A click opens the agent's page (pairing
// when a scan is needed).
import type { AlertEventDTO, IncidentDTO } from '../../src-shared/contract';
import { agentRoute } from './tray-model';

export interface NotificationLike {
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

/** @internal Exported for tests. */
export function notificationOptions(i: IncidentDTO): NotificationOptionsLike {
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

export function createAlertNotifier(deps: NotifierDeps) {
  // The notification on screen per incident. Kept referenced until it goes away, or it could be
  // garbage-collected with its click handler.
  const live = new Map<string, NotificationLike>();
  const close = (incidentId: string): void => {
    const n = live.get(incidentId);
    live.delete(incidentId);
    n?.close();
  };
  return {
    live,
    handle(event: AlertEventDTO): void {
      const { incident } = event;
      const over = event.change === 'resolved' || incident.acknowledgedAt !== null;
      if (over) close(incident.id);
      if (!event.notify || (incident.acknowledgedAt !== null && event.change !== 'resolved')) return;
      if (!deps.enabled() || !deps.Notification.isSupported()) return;
      close(incident.id);
      const n = new deps.Notification(notificationOptions(incident));
      live.set(incident.id, n);
      n.on('click', () => {
        if (live.get(incident.id) === n) live.delete(incident.id);
        deps.openRoute(routeForIncident(incident));
      });
      n.on('close', () => {
        if (live.get(incident.id) === n) live.delete(incident.id);
      });
      n.show();
    },
  };
}
