// The alert policy: a pure state machine. Input: batches of health changes (one per poll cycle),
// acknowledgements, snoozes, and the time of every call. Output: alerts and incident updates.
// No timers and no I/O here — the caller asks nextWakeAt() and calls tick(now) then.
//
// One incident per event: an agent has at most one incident at a time. A drop opens it (after the
// reconnect grace); a new drop before the agent has stayed connected for recoverAfterSec continues
// it; flapping is that same incident turning 'flapping'; an unlink turns it 'needs-scan'. A
// team-wide outage is one team incident, and what it hid is judged against the last state the
// service reported (an outage changes no agent's state). Incidents count from the last good poll;
// the grace period and the delays count from when the trouble was seen.
import type { Health } from './health';
import type { AgentState, Spell } from './policy-state';
import { agentRef, incidentSubject, text } from './policy-text';
import { TeamBook } from './policy-teams';
import { inQuietHours, quietHoursEnd } from './time';
import {
  DEFAULT_RULES,
  systemLocalTime,
  type Alert,
  type AlertKind,
  type AlertRules,
  type HealthChange,
  type Incident,
  type IncidentKind,
  type LocalTime,
  type TeamJudge,
  type TeamMemberHealth,
} from './types';

export interface IncidentUpdate {
  change: 'opened' | 'updated' | 'resolved';
  incident: Incident;
}

export interface PolicyOutput {
  alerts: Alert[];
  incidents: IncidentUpdate[];
}

export interface AlertPolicyOptions {
  rules?: Partial<AlertRules>;
  localTime?: LocalTime;
  /** Prefix of incident, group and alert ids (e.g. a start timestamp, so ids stay unique across runs). */
  idPrefix?: string;
  /** Default INCIDENT_GROUP_WINDOW_MS. */
  groupWindowMs?: number;
  /** The label of a team, for alert words (default: the id). */
  teamLabel?: (teamId: string) => string;
  /** Who judges a team's team-wide incidents, over which agents (default: here, over the agents polled here). */
  teamJudge?: TeamJudge;
}

/** Healths that say nothing about the agent's link: the last state the service reported stands. */
const OPAQUE: ReadonlySet<Health> = new Set(['unreachable', 'key-rejected']);

/**
 * How long an incident group takes new incidents: one raised within this long of the group's first
 * (of the same team and kind) joins it. A poll round is one moment, whatever its length.
 */
const INCIDENT_GROUP_WINDOW_MS = 10_000;

/** Kinds whose alerts open an incident group (the others tell of incidents already grouped). */
const GROUPING: ReadonlySet<AlertKind> = new Set([
  'needs-scan',
  'reconnecting',
  'unreachable',
  'flapping',
  'key-rejected',
]);

interface Candidate {
  alert: Omit<Alert, 'id' | 'at' | 'teamLabel'>;
  /** The incident it is about. */
  about: Incident;
  /** An alert that reached the person marks it delivered (not a closing notice). */
  marks: boolean;
}

/** An incident group open to new incidents. */
interface OpenGroup {
  id: string;
  startedAt: number;
  size: number;
}

export class AlertPolicy {
  private rules: AlertRules;
  private readonly local: LocalTime;
  private readonly prefix: string;
  private readonly label: (teamId: string) => string;
  private seq = 0;
  private readonly agents = new Map<string, AgentState>();
  private readonly teams: TeamBook;
  private snoozedUntil: number | null = null;
  private quiet = false;
  private out: PolicyOutput = { alerts: [], incidents: [] };
  private pending: Candidate[] = [];
  private readonly groupWindowMs: number;
  /** The incident group open now per team, kind and scope (agent or team-wide). */
  private readonly groups = new Map<string, OpenGroup>();
  private readonly judge: TeamJudge | null;

  constructor(opts: AlertPolicyOptions = {}) {
    this.judge = opts.teamJudge ?? null;
    this.rules = { ...DEFAULT_RULES, ...opts.rules };
    this.local = opts.localTime ?? systemLocalTime;
    this.prefix = opts.idPrefix ?? '';
    this.label = opts.teamLabel ?? ((id) => id);
    this.groupWindowMs = Math.max(0, opts.groupWindowMs ?? INCIDENT_GROUP_WINDOW_MS);
    this.teams = new TeamBook({
      label: this.label,
      open: (teamId, kind, agentIds, openedAt) => this.openIncident(teamId, null, agentIds, kind, openedAt),
      raise: (inc, kind, urgent, t, now) => this.raise(inc, kind, urgent, t, now),
      notice: (inc, kind, t) => this.notice(inc, kind, t),
      resolve: (inc, now) => this.resolve(inc, now),
    });
  }

  // ----- configuration and person actions ---------------------------------------------------

  getRules(): AlertRules {
    return { ...this.rules };
  }

  setRules(patch: Partial<AlertRules>, now: number): PolicyOutput {
    this.rules = { ...this.rules, ...patch };
    return this.tick(now);
  }

  setQuietHours(q: AlertRules['quietHours'], now: number): PolicyOutput {
    return this.setRules({ quietHours: q }, now);
  }

  /** Suppress alerts until `until` (ms epoch); null ends the snooze. Incidents are still tracked. */
  snooze(until: number | null, now: number): PolicyOutput {
    this.snoozedUntil = until;
    return this.tick(now);
  }

  snoozedUntilAt(now: number): number | null {
    return this.snoozedUntil !== null && now < this.snoozedUntil ? this.snoozedUntil : null;
  }

  isQuiet(now: number): boolean {
    return inQuietHours(this.rules.quietHours, now, this.local);
  }

  /** Acknowledge one incident (by id) or every open incident of an agent, by `by` when named. Returns how many. */
  acknowledge(
    target: string | { agentId: string; teamId?: string },
    now: number,
    by?: string,
  ): { count: number; output: PolicyOutput } {
    this.begin();
    let count = 0;
    for (const inc of this.openIncidents()) {
      const hit =
        typeof target === 'string'
          ? inc.id === target
          : (inc.agentId === target.agentId || (inc.agentId === null && inc.agentIds.includes(target.agentId))) &&
            (target.teamId === undefined || inc.teamId === target.teamId);
      if (hit && inc.acknowledgedAt === null) {
        inc.acknowledgedAt = now;
        if (by !== undefined) inc.acknowledgedBy = by;
        this.update('updated', inc);
        count++;
      }
    }
    return { count, output: this.end(now) };
  }

  acknowledgeAll(now: number, by?: string): { count: number; output: PolicyOutput } {
    this.begin();
    let count = 0;
    for (const inc of this.openIncidents()) {
      if (inc.acknowledgedAt !== null) continue;
      inc.acknowledgedAt = now;
      if (by !== undefined) inc.acknowledgedBy = by;
      this.update('updated', inc);
      count++;
    }
    return { count, output: this.end(now) };
  }

  /**
   * Names open incidents' groups as another app on the data folder named them (`groups`: incident id →
   * group; monitor.ts, takeOverFiles): Alertmanager then hears the same labels from this app as from
   * the one that posted before, not a second group.
   */
  adoptGroups(groups: Map<string, string>, now: number): PolicyOutput {
    this.begin();
    for (const inc of this.openIncidents()) {
      const g = groups.get(inc.id);
      if (g === undefined || inc.group === g) continue;
      inc.group = g;
      this.update('updated', inc);
    }
    return this.end(now);
  }

  /** Stop watching an agent: its incident closes as removed, without a notice. */
  forget(teamId: string, agentId: string, now: number): PolicyOutput {
    this.begin();
    const a = this.agents.get(key(teamId, agentId));
    if (a) {
      if (a.incident) {
        a.incident.removed = true;
        this.resolve(a.incident, now);
      }
      this.agents.delete(key(teamId, agentId));
      this.checkTeam(teamId, now);
    }
    return this.end(now);
  }

  /**
   * Judges the teams' team-wide incidents again (TeamJudge): the agents polled elsewhere changed, or which
   * teams are judged here did.
   */
  judgeTeams(teamIds: Iterable<string>, now: number): PolicyOutput {
    this.begin();
    for (const teamId of teamIds) this.checkTeam(teamId, now);
    this.timers(now);
    return this.end(now);
  }

  /**
   * Takes up team-wide incidents another watcher judged (TeamJudge): each goes on here with its id and
   * start. Only the team's incident: the agents' states stay those polled here.
   */
  restoreTeams(incidents: Incident[]): void {
    for (const inc of incidents) if (inc.resolvedAt === null && inc.agentId === null) this.teams.restore(inc);
  }

  /**
   * Another watcher polls this agent from now on (a hub replica took it over): its state and its open
   * incident are dropped here without a word; the incident goes on there (restore).
   */
  release(teamId: string, agentId: string): void {
    this.agents.delete(key(teamId, agentId));
  }

  /**
   * Takes up the incidents a previous run left open. Each stays open until a poll shows its agent
   * recovered: the agent starts from the health the incident stands for, so a first poll that sees
   * the same trouble changes nothing and raises nothing again.
   */
  restore(incidents: Incident[]): void {
    for (const inc of incidents) {
      if (inc.resolvedAt !== null) continue;
      if (inc.agentId === null) {
        if (!this.teams.restore(inc)) continue;
        for (const agentId of inc.agentIds) {
          const a = this.stateOf(inc.teamId, agentId);
          a.health = inc.kind === 'key-rejected' ? 'key-rejected' : 'unreachable';
          if (inc.kind === 'unreachable') a.down ??= { since: inc.openedAt, seen: inc.openedAt };
        }
        continue;
      }
      const a = this.stateOf(inc.teamId, inc.agentId);
      if (a.incident) continue;
      a.incident = inc;
      if (inc.kind === 'unreachable') {
        a.health = 'unreachable';
        a.down = { since: inc.openedAt, seen: inc.openedAt };
      } else {
        a.health = a.known = inc.kind === 'needs-scan' ? 'needs-scan' : 'reconnecting';
        a.wasLinked = inc.kind !== 'needs-scan';
      }
    }
  }

  /**
   * What the team's channels are told when this app takes over posting the alerts from another app
   * on the data folder (monitor.ts, takeOverFiles): per team, a still-down summary of the incidents
   * open here that the other app did not post, and a notice of those it had open and told of that this
   * app sees recovered. Snoozed or in quiet hours: nothing (the summary when they end covers what is open).
   * The incidents themselves do not change.
   */
  handoverAlerts(unposted: Incident[], recovered: Incident[], now: number): Alert[] {
    if (this.snoozedUntilAt(now) !== null || this.isQuiet(now)) return [];
    const out: Alert[] = [];
    const teams = [...new Set([...unposted, ...recovered].map((i) => i.teamId))];
    for (const teamId of teams) {
      const team = this.label(teamId);
      const open = unposted.filter((i) => i.teamId === teamId);
      // A closing notice only for what the team was told of (as a recovery's notice).
      const closed = recovered.filter((i) => i.teamId === teamId && i.delivered);
      if (open.length > 0)
        out.push(
          this.stamp(
            {
              kind: 'still-down',
              urgent: open.some((i) => i.kind === 'needs-scan' || i.agentId === null),
              teamId,
              agentIds: [...new Set(open.flatMap((i) => i.agentIds))],
              ...text.handoverStillDown(open, team, now),
            },
            now,
          ),
        );
      if (closed.length > 0)
        out.push(
          this.stamp(
            {
              kind: 'recovered',
              urgent: false,
              teamId,
              agentIds: [...new Set(closed.flatMap((i) => i.agentIds))],
              ...text.handoverRecovered(closed, team, now),
            },
            now,
          ),
        );
    }
    return out;
  }

  // ----- reading -----------------------------------------------------------------------------

  openIncidents(): Incident[] {
    const list: Incident[] = [];
    for (const a of this.agents.values()) if (a.incident) list.push(a.incident);
    list.push(...this.teams.open());
    return list.sort((x, y) => y.openedAt - x.openedAt);
  }

  openIncidentFor(teamId: string, agentId: string): Incident | null {
    return this.agents.get(key(teamId, agentId))?.incident ?? null;
  }

  isFlapping(teamId: string, agentId: string): boolean {
    return this.agents.get(key(teamId, agentId))?.incident?.kind === 'flapping';
  }

  /** The next instant at which tick() may have something to do, or null. */
  nextWakeAt(now: number): number | null {
    let next = Infinity;
    for (const a of this.agents.values()) {
      const t = this.agentWake(a);
      if (t < next) next = t;
    }
    const r = this.rules;
    if (r.quietHours && this.isQuiet(now)) next = Math.min(next, quietHoursEnd(r.quietHours, now, this.local));
    return next === Infinity ? null : Math.max(next, now);
  }

  // ----- input -------------------------------------------------------------------------------

  /** One poll cycle's health changes. Several agents changing together → one grouped alert. */
  ingest(changes: HealthChange[], now: number): PolicyOutput {
    this.begin();
    const touchedTeams = new Set<string>();
    for (const c of changes) {
      this.applyChange(c, now);
      touchedTeams.add(c.teamId);
    }
    for (const teamId of touchedTeams) this.checkTeam(teamId, now);
    this.timers(now);
    return this.end(now);
  }

  /** Time passed: grace periods, delayed alerts, re-alerts, recoveries, flap settling, end of quiet hours. */
  tick(now: number): PolicyOutput {
    this.begin();
    this.timers(now);
    return this.end(now);
  }

  // ----- agents ------------------------------------------------------------------------------

  private members(teamId: string): AgentState[] {
    const list: AgentState[] = [];
    for (const a of this.agents.values()) if (a.teamId === teamId) list.push(a);
    return list;
  }

  /** Opens or closes the team's incidents, over its agents polled here and, with a judge, elsewhere. */
  private checkTeam(teamId: string, now: number): void {
    const j = this.judge;
    if (!j) {
      this.teams.check(teamId, this.members(teamId), now);
      return;
    }
    if (!j.judges(teamId)) {
      this.teams.release(teamId);
      // An outage judged elsewhere covers the agents polled here, as it does where it is judged.
      if (j.downElsewhere(teamId))
        for (const a of this.members(teamId)) if (a.incident?.kind === 'unreachable') this.resolve(a.incident, now);
      return;
    }
    const local = this.members(teamId);
    const here = new Set(local.map((a) => a.agentId));
    const others = j
      .elsewhere(teamId)
      .filter((m) => !here.has(m.agentId))
      .map((m) => memberState(teamId, m, now));
    this.teams.check(teamId, [...local, ...others], now);
  }

  private isDown(teamId: string): boolean {
    return this.teams.isDown(teamId) || (this.judge?.downElsewhere(teamId) ?? false);
  }

  private stateOf(teamId: string, agentId: string): AgentState {
    const k = key(teamId, agentId);
    let a = this.agents.get(k);
    if (!a) {
      a = {
        teamId,
        agentId,
        phone: null,
        health: 'unknown',
        known: 'unknown',
        incident: null,
        drops: [],
        drop: null,
        backSince: null,
        down: null,
        wasLinked: false,
      };
      this.agents.set(k, a);
    }
    return a;
  }

  private applyChange(c: HealthChange, now: number): void {
    const a = this.stateOf(c.teamId, c.agentId);
    if (c.phone !== undefined && c.phone !== null) a.phone = c.phone;
    if (a.health === c.to) return; // not a change: nothing to raise twice
    const wasOpaque = OPAQUE.has(a.health);
    a.health = c.to;
    // An incident starts at the first poll that saw the problem; an unreachable agent's, at the last
    // poll answered (nothing is known after it).
    const since = c.at;
    if (c.to === 'unreachable') {
      a.down ??= { since: c.lastGoodAt ?? c.at, seen: c.at };
      return;
    }
    a.down = null;
    if (a.incident?.kind === 'unreachable') this.recover(a, a.incident, c.at, now);
    if (OPAQUE.has(c.to)) return; // a rejected key: the team's incident; the agent's state stands
    // After an outage, only what differs from the last state the service reported is a change.
    if (wasOpaque && c.to === a.known) return;
    const from = a.known;
    a.known = c.to;
    if (c.to === 'connected') this.toConnected(a, c.at);
    else if (c.to === 'reconnecting') this.toReconnecting(a, from, { since, seen: c.at }, now);
    else if (c.to === 'needs-scan') this.toNeedsScan(a, from, since, c, now);
  }

  private toConnected(a: AgentState, at: number): void {
    a.wasLinked = true;
    a.drop = null; // a drop shorter than the grace period raises nothing at all
    const inc = a.incident;
    if (!inc) return;
    // A drop is over only once the agent stays connected (timers); an unlink is over at once.
    if (inc.kind === 'reconnecting' || inc.kind === 'flapping') a.backSince = at;
    else this.recover(a, inc, at, at);
  }

  private toReconnecting(a: AgentState, from: Health, spell: Spell, now: number): void {
    a.wasLinked = true;
    a.backSince = null;
    if (from === 'connected') this.countDrop(a, spell.seen);
    const inc = a.incident;
    const flapping = a.drops.length >= this.rules.flapCount;
    if (inc?.kind === 'needs-scan') {
      // Someone scanned; the number is coming up. No new alert.
      inc.kind = 'reconnecting';
      this.update('updated', inc);
    } else if (inc?.kind === 'reconnecting' && flapping) {
      this.declareFlapping(a, inc, now);
    } else if (!inc && flapping) {
      this.declareFlapping(a, this.openIncident(a.teamId, a.agentId, [a.agentId], 'flapping', spell.since), now);
    } else if (!inc) {
      // A repeat drop within the flap window waits longer: the flapping alert covers it if it is short.
      const repeat = a.drops.length >= 2 ? this.rules.repeatDropGraceSec : 0;
      a.drop = { ...spell, graceMs: Math.max(this.rules.reconnectGraceSec, repeat) * 1000 };
      this.timers(now);
    }
  }

  private toNeedsScan(a: AgentState, from: Health, since: number, c: HealthChange, now: number): void {
    a.backSince = null;
    a.drop = null;
    if (from === 'connected') this.countDrop(a, c.at);
    // A pairing started on purpose, or nothing ever linked: tracked, not alerted.
    const silent = from === 'unknown' && (c.pairing === true || (!a.wasLinked && !this.rules.alertOnInitialNeedsScan));
    let inc = a.incident;
    if (inc) {
      inc.kind = 'needs-scan';
      this.update('updated', inc);
    } else {
      inc = this.openIncident(a.teamId, a.agentId, [a.agentId], 'needs-scan', since);
      a.incident = inc;
    }
    if (!silent) this.raise(inc, 'needs-scan', true, text.needsScan(agentRef(a.agentId, a.phone), a.wasLinked), now);
  }

  private countDrop(a: AgentState, at: number): void {
    const windowMs = this.rules.flapWindowMinutes * 60_000;
    a.drops = a.drops.filter((t) => at - t < windowMs);
    a.drops.push(at);
  }

  private declareFlapping(a: AgentState, inc: Incident, now: number): void {
    a.incident = inc;
    a.drop = null;
    if (inc.kind !== 'flapping') {
      inc.kind = 'flapping';
      this.update('updated', inc);
    }
    this.raise(
      inc,
      'flapping',
      false,
      text.flapping(agentRef(a.agentId, a.phone), a.drops.length, this.rules.flapWindowMinutes),
      now,
    );
  }

  /**
   * Closes an agent's incident, over since `endedAt` (the first poll that saw the agent well again);
   * a recovery notice, with the incident's one length, when the person had been told about it.
   */
  private recover(a: AgentState, inc: Incident, endedAt: number, now: number): void {
    const ref = agentRef(a.agentId, a.phone);
    if (inc.kind === 'flapping') a.drops = [];
    inc.endedAt = Math.max(inc.openedAt, endedAt);
    const words = inc.kind === 'flapping' ? text.settled : inc.kind === 'unreachable' ? text.reachable : text.recovered;
    this.notice(inc, 'recovered', words(ref, inc.endedAt - inc.openedAt));
    a.backSince = null;
    this.resolve(inc, now);
  }

  private agentWake(a: AgentState): number {
    const r = this.rules;
    const inc = a.incident;
    let t = Infinity;
    if (a.drop !== null && a.health === 'reconnecting') t = a.drop.seen + a.drop.graceMs;
    if (a.down !== null && !inc && !this.isDown(a.teamId))
      t = Math.min(t, a.down.seen + r.agentUnreachableDelaySec * 1000);
    if (inc && a.backSince !== null)
      t = Math.min(t, a.backSince + (inc.kind === 'flapping' ? r.flapWindowMinutes * 60 : r.recoverAfterSec) * 1000);
    if (
      inc?.kind === 'needs-scan' &&
      inc.raised &&
      inc.acknowledgedAt === null &&
      inc.lastAlertAt !== null &&
      r.realertMinutes > 0
    )
      t = Math.min(t, inc.lastAlertAt + r.realertMinutes * 60_000);
    return t;
  }

  private timers(now: number): void {
    const r = this.rules;
    for (const a of this.agents.values()) {
      if (this.agentWake(a) > now) continue;
      const ref = agentRef(a.agentId, a.phone);
      const inc = a.incident;
      if (a.drop !== null && a.health === 'reconnecting' && now >= a.drop.seen + a.drop.graceMs) {
        const opened = this.openIncident(a.teamId, a.agentId, [a.agentId], 'reconnecting', a.drop.since);
        a.incident = opened;
        a.drop = null;
        this.raise(opened, 'reconnecting', false, text.reconnecting(ref), now);
        continue;
      }
      if (a.down !== null && !inc && !this.isDown(a.teamId) && now >= a.down.seen + r.agentUnreachableDelaySec * 1000) {
        a.incident = this.openIncident(a.teamId, a.agentId, [a.agentId], 'unreachable', a.down.since);
        this.raise(a.incident, 'unreachable', false, text.agentUnreachable(ref), now);
        continue;
      }
      if (inc && a.backSince !== null) {
        const holdMs = (inc.kind === 'flapping' ? r.flapWindowMinutes * 60 : r.recoverAfterSec) * 1000;
        if (now >= a.backSince + holdMs) {
          this.recover(a, inc, a.backSince, now);
          continue;
        }
      }
      if (
        inc?.kind === 'needs-scan' &&
        inc.raised &&
        inc.acknowledgedAt === null &&
        inc.lastAlertAt !== null &&
        r.realertMinutes > 0 &&
        now >= inc.lastAlertAt + r.realertMinutes * 60_000
      ) {
        this.raise(inc, 'realert', true, text.realert(ref, now - inc.openedAt), now);
      }
    }
  }

  // ----- incidents and alerts ----------------------------------------------------------------

  private openIncident(
    teamId: string,
    agentId: string | null,
    agentIds: string[],
    kind: IncidentKind,
    openedAt: number,
  ): Incident {
    const inc: Incident = {
      id: this.nextId('inc'),
      teamId,
      agentId,
      agentIds: [...agentIds],
      kind,
      openedAt,
      delivered: false,
      raised: false,
      acknowledgedAt: null,
      resolvedAt: null,
      lastAlertAt: null,
    };
    this.update('opened', inc);
    return inc;
  }

  private resolve(inc: Incident, now: number): void {
    if (inc.resolvedAt !== null) return;
    inc.resolvedAt = now;
    inc.endedAt ??= now;
    this.update('resolved', inc);
    if (inc.agentId !== null) {
      const a = this.agents.get(key(inc.teamId, inc.agentId));
      if (a?.incident === inc) a.incident = null;
    }
  }

  private raise(
    inc: Incident,
    kind: AlertKind,
    urgent: boolean,
    t: { title: string; body: string },
    now: number,
  ): void {
    inc.raised = true;
    inc.lastAlertAt = now;
    if (GROUPING.has(kind)) this.joinGroup(inc, kind, now);
    this.candidate(
      { kind, urgent, teamId: inc.teamId, agentIds: [...inc.agentIds], ...t, incidentId: inc.id, ...groupOf(inc) },
      inc,
      true,
    );
  }

  /**
   * The incident joins its team's open group of this kind, or starts one: a group takes incidents
   * raised within groupWindowMs of its first (the same poll round always).
   */
  private joinGroup(inc: Incident, kind: AlertKind, now: number): void {
    const k = `${inc.teamId}\u0000${kind}\u0000${inc.agentId === null ? 'team' : 'agent'}`;
    let g = this.groups.get(k);
    if (!g || now - g.startedAt > this.groupWindowMs) {
      g = { id: this.nextId('grp'), startedAt: now, size: 0 };
      this.groups.set(k, g);
    }
    if (inc.group === g.id) return;
    inc.group = g.id;
    g.size++;
  }

  /** How many incidents the group has taken so far (0 once it no longer takes any). */
  private groupSize(id: string): number {
    for (const g of this.groups.values()) if (g.id === id) return g.size;
    return 0;
  }

  /** A closing notice: only when the person was told about the incident in the first place. */
  private notice(inc: Incident, kind: AlertKind, t: { title: string; body: string }): void {
    if (inc.delivered)
      this.candidate(
        {
          kind,
          urgent: false,
          teamId: inc.teamId,
          agentIds: [...inc.agentIds],
          ...t,
          incidentId: inc.id,
          ...groupOf(inc),
        },
        inc,
        false,
      );
  }

  private candidate(alert: Candidate['alert'], about: Incident, marks: boolean): void {
    this.pending.push({ alert, about, marks });
  }

  /** Recorded as a reference; copied at the end of the step, so the copy says what the step decided (raised, delivered). */
  private update(change: IncidentUpdate['change'], inc: Incident): void {
    this.out.incidents.push({ change, incident: inc });
  }

  private begin(): void {
    this.out = { alerts: [], incidents: [] };
    this.pending = [];
  }

  /** Delivery gate: snooze drops, quiet hours hold, several alerts of one team become one. */
  private end(now: number): PolicyOutput {
    const wasQuiet = this.quiet;
    this.quiet = this.isQuiet(now);
    const snoozed = this.snoozedUntilAt(now) !== null;
    let pending = this.pending;
    if (wasQuiet && !this.quiet && !snoozed) {
      const summarized = this.stillDownSummary(now);
      // The summary already reminds of these: no separate re-alert in the same breath.
      pending = pending.filter((c) => !(c.alert.kind === 'realert' && summarized.has(c.about)));
    }
    this.pending = [];
    if (!snoozed && !this.quiet) {
      // One alert per team, kind and scope (agent or team-wide) of this step.
      const batches = new Map<string, Candidate[]>();
      for (const c of pending) {
        const k = `${c.alert.teamId}\u0000${c.alert.kind}\u0000${c.about.agentId === null ? 'team' : 'agent'}`;
        batches.set(k, [...(batches.get(k) ?? []), c]);
      }
      for (const list of batches.values()) {
        for (const c of list) {
          if (!c.marks) continue;
          c.about.delivered = true;
          // Kept with the open incident, so its severity is the same after a restart.
          if (c.alert.urgent) c.about.urgent = true;
        }
        this.out.alerts.push(this.batchAlert(list, now));
      }
    }
    const out = {
      alerts: this.out.alerts,
      incidents: this.out.incidents.map((u) => ({
        change: u.change,
        incident: { ...u.incident, agentIds: [...u.incident.agentIds] },
      })),
    };
    this.out = { alerts: [], incidents: [] };
    return out;
  }

  /**
   * One alert for a batch of one kind: a lone alert as it is; several, or one joining an incident
   * group that already told of others, as one 'grouped' alert counting the group ("20 agents need a
   * QR scan"), with each alert as a part.
   */
  private batchAlert(list: Candidate[], now: number): Alert {
    const alerts = list.map((c) => this.stamp(c.alert, now));
    const first = alerts[0]!;
    const groups = new Set(alerts.map((a) => a.group));
    const group = groups.size === 1 ? first.group : undefined;
    const total =
      group !== undefined && GROUPING.has(first.kind) ? Math.max(this.groupSize(group), alerts.length) : alerts.length;
    if (total === 1) return first;
    return this.stamp(
      {
        kind: 'grouped',
        urgent: alerts.some((x) => x.urgent),
        teamId: first.teamId,
        agentIds: [...new Set(alerts.flatMap((x) => x.agentIds))],
        ...text.grouped(first.kind, alerts, total),
        ...(group !== undefined ? { group } : {}),
        parts: alerts,
      },
      now,
    );
  }

  private stillDownSummary(now: number): Set<Incident> {
    const open = this.openIncidents().filter((i) => i.raised && i.acknowledgedAt === null);
    if (open.length === 0) return new Set();
    const teams = new Map<string, Incident[]>();
    for (const i of open) teams.set(i.teamId, [...(teams.get(i.teamId) ?? []), i]);
    for (const [teamId, list] of teams) {
      const team = this.label(teamId);
      for (const i of list) {
        i.delivered = true;
        i.lastAlertAt = now;
      }
      const agentIds = [...new Set(list.flatMap((i) => i.agentIds))];
      const parts = list.map((i) =>
        this.stamp(
          {
            kind: i.kind,
            urgent: i.kind === 'needs-scan',
            teamId,
            agentIds: i.agentIds,
            title: `${incidentSubject(i, team)}: ${i.kind}`,
            body: '',
            incidentId: i.id,
          },
          now,
        ),
      );
      this.out.alerts.push(
        this.stamp(
          {
            kind: 'still-down',
            urgent: list.some((i) => i.kind === 'needs-scan' || i.agentId === null),
            teamId,
            agentIds,
            ...text.stillDown(list, team, now),
            parts,
          },
          now,
        ),
      );
    }
    return new Set(open);
  }

  private stamp(a: Omit<Alert, 'id' | 'at' | 'teamLabel'>, now: number): Alert {
    return { ...a, teamLabel: this.label(a.teamId), id: this.nextId('alert'), at: now };
  }

  private nextId(kind: string): string {
    this.seq++;
    return `${this.prefix}${kind}-${this.seq}`;
  }
}

/** An alert's group field: the incident's group, when it has one. */
function groupOf(inc: Incident): { group?: string } {
  return inc.group !== undefined ? { group: inc.group } : {};
}

function key(teamId: string, agentId: string): string {
  return `${teamId}\u0000${agentId}`;
}

/** An agent polled elsewhere, as the team's judge counts it (a copy: nothing here keeps it). */
function memberState(teamId: string, m: TeamMemberHealth, now: number): AgentState {
  return {
    teamId,
    agentId: m.agentId,
    phone: null,
    health: m.health,
    known: 'unknown',
    incident: null,
    drops: [],
    drop: null,
    backSince: null,
    down: m.health === 'unreachable' ? { since: m.downSince ?? now, seen: now } : null,
    wasLinked: false,
  };
}
