// The contract's teams: Teams, agents, their health, incidents and alerts.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { Health } from '../vocabulary';
import type { ErrorDTO } from './errors';

// ---------------------------------------------------------------------------------------------
// DTOs
// ---------------------------------------------------------------------------------------------

export interface TeamDTO {
  teamId: string;
  label: string;
  baseUrl: string;
  /** Last four characters of the key, e.g. "…9f2c". Never the key. */
  keyHint: string;
  /** The service rejected the key (monitor marks the team once, not per poll). */
  keyRejected: boolean;
  agentIds: string[];
  /** The key may go over plain http:// to a host other than this machine (the person chose so); absent: no. */
  allowInsecureHttp?: boolean;
}

export interface AgentInputDTO {
  agentId: string;
  label?: string;
}

export interface AgentHealthDTO {
  teamId: string;
  agentId: string;
  health: Health;
  /** The service's `state` verbatim (ASSUMPTION A-STATE), or null before the first poll. */
  state: string | null;
  phone: string | null;
  needsScan: boolean;
  /**
   * While `health` is 'unreachable': the health the last successful poll told of (absent when no
   * poll has succeeded). The agent's last known state, kept while the service does not answer.
   */
  lastKnown?: Health;
  /** ms epoch when `health` last changed. */
  since: number;
  /** ms epoch of the last poll, null before the first. */
  checkedAt: number | null;
  /** The last poll's error, when it failed. */
  error?: ErrorDTO;
}

export interface AgentDTO {
  teamId: string;
  agentId: string;
  label: string;
  health: AgentHealthDTO;
  /** Polled at the fast interval all the time (kept in the config), so short drops are seen. */
  watchClosely: boolean;
  /** Words to find the agent by (kept in the config), normalised and sorted (src-shared/agent-labels.ts). */
  labels: string[];
}

export interface HealthSnapshotDTO {
  at: number;
  worst: Health;
  agents: AgentHealthDTO[];
}

export type IncidentSeverity = 'urgent' | 'warning' | 'info';

export interface IncidentDTO {
  id: string;
  teamId: string;
  /** The agent it is about; for a team-wide incident, the first of the agents it covers. */
  agentId: string;
  /** About the whole team (the service unreachable, the key rejected), not one agent. */
  teamWide?: boolean;
  /** What went wrong: 'needs-scan', 'reconnecting', 'unreachable', 'key-rejected', or another kind verbatim. */
  kind: string;
  severity: IncidentSeverity;
  title: string;
  message: string;
  /** ms epoch of its start: the first poll that saw the problem (for an unreachable agent, the last poll answered). */
  openedAt: number;
  acknowledgedAt: number | null;
  /** The member who acknowledged it (a team hub); absent when no one was named. */
  acknowledgedBy?: string;
  /** ms epoch when it closed (a drop closes once the agent has stayed connected a while); null while open. */
  resolvedAt: number | null;
  /** ms epoch of its end: the first poll that saw the agent well again; null while open. */
  endedAt: number | null;
  /** Its length, endedAt − openedAt, computed once by the companion: every text prints this; null while open. */
  durationMs: number | null;
  /** Closed because its agent (or team) is no longer watched: no recovery was seen. */
  removed?: true;
  /**
   * Its incident group: incidents of one kind raised together (one poll round, or within a few
   * seconds) share it and are told of in one notification ("20 agents need a QR scan").
   */
  group?: string;
}

export interface AlertEventDTO {
  change: 'opened' | 'updated' | 'resolved';
  incident: IncidentDTO;
  /**
   * Tell the person now (a native notification, a toast): the monitor's alert policy raised an alert
   * about this incident with this change and it was not snoozed or held by quiet hours (for
   * 'resolved': its recovery notice), or the incident turned urgent after an alert about it. False
   * for everything that is only tracked: a drop within the grace period, the later drops of a
   * flapping agent, a pairing started on purpose.
   */
  notify: boolean;
  /**
   * What to show for it, when an alert told of it in this step: the alert's words, the same on every
   * event of that alert (an alert about 20 incidents: 20 events, one notice). Show it once per `id`;
   * a notice replaces the one on screen with the same `key`.
   */
  notice?: AlertNoticeDTO;
}

/** One alert, as a notification shows it. */
export interface AlertNoticeDTO {
  /** The alert's id. */
  id: string;
  /** Its incident group's id, or its incident's (a lone incident without a group). */
  key: string;
  /** "20 agents need a QR scan", or a lone incident's title. */
  title: string;
  body: string;
  urgent: boolean;
  /** A recovery notice (quiet). */
  resolved: boolean;
  /** About several incidents (a click opens the Alerts screen, not one agent's page). */
  several: boolean;
}

export interface QuietHoursDTO {
  enabled: boolean;
  /** "HH:MM", local time. */
  start: string;
  end: string;
}

/** One health change of an agent, from the monitor's timeline (health.history). */
export interface HealthHistoryEntryDTO {
  /** ms epoch of the change. */
  at: number;
  health: Health;
  previous: Health;
  /** The service's `state` verbatim at that moment (ASSUMPTION A-STATE). */
  state?: string;
  /** Why, in words: the poll's error (redacted), when there was one. */
  note?: string;
}

/** Filters of alerts.history (all optional); at most `limit` (default and most 1,000) rows. */
export interface IncidentHistoryArgs {
  teamId?: string;
  agentId?: string;
  kind?: string;
  limit?: number;
}

/** An agent's availability over one window (health.availability): connected time out of observed time. */
export interface AvailabilityWindowDTO {
  /** Length of the window, ms (24 h, 7 d, 30 d). */
  windowMs: number;
  /** Time with a known health (the monitor running and the agent polled), ms. */
  observedMs: number;
  /** Time connected, ms. */
  upMs: number;
}

export interface AvailabilityDTO {
  at: number;
  windows: AvailabilityWindowDTO[];
}

export interface AlertStatusDTO {
  snoozedUntil: number | null;
  quietHours: QuietHoursDTO;
  /**
   * The other app on this data folder that posts the alerts (alert webhook, Alertmanager) while this
   * one does not (one app per data folder posts them; this one takes over when that one stops), or
   * null: this app posts them.
   */
  alertsPostedBy: { pid: number; since: number } | null;
}
