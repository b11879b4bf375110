// Browser Notifications for alert events (the browser host only; Electron's main process shows
// native ones). Permission is asked only from a user gesture (the "Enable" button). An alert about an
// incident group ("20 agents need a QR scan") shows once, though each of its incidents has an event;
// a notice replaces the browser's notification with the same tag (its key).
import type { AlertEventDTO, Api } from '../../../../src-shared/contract';
import { agentHref } from '../../router/routes';
import type { AppStore } from '../../store';
import { agentKey } from '../../store/env';
import { inQuietHours, isSnoozed } from './quietHours';

interface NotificationLike {
  onclick: ((this: NotificationLike, ev: Event) => unknown) | null;
  close(): void;
}
export interface NotificationCtor {
  new (title: string, options?: { body?: string; tag?: string }): NotificationLike;
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
}

export function notificationCtor(): NotificationCtor | null {
  return typeof window !== 'undefined' && 'Notification' in window
    ? (window.Notification as unknown as NotificationCtor)
    : null;
}

function shouldNotify(store: AppStore, e: AlertEventDTO, now: Date, ctor: NotificationCtor | null): boolean {
  if (!ctor || ctor.permission !== 'granted') return false;
  if (!e.notify || e.change === 'resolved') return false;
  const s = store.getState();
  if (s.settings && !s.settings.notifications) return false;
  if (isSnoozed(s.alertStatus, now.getTime())) return false;
  if (s.alertStatus && inQuietHours(s.alertStatus.quietHours, now) && e.incident.severity !== 'urgent') return false;
  return true;
}

export function connectBrowserNotifications(
  store: AppStore,
  api: Api,
  env: { ctor: NotificationCtor | null; now(): Date; focus(): void },
): () => void {
  /** The notice shown last: every event of one alert carries it. */
  let lastNotice: string | null = null;
  return api.on('alert', (e) => {
    if (!shouldNotify(store, e, env.now(), env.ctor)) return;
    const notice = e.notice;
    if (notice && notice.id === lastNotice) return;
    lastNotice = notice?.id ?? null;
    const label = store.getState().agents[agentKey(e.incident.teamId, e.incident.agentId)]?.label ?? e.incident.agentId;
    const n = notice?.several
      ? new env.ctor!(notice.title, { body: notice.body, tag: notice.key })
      : new env.ctor!(`${label}: ${e.incident.title}`, { body: e.incident.message, tag: notice?.key ?? e.incident.id });
    n.onclick = () => {
      env.focus();
      store.getState().setRoute(notice?.several ? '#/alerts' : agentHref(e.incident.teamId, e.incident.agentId));
      n.close();
    };
  });
}
