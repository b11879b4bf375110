// The alert policy: a pure state machine. Input: batches of health changes (one per poll cycle),
// acknowledgements, snoozes, and the time of every call. Output: alerts and incident updates.
// No timers and no I/O here — the caller asks nextWakeAt() and calls tick(now) then.
import type { Health } from './health';
import { agentRef, text } from './policy-text';
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
  /** Prefix of incident and alert ids (e.g. a start timestamp, so ids stay unique across runs). */
  idPrefix?: string;
}

interface AgentState {
  teamId: string;
  agentId: string;
  health: Health;
  phone: string | null;
  incident: Incident | null;
  /** When the agent last left a good state for reconnecting / needs-scan. */
  opens: number[];
  flapping: Incident | null;
  /** The agent was seen linked (connected/reconnecting) since monitoring started. */
  wasLinked: boolean;
}

interface TeamState {
  unreachable: Incident | null;
  auth: Incident | null;
}

interface Candidate {
  alert: Omit<Alert, 'id' | 'at'>;
  incident?: Incident;
}

export class AlertPolicy {
  private rules: AlertRules;
  private readonly local: LocalTime;
  private readonly prefix: string;
  private seq = 0;
  private readonly agents = new Map<string, AgentState>();
  private readonly teams = new Map<string, TeamState>();
  private snoozedUntil: number | null = null;
  private quiet = false;
  private out: PolicyOutput = { alerts: [], incidents: [] };
  private pending: Candidate[] = [];

  constructor(opts: AlertPolicyOptions = {}) {
    this.rules = { ...DEFAULT_RULES, ...opts.rules };
    this.local = opts.localTime ?? systemLocalTime;
    this.prefix = opts.idPrefix ?? '';
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

  /** Acknowledge one incident (by id) or every open incident of an agent. Returns how many. */
  acknowledge(target: string | { agentId: string; teamId?: string }, now: number): { count: number; output: PolicyOutput } {
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
        this.update('updated', inc);
        count++;
      }
    }
    return { count, output: this.end(now) };
  }

  acknowledgeAll(now: number): { count: number; output: PolicyOutput } {
    this.begin();
    let count = 0;
    for (const inc of this.openIncidents()) {
      if (inc.acknowledgedAt !== null) continue;
      inc.acknowledgedAt = now;
      this.update('updated', inc);
      count++;
    }
    return { count, output: this.end(now) };
  }

  /** Stop watching an agent: its incidents close without a notice. */
  forget(teamId: string, agentId: string, now: number): PolicyOutput {
    this.begin();
    const a = this.agents.get(key(teamId, agentId));
    if (a) {
      for (const inc of [a.incident, a.flapping]) if (inc) this.resolve(inc, now);
      this.agents.delete(key(teamId, agentId));
      this.teamChecks(teamId, now);
    }
    return this.end(now);
  }

  // ----- reading -----------------------------------------------------------------------------

  openIncidents(): Incident[] {
    const list: Incident[] = [];
    for (const a of this.agents.values()) {
      if (a.incident) list.push(a.incident);
      if (a.flapping) list.push(a.flapping);
    }
    for (const t of this.teams.values()) {
      if (t.unreachable) list.push(t.unreachable);
      if (t.auth) list.push(t.auth);
    }
    return list.sort((x, y) => y.openedAt - x.openedAt);
  }

  openIncidentFor(teamId: string, agentId: string): Incident | null {
    return this.agents.get(key(teamId, agentId))?.incident ?? null;
  }

  isFlapping(teamId: string, agentId: string): boolean {
    return this.agents.get(key(teamId, agentId))?.flapping != null;
  }

  /** The next instant at which tick() may have something to do, or null. */
  nextWakeAt(now: number): number | null {
    const r = this.rules;
    let next = Infinity;
    const at = (t: number) => {
      if (t < next) next = t;
    };
    for (const a of this.agents.values()) {
      const inc = a.incident;
      if (inc && !inc.raised && inc.kind === 'reconnecting' && !a.flapping) at(inc.openedAt + r.reconnectGraceSec * 1000);
      if (inc && !inc.raised && inc.kind === 'unreachable') at(inc.openedAt + r.agentUnreachableDelaySec * 1000);
      if (inc && inc.kind === 'needs-scan' && inc.raised && inc.acknowledgedAt === null && inc.lastAlertAt !== null)
        at(inc.lastAlertAt + r.realertMinutes * 60_000);
      if (a.flapping && a.health === 'connected') at((a.opens[a.opens.length - 1] ?? now) + r.flapWindowMinutes * 60_000);
    }
    if (r.quietHours && this.isQuiet(now)) at(quietHoursEnd(r.quietHours, now, this.local));
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
    for (const teamId of touchedTeams) this.teamChecks(teamId, now);
    this.timers(now);
    return this.end(now);
  }

  /** Time passed: grace periods, delayed alerts, re-alerts, flap settling, end of quiet hours. */
  tick(now: number): PolicyOutput {
    this.begin();
    this.timers(now);
    return this.end(now);
  }

  // ----- internals ---------------------------------------------------------------------------

  private applyChange(c: HealthChange, now: number): void {
    const k = key(c.teamId, c.agentId);
    let a = this.agents.get(k);
    if (!a) {
      a = { teamId: c.teamId, agentId: c.agentId, health: 'unknown', phone: null, incident: null, opens: [], flapping: null, wasLinked: false };
      this.agents.set(k, a);
    }
    const from = a.health;
    if (c.phone !== undefined && c.phone !== null) a.phone = c.phone;
    if (from === c.to) return; // not a change: nothing to raise twice
    a.health = c.to;
    const ref = agentRef(a.agentId, a.phone);
    const inc = a.incident;

    if (c.to === 'connected') {
      if (inc) this.recover(a, inc, now);
      a.wasLinked = true;
      return;
    }
    if (c.to === 'reconnecting') {
      if (inc && inc.kind === 'unreachable') this.resolve(inc, now); // it was only the monitor's view
      else if (inc) {
        // needs-scan → reconnecting: someone scanned; the number is coming up. No new alert.
        if (inc.kind !== 'reconnecting') {
          inc.kind = 'reconnecting';
          inc.raised = true;
          this.update('updated', inc);
        }
        a.wasLinked = true;
        return;
      }
      a.wasLinked = true;
      const opened = this.open(a, 'reconnecting', now, true);
      if (this.rules.reconnectGraceSec <= 0 && !a.flapping) this.raise(opened, 'reconnecting', false, text.reconnecting(ref), now);
      return;
    }
    if (c.to === 'needs-scan') {
      const initialPairing = from === 'unknown' && c.pairing === true;
      const silent = initialPairing || (from === 'unknown' && !a.wasLinked && !this.rules.alertOnInitialNeedsScan);
      let target = inc;
      if (target && target.kind === 'unreachable') {
        this.resolve(target, now);
        target = null;
      }
      if (target) {
        target.kind = 'needs-scan';
        this.update('updated', target);
      } else {
        target = this.open(a, 'needs-scan', now, true);
      }
      // A pairing started on purpose, or nothing ever linked: tracked, not alerted.
      if (!silent) this.raise(target, 'needs-scan', true, text.needsScan(ref, a.wasLinked), now);
      else target.raised = false;
      return;
    }
    if (c.to === 'unreachable') {
      // Keep an existing incident as it is (last known state); a fresh one is only the monitor's view.
      if (!inc) this.open(a, 'unreachable', now, false);
      return;
    }
    // auth-error / not-found / unknown: team checks handle the key; the agent incident is kept.
  }

  private recover(a: AgentState, inc: Incident, now: number): void {
    const ref = agentRef(a.agentId, a.phone);
    if (inc.delivered) {
      this.candidate({ kind: 'recovered', urgent: false, teamId: a.teamId, agentIds: [a.agentId], ...text.recovered(ref, now - inc.openedAt), incidentId: inc.id });
    }
    this.resolve(inc, now);
  }

  private open(a: AgentState, kind: IncidentKind, now: number, countsForFlap: boolean): Incident {
    const inc: Incident = {
      id: this.nextId('inc'),
      teamId: a.teamId,
      agentId: a.agentId,
      agentIds: [a.agentId],
      kind,
      openedAt: now,
      delivered: false,
      raised: false,
      acknowledgedAt: null,
      resolvedAt: null,
      lastAlertAt: null,
    };
    a.incident = inc;
    this.update('opened', inc);
    if (countsForFlap) {
      const windowMs = this.rules.flapWindowMinutes * 60_000;
      a.opens = [...a.opens.filter((t) => now - t < windowMs), now];
      if (!a.flapping && a.opens.length >= this.rules.flapCount) {
        const flap: Incident = { ...inc, id: this.nextId('inc'), kind: 'flapping' };
        a.flapping = flap;
        this.update('opened', flap);
        this.raise(flap, 'flapping', false, text.flapping(agentRef(a.agentId, a.phone), a.opens.length, this.rules.flapWindowMinutes), now);
        // The incident that tipped it over is covered by the flapping alert.
        inc.raised = true;
      }
    }
    return inc;
  }

  private resolve(inc: Incident, now: number): void {
    if (inc.resolvedAt !== null) return;
    inc.resolvedAt = now;
    this.update('resolved', inc);
    for (const a of this.agents.values()) {
      if (a.incident === inc) a.incident = null;
      if (a.flapping === inc) a.flapping = null;
    }
    for (const t of this.teams.values()) {
      if (t.unreachable === inc) t.unreachable = null;
      if (t.auth === inc) t.auth = null;
    }
  }

  private teamChecks(teamId: string, now: number): void {
    const members = [...this.agents.values()].filter((a) => a.teamId === teamId);
    let t = this.teams.get(teamId);
    if (!t) {
      t = { unreachable: null, auth: null };
      this.teams.set(teamId, t);
    }
    const ids = members.map((a) => a.agentId);
    const allDown = members.length > 0 && members.every((a) => a.health === 'unreachable');
    const anyDown = members.some((a) => a.health === 'unreachable');
    if (allDown && !t.unreachable) {
      const inc = this.teamIncident(teamId, 'unreachable', ids, now);
      t.unreachable = inc;
      // Per-agent "cannot be checked" incidents are covered by the team alert.
      for (const a of members) if (a.incident?.kind === 'unreachable') a.incident.raised = true;
      this.raise(inc, 'unreachable', true, text.teamUnreachable(teamId, ids), now);
    } else if (!anyDown && t.unreachable) {
      const inc = t.unreachable;
      if (inc.delivered) this.candidate({ kind: 'recovered', urgent: false, teamId, agentIds: inc.agentIds, ...text.teamReachable(teamId, now - inc.openedAt), incidentId: inc.id });
      this.resolve(inc, now);
    }
    const anyAuth = members.some((a) => a.health === 'auth-error');
    if (anyAuth && !t.auth) {
      const inc = this.teamIncident(teamId, 'auth-error', ids, now);
      t.auth = inc;
      this.raise(inc, 'auth-error', true, text.authError(teamId), now);
    } else if (!anyAuth && t.auth) {
      const inc = t.auth;
      if (inc.delivered) this.candidate({ kind: 'recovered', urgent: false, teamId, agentIds: inc.agentIds, ...text.authOk(teamId, now - inc.openedAt), incidentId: inc.id });
      this.resolve(inc, now);
    }
  }

  private teamIncident(teamId: string, kind: IncidentKind, agentIds: string[], now: number): Incident {
    const inc: Incident = {
      id: this.nextId('inc'),
      teamId,
      agentId: null,
      agentIds,
      kind,
      openedAt: now,
      delivered: false,
      raised: false,
      acknowledgedAt: null,
      resolvedAt: null,
      lastAlertAt: null,
    };
    this.update('opened', inc);
    return inc;
  }

  private timers(now: number): void {
    const r = this.rules;
    for (const a of this.agents.values()) {
      const ref = agentRef(a.agentId, a.phone);
      const inc = a.incident;
      if (inc && !inc.raised && inc.kind === 'reconnecting' && !a.flapping && now >= inc.openedAt + r.reconnectGraceSec * 1000) {
        this.raise(inc, 'reconnecting', false, text.reconnecting(ref), now);
      }
      if (inc && !inc.raised && inc.kind === 'unreachable' && now >= inc.openedAt + r.agentUnreachableDelaySec * 1000) {
        const t = this.teams.get(a.teamId);
        if (t?.unreachable) inc.raised = true;
        else this.raise(inc, 'unreachable', false, text.agentUnreachable(ref), now);
      }
      if (
        inc &&
        inc.kind === 'needs-scan' &&
        inc.raised &&
        inc.acknowledgedAt === null &&
        inc.lastAlertAt !== null &&
        now >= inc.lastAlertAt + r.realertMinutes * 60_000
      ) {
        this.raise(inc, 'realert', true, text.realert(ref, now - inc.openedAt), now);
      }
      const lastOpen = a.opens[a.opens.length - 1];
      if (a.flapping && a.health === 'connected' && lastOpen !== undefined && now >= lastOpen + r.flapWindowMinutes * 60_000) {
        const flap = a.flapping;
        if (flap.delivered) this.candidate({ kind: 'recovered', urgent: false, teamId: a.teamId, agentIds: [a.agentId], ...text.settled(ref, now - flap.openedAt), incidentId: flap.id });
        this.resolve(flap, now);
        a.opens = [];
      }
    }
  }

  private raise(inc: Incident, kind: AlertKind, urgent: boolean, t: { title: string; body: string }, now: number): void {
    inc.raised = true;
    inc.lastAlertAt = now;
    this.candidate({ kind, urgent, teamId: inc.teamId, agentIds: [...inc.agentIds], ...t, incidentId: inc.id }, inc);
  }

  private candidate(alert: Omit<Alert, 'id' | 'at'>, incident?: Incident): void {
    this.pending.push({ alert, incident });
  }

  private update(change: IncidentUpdate['change'], inc: Incident): void {
    this.out.incidents.push({ change, incident: { ...inc, agentIds: [...inc.agentIds] } });
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
      pending = pending.filter((c) => !(c.alert.kind === 'realert' && c.incident && summarized.has(c.incident)));
    }
    this.pending = [];
    if (!snoozed && !this.quiet) {
      const byTeam = new Map<string, Candidate[]>();
      for (const c of pending) byTeam.set(c.alert.teamId, [...(byTeam.get(c.alert.teamId) ?? []), c]);
      for (const [teamId, list] of byTeam) {
        for (const c of list) if (c.incident) c.incident.delivered = true;
        const alerts = list.map((c) => this.stamp(c.alert, now));
        if (alerts.length === 1) this.out.alerts.push(alerts[0]!);
        else if (alerts.length > 1) {
          const agentIds = [...new Set(alerts.flatMap((x) => x.agentIds))];
          this.out.alerts.push(
            this.stamp({ kind: 'grouped', urgent: alerts.some((x) => x.urgent), teamId, agentIds, ...text.grouped(alerts), parts: alerts }, now),
          );
        }
      }
    }
    const out = this.out;
    this.out = { alerts: [], incidents: [] };
    return out;
  }

  private stillDownSummary(now: number): Set<Incident> {
    const open = this.openIncidents().filter((i) => i.raised && i.acknowledgedAt === null);
    if (open.length === 0) return new Set();
    const teams = new Map<string, Incident[]>();
    for (const i of open) teams.set(i.teamId, [...(teams.get(i.teamId) ?? []), i]);
    for (const [teamId, list] of teams) {
      for (const i of list) {
        i.delivered = true;
        i.lastAlertAt = now;
      }
      const agentIds = [...new Set(list.flatMap((i) => i.agentIds))];
      const parts = list.map((i) => this.stamp({ kind: i.kind, urgent: i.kind === 'needs-scan', teamId, agentIds: i.agentIds, title: `${i.agentId ?? `team ${teamId}`}: ${i.kind}`, body: '', incidentId: i.id }, now));
      this.out.alerts.push(
        this.stamp({ kind: 'still-down', urgent: list.some((i) => i.kind === 'needs-scan' || i.agentId === null), teamId, agentIds, ...text.stillDown(list, now), parts }, now),
      );
    }
    return new Set(open);
  }

  private stamp(a: Omit<Alert, 'id' | 'at'>, now: number): Alert {
    return { ...a, id: this.nextId('alert'), at: now };
  }

  private nextId(kind: string): string {
    this.seq++;
    return `${this.prefix}${kind}-${this.seq}`;
  }
}

function key(teamId: string, agentId: string): string {
  return `${teamId}\u0000${agentId}`;
}
