// Shared fixtures for the Electron shell's tests: an agent, the tray's state, and a Notification
// class that records the notifications shown.
import type { TrayState } from '../../../src-main/electron/tray-model';
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
  };
}

export const trayState = (agents: AgentDTO[], extra: Partial<TrayState> = {}): TrayState => ({
  agents,
  alerts: { snoozedUntil: null, quietHours: { enabled: false, start: '22:00', end: '07:00' } },
  startAtLogin: false,
  openIncidents: 0,
  unread: 0,
  ...extra,
});

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
