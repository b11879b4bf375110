// What the tray shows, as plain data (no Electron): icon state, tooltip, and menu lines, in the
// screens' words (src-shared/words).
import type { AgentDTO, AlertStatusDTO, Health } from '../../src-shared/contract';
import { counted, HEALTH_SHORT, healthCountsLine } from '../../src-shared/words';
import { worstHealth } from '../app/health';

const MARK: Record<Health, string> = {
  connected: '●',
  reconnecting: '◐',
  'needs-scan': '▲',
  unreachable: '✕',
  'not-found': '✕',
  'key-rejected': '▲',
  unknown: '○',
};

/** "5 unread messages" (null when there are none). */
function unreadWords(unread: number): string | null {
  return unread > 0 ? counted(unread, 'unread message') : null;
}

/**
 * The tooltip: "3 agents: 2 connected, 1 needs a QR scan" (the counts in the screens' order),
 * then the unread messages on a line of their own when there are any.
 */
export function traySummary(agents: readonly AgentDTO[], unread = 0): string {
  const words = unreadWords(unread);
  const health = healthSummary(agents);
  return words === null ? health : `${health}\n${words}`;
}

function healthSummary(agents: readonly AgentDTO[]): string {
  if (agents.length === 0) return 'Channel Companion: no agents yet';
  return healthCountsLine(agents.map((a) => a.health.health));
}

export interface TrayState {
  agents: AgentDTO[];
  alerts: AlertStatusDTO;
  startAtLogin: boolean;
  openIncidents: number;
  /** Unread inbound messages over every agent (the badge, the tooltip and the menu's Messages line). */
  unread: number;
}

/**
 * The icons drawn (build/tray/<state>.png). An agent the app cannot watch for a reason a person must
 * fix (the team's key rejected, an agent the service does not know) shows the unreachable icon.
 */
export type TrayIconState = Exclude<Health, 'key-rejected' | 'not-found'>;

export function trayIconState(agents: readonly AgentDTO[]): TrayIconState {
  const worst = worstHealth(agents.map((a) => a.health.health));
  return worst === 'key-rejected' || worst === 'not-found' ? 'unreachable' : worst;
}

export type TrayAction =
  | { type: 'open-agent'; teamId: string; agentId: string; needsScan: boolean }
  | { type: 'acknowledge-all' }
  | { type: 'snooze'; minutes: number }
  | { type: 'snooze-tomorrow' }
  | { type: 'unsnooze' }
  | { type: 'open-window' }
  | { type: 'open-messages' }
  | { type: 'start-at-login'; enabled: boolean }
  | { type: 'quit' };

export type TrayMenuItem =
  | { kind: 'item'; label: string; action: TrayAction; enabled?: boolean }
  | { kind: 'checkbox'; label: string; checked: boolean; action: (checked: boolean) => TrayAction }
  | { kind: 'submenu'; label: string; items: TrayMenuItem[] }
  | { kind: 'separator' }
  | { kind: 'label'; label: string };

function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export function trayMenu(state: TrayState, now: number): TrayMenuItem[] {
  const items: TrayMenuItem[] = [];
  if (state.agents.length === 0) items.push({ kind: 'label', label: 'No agents yet — open the window to add a team' });
  for (const a of state.agents) {
    const h = a.health.health;
    items.push({
      kind: 'item',
      label: `${MARK[h]} ${a.label} — ${HEALTH_SHORT[h]}`,
      action: { type: 'open-agent', teamId: a.teamId, agentId: a.agentId, needsScan: h === 'needs-scan' },
    });
  }
  items.push({ kind: 'separator' });
  items.push({
    kind: 'item',
    label: state.unread > 0 ? `Messages (${unreadWords(state.unread)})` : 'Messages',
    action: { type: 'open-messages' },
  });
  items.push({
    kind: 'item',
    label: state.openIncidents > 0 ? `Acknowledge all alerts (${state.openIncidents})` : 'Acknowledge all alerts',
    action: { type: 'acknowledge-all' },
    enabled: state.openIncidents > 0,
  });
  const snoozed = state.alerts.snoozedUntil !== null && state.alerts.snoozedUntil > now;
  items.push({
    kind: 'submenu',
    label: snoozed ? `Alerts snoozed until ${formatTime(state.alerts.snoozedUntil!)}` : 'Snooze alerts',
    items: [
      { kind: 'item', label: 'For 30 minutes', action: { type: 'snooze', minutes: 30 } },
      { kind: 'item', label: 'For 1 hour', action: { type: 'snooze', minutes: 60 } },
      { kind: 'item', label: 'For 4 hours', action: { type: 'snooze', minutes: 240 } },
      { kind: 'item', label: 'Until tomorrow morning', action: { type: 'snooze-tomorrow' } },
      ...(snoozed ? [{ kind: 'item', label: 'Resume alerts now', action: { type: 'unsnooze' } } as TrayMenuItem] : []),
    ],
  });
  items.push({ kind: 'separator' });
  items.push({ kind: 'item', label: 'Open Channel Companion', action: { type: 'open-window' } });
  items.push({
    kind: 'checkbox',
    label: 'Start at login',
    checked: state.startAtLogin,
    action: (checked) => ({ type: 'start-at-login', enabled: checked }),
  });
  items.push({ kind: 'separator' });
  items.push({ kind: 'item', label: 'Quit', action: { type: 'quit' } });
  return items;
}

/** The route a window opens for an agent: its page, or its pairing page when a scan is needed. */
export function agentRoute(teamId: string, agentId: string, needsScan: boolean): string {
  const base = `#/agents/${encodeURIComponent(agentId)}`;
  return `${needsScan ? `${base}/pairing` : base}?team=${encodeURIComponent(teamId)}`;
}
