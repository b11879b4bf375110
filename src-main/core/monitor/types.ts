// Plain data shared by the alert policy, the monitor and the sinks.
import type { Health } from './health';

export type AlertKind =
  | 'needs-scan'
  | 'reconnecting'
  | 'recovered'
  | 'flapping'
  | 'unreachable'
  | 'key-rejected'
  | 'grouped'
  | 'still-down'
  | 'realert';

export interface Alert {
  id: string;
  kind: AlertKind;
  urgent: boolean;
  teamId: string;
  /** The team's label (what people call it; the id is internal). */
  teamLabel: string;
  agentIds: string[];
  title: string;
  body: string;
  /** ms epoch */
  at: number;
  incidentId?: string;
  /**
   * The incident group it tells of (see Incident.group): set when every incident it is about is in
   * that one group.
   */
  group?: string;
  /** For 'grouped' and 'still-down': the alerts (or open incidents) it stands for. */
  parts?: Alert[];
}

/** "HH:MM" local time. start > end spans midnight (e.g. 22:00 → 07:00). */
export interface QuietHours {
  start: string;
  end: string;
}

export interface AlertRules {
  /** Reconnecting shorter than this raises nothing at all. */
  reconnectGraceSec: number;
  /**
   * A repeat drop (the agent already dropped within flapWindowMinutes) raises nothing unless it
   * lasts this long: short repeats are what the flapping alert is for.
   */
  repeatDropGraceSec: number;
  /**
   * A drop is over once the number has stayed connected this long: only then does its incident
   * close (with the recovery notice). A new drop before that continues the same incident.
   */
  recoverAfterSec: number;
  /** needs-scan is re-alerted this often until acknowledged or recovered. */
  realertMinutes: number;
  /**
   * This many drops of one agent within flapWindowMinutes → its incident turns 'flapping' (one
   * alert), silent until the agent has stayed connected for a whole window (one "stable" notice).
   */
  flapCount: number;
  flapWindowMinutes: number;
  /** Alerts are held during these hours; one 'still-down' summary when they end. */
  quietHours: QuietHours | null;
  /** Poll failures that make an agent 'unreachable' (consecutive count)… */
  unreachableAfterFailures: number;
  /** …or at least two consecutive failures spanning this many seconds. */
  unreachableAfterSec: number;
  /** An agent unreachable while the rest of its team answers is alerted after this delay. */
  agentUnreachableDelaySec: number;
  /** Alert when the first poll of an agent already needs a scan with no pairing under way. */
  alertOnInitialNeedsScan: boolean;
  /** Snooze presets (minutes) and the hour of "until tomorrow". */
  snoozeShortMinutes: number;
  snoozeLongMinutes: number;
  snoozeTomorrowHour: number;
}

export const DEFAULT_RULES: AlertRules = {
  reconnectGraceSec: 0,
  repeatDropGraceSec: 60,
  recoverAfterSec: 30,
  realertMinutes: 15,
  flapCount: 3,
  flapWindowMinutes: 10,
  quietHours: null,
  unreachableAfterFailures: 2,
  unreachableAfterSec: 30,
  agentUnreachableDelaySec: 60,
  alertOnInitialNeedsScan: true,
  snoozeShortMinutes: 15,
  snoozeLongMinutes: 60,
  snoozeTomorrowHour: 8,
};

/** One agent's health change, as fed to the policy (one batch per poll cycle). */
export interface HealthChange {
  teamId: string;
  agentId: string;
  from: Health;
  to: Health;
  /** ms epoch when the change was observed. */
  at: number;
  /**
   * ms epoch of the last poll that still showed the previous health (null: none). An incident
   * counts from there: the change happened at some point after it.
   */
  lastGoodAt?: number | null;
  /** A pairing QR is on offer (a person is pairing right now). */
  pairing?: boolean;
  /** The linked number, when known (for the alert text). */
  phone?: string | null;
}

export type IncidentKind = 'needs-scan' | 'reconnecting' | 'unreachable' | 'key-rejected' | 'flapping';

export interface Incident {
  id: string;
  teamId: string;
  /** null for a team-wide incident (unreachable service, rejected key). */
  agentId: string | null;
  agentIds: string[];
  kind: IncidentKind;
  /** ms epoch of its start: the first poll that saw the problem (for an unreachable agent, the last poll answered). */
  openedAt: number;
  /**
   * ms epoch of its end, set when it closes: the first poll that saw the agent well again (a drop
   * closes only once the agent has stayed connected for a while, so `resolvedAt` can be later).
   */
  endedAt?: number;
  /** An alert for it reached the person (not held, not snoozed). */
  delivered: boolean;
  /** An alert for it was due (possibly held or snoozed). */
  raised: boolean;
  /** An urgent alert about it reached the person (absent: none). */
  urgent?: boolean;
  acknowledgedAt: number | null;
  /** Who acknowledged it, when a person was named (a hub's member); absent otherwise. */
  acknowledgedBy?: string;
  resolvedAt: number | null;
  lastAlertAt: number | null;
  /** Closed because its agent (or team) is no longer watched, not because it recovered. */
  removed?: boolean;
  /**
   * Its incident group: incidents of one team and one kind raised together (in one poll round, or
   * within INCIDENT_GROUP_WINDOW_MS of the group's first) share it and are told of in one alert.
   * Set when it is raised (absent: never raised); a new kind raised later moves it to that kind's group.
   */
  group?: string;
}

/** An incident's length, from its start to its end (absent: to when it closed); null while open. The one value every text prints. */
export function incidentDurationMs(i: Pick<Incident, 'openedAt' | 'endedAt' | 'resolvedAt'>): number | null {
  if (i.resolvedAt === null) return null;
  return Math.max(0, (i.endedAt ?? i.resolvedAt) - i.openedAt);
}

export type SnoozePreset = 'short' | 'long' | 'tomorrow';

/** Local wall-clock time, injected so tests do not depend on the machine's time zone. */
export interface LocalTime {
  /** Minutes since local midnight. */
  minutesOfDay(ms: number): number;
  /** The next instant (> ms) at which local time reads hour:minute. */
  nextAt(ms: number, hour: number, minute: number): number;
}

export const systemLocalTime: LocalTime = {
  minutesOfDay(ms) {
    const d = new Date(ms);
    return d.getHours() * 60 + d.getMinutes();
  },
  nextAt(ms, hour, minute) {
    const d = new Date(ms);
    d.setHours(hour, minute, 0, 0);
    if (d.getTime() <= ms) {
      d.setDate(d.getDate() + 1);
      d.setHours(hour, minute, 0, 0);
    }
    return d.getTime();
  },
};

/** One watched agent as the monitor sees it now. */
export interface AgentSnapshot {
  teamId: string;
  agentId: string;
  health: import('./health').Health;
  /** The service's `state` verbatim from the last successful poll (ASSUMPTION A-STATE). */
  state: string | null;
  phone: string | null;
  /** The service's needsScan, connected and linked from the last successful poll (false before any). */
  needsScan: boolean;
  connected: boolean;
  linked: boolean;
  /** The health the last successful poll told of (absent before any): kept while polls fail. */
  lastKnown?: import('./health').Health;
  /** A pairing QR is on offer now. */
  pairing: boolean;
  /** ms epoch of the last health change. */
  since: number;
  /** ms epoch of the last settled poll, null before the first. */
  lastPollAt: number | null;
  /** ms epoch of the last poll the service answered with a session status, null before any. */
  lastSuccessAt: number | null;
  /** The last poll's error, when it failed (key-free). */
  lastError?: import('../api/errors').ServiceErrorDTO;
  consecutiveFailures: number;
}

/** An agent of a team as the watcher that polls it saw it last (TeamJudge.elsewhere). */
export interface TeamMemberHealth {
  agentId: string;
  health: import('./health').Health;
  /** ms epoch since when it has not answered (its health is 'unreachable'), else null. */
  downSince: number | null;
}

/**
 * Who judges a team's team-wide incidents (the service unreachable for every agent, the key rejected) when
 * several watchers share its agents (a team hub's replicas): one of them, over every agent of the team.
 * Without one, each monitor judges them over the agents it polls.
 */
export interface TeamJudge {
  /** Whether this monitor raises and resolves the team's team-wide incidents now. */
  judges(teamId: string): boolean;
  /** The team's agents this monitor does not poll, as their watchers saw them last. */
  elsewhere(teamId: string): TeamMemberHealth[];
  /** A team-wide outage is open (judged elsewhere): the agents polled here are not alerted alone meanwhile. */
  downElsewhere(teamId: string): boolean;
}
