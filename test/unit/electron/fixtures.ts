// Shared fixtures for the Electron shell's tests: an agent, the tray's state, a tray controller over
// a recording Tray, and a Notification class that records the notifications shown.
import { vi } from 'vitest';
import { createTray } from '../../../src-main/electron/tray';
import type { TrayAction, TrayState } from '../../../src-main/electron/tray-model';
import type { AgentDTO, Health } from '../../../src-shared/contract';
import { NOW } from '../contract/fake-contract';

export function agent(agentId: string, health: Health = 'connected', label = agentId): AgentDTO {
  return {
    teamId: 't1',
    agentId,
    label,
    health: {
      teamId: 't1',
      agentId,
      health,
      state: null,
      phone: null,
      needsScan: health === 'needs-scan',
      since: NOW,
      checkedAt: NOW,
    },
    watchClosely: false,
    labels: [],
  };
}

export const trayState = (agents: AgentDTO[], extra: Partial<TrayState> = {}): TrayState => ({
  agents,
  alerts: { snoozedUntil: null, quietHours: { enabled: false, start: '22:00', end: '07:00' }, alertsPostedBy: null },
  startAtLogin: false,
  openIncidents: 0,
  unread: 0,
  ...extra,
});

/**
 * The tray controller over a Tray that records its images, tooltip and menu (the template it built);
 * `badge` the counts set; the menu's clicks go to `dispatch`.
 */
export function recordingTray(initial: TrayState, dispatch: (a: TrayAction) => void = () => undefined) {
  const images: string[] = [];
  const badge: number[] = [];
  class FakeTray {
    tooltip = '';
    menu: unknown = null;
    constructor(img: { path: string }) {
      images.push(img.path);
      trays.push(this);
    }
    setImage = (img: { path: string }) => images.push(img.path);
    setToolTip = (t: string) => (this.tooltip = t);
    setContextMenu = (m: unknown) => (this.menu = m);
    on = vi.fn();
    destroy = vi.fn();
  }
  const trays: FakeTray[] = [];
  const ctl = createTray(
    {
      Tray: FakeTray as never,
      Menu: { buildFromTemplate: (t) => t },
      nativeImage: { createFromPath: (path) => ({ path }) },
      iconDir: '/icons',
      now: () => NOW,
      setBadgeCount: (n) => void badge.push(n),
    },
    initial,
    dispatch,
  );
  return { ctl, images, trays, badge };
}

/** A Notification class whose show() records it in `shown`; close() marks it closed and fires its 'close' listener. */
export function recordingNotifications<Options>() {
  const shown: FakeNotification[] = [];
  class FakeNotification {
    static isSupported = () => true;
    handlers = new Map<string, () => void>();
    closed = false;
    constructor(readonly options: Options) {}
    on(ev: string, l: () => void) {
      this.handlers.set(ev, l);
    }
    show() {
      shown.push(this);
    }
    close() {
      this.closed = true;
      this.handlers.get('close')?.();
    }
  }
  return { shown, Notification: FakeNotification };
}
