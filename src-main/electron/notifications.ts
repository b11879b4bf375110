// Native notifications from the alert stream: one per newly opened (or escalated-to-urgent)
// incident; urgent → critical urgency; a click opens the agent's page (pairing when a scan is needed).
import type { AlertEventDTO, IncidentDTO } from '../../src-shared/contract';
import { agentRoute } from './tray-model';

export interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
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

export function routeForIncident(i: IncidentDTO): string {
  return agentRoute(i.teamId, i.agentId, i.kind === 'needs-scan');
}

export function notificationOptions(i: IncidentDTO): NotificationOptionsLike {
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
  // Keep references until the notification goes away, or it can be garbage-collected with its click handler.
  const live = new Set<NotificationLike>();
  const lastSeverity = new Map<string, IncidentDTO['severity']>();
  return {
    live,
    handle(event: AlertEventDTO): void {
      const { incident } = event;
      const previous = lastSeverity.get(incident.id);
      if (event.change === 'resolved') {
        lastSeverity.delete(incident.id);
        return;
      }
      lastSeverity.set(incident.id, incident.severity);
      const escalated = event.change === 'updated' && incident.severity === 'urgent' && previous !== 'urgent';
      if (event.change !== 'opened' && !escalated) return;
      if (incident.acknowledgedAt !== null || !deps.enabled() || !deps.Notification.isSupported()) return;
      const n = new deps.Notification(notificationOptions(incident));
      live.add(n);
      n.on('click', () => {
        live.delete(n);
        deps.openRoute(routeForIncident(incident));
      });
      n.on('close', () => live.delete(n));
      n.show();
    },
  };
}
