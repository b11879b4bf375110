// Team-wide incidents of the alert policy: the service unreachable for every agent of a team (one
// incident for the team, not one per agent), and the team's API key rejected.
import { text } from './policy-text';
import type { AgentState } from './policy-state';
import type { AlertKind, Incident, IncidentKind } from './types';

type Words = { title: string; body: string };

export interface TeamHooks {
  label(teamId: string): string;
  open(teamId: string, kind: IncidentKind, agentIds: string[], openedAt: number): Incident;
  raise(inc: Incident, kind: AlertKind, urgent: boolean, t: Words, now: number): void;
  /** A closing notice (sent only when the person was told about the incident). */
  notice(inc: Incident, kind: AlertKind, t: Words): void;
  resolve(inc: Incident, now: number): void;
}

interface TeamState {
  unreachable: Incident | null;
  auth: Incident | null;
}

export class TeamBook {
  private readonly teams = new Map<string, TeamState>();

  constructor(private readonly hooks: TeamHooks) {}

  open(): Incident[] {
    const list: Incident[] = [];
    for (const t of this.teams.values()) {
      if (t.unreachable) list.push(t.unreachable);
      if (t.auth) list.push(t.auth);
    }
    return list;
  }

  /** Takes up a team incident a previous run left open; false when the team has one of that kind already. */
  restore(inc: Incident): boolean {
    let t = this.teams.get(inc.teamId);
    if (!t) {
      t = { unreachable: null, auth: null };
      this.teams.set(inc.teamId, t);
    }
    if (inc.kind === 'unreachable' && !t.unreachable) t.unreachable = inc;
    else if (inc.kind === 'key-rejected' && !t.auth) t.auth = inc;
    else return false;
    return true;
  }

  /**
   * Another watcher judges the team from now on (TeamJudge): its open incidents are dropped here without a
   * word; they go on there (restore).
   */
  release(teamId: string): void {
    this.teams.delete(teamId);
  }

  /** The service is unreachable for every agent of the team (a team incident is open). */
  isDown(teamId: string): boolean {
    return (this.teams.get(teamId)?.unreachable ?? null) !== null;
  }

  /** Opens or closes the team's incidents after its agents changed. */
  check(teamId: string, members: AgentState[], now: number): void {
    let t = this.teams.get(teamId);
    if (!t) {
      t = { unreachable: null, auth: null };
      this.teams.set(teamId, t);
    }
    const h = this.hooks;
    const label = h.label(teamId);
    const ids = members.map((a) => a.agentId);
    const allDown = members.length > 0 && members.every((a) => a.health === 'unreachable');
    // An agent not seen yet ('unknown': just taken over from another watcher) neither opens nor closes one.
    const anyUp = members.some((a) => a.health !== 'unreachable' && a.health !== 'unknown');
    const anySeen = members.some((a) => a.health !== 'unknown');
    if (allDown && !t.unreachable) {
      let openedAt = now;
      for (const a of members) if (a.down !== null && a.down.since < openedAt) openedAt = a.down.since;
      const inc = h.open(teamId, 'unreachable', ids, openedAt);
      t.unreachable = inc;
      // An agent already alerted as "cannot be checked" is covered by the team's incident now.
      for (const a of members) if (a.incident?.kind === 'unreachable') h.resolve(a.incident, now);
      h.raise(inc, 'unreachable', true, text.teamUnreachable(label, ids), now);
    } else if ((anyUp || members.length === 0) && t.unreachable) {
      const inc = t.unreachable;
      t.unreachable = null;
      if (members.length > 0) h.notice(inc, 'recovered', text.teamReachable(label, now - inc.openedAt));
      else inc.removed = true;
      h.resolve(inc, now);
      // The service answers again: an agent still failing gets a fresh look before it is alerted alone.
      for (const a of members) if (a.health === 'unreachable') a.down = { since: a.down?.since ?? now, seen: now };
    }
    const anyAuth = members.some((a) => a.health === 'key-rejected');
    if (anyAuth && !t.auth) {
      const inc = h.open(teamId, 'key-rejected', ids, now);
      t.auth = inc;
      h.raise(inc, 'key-rejected', true, text.keyRejected(label), now);
    } else if (!anyAuth && (anySeen || members.length === 0) && t.auth) {
      const inc = t.auth;
      t.auth = null;
      if (members.length > 0) h.notice(inc, 'recovered', text.authOk(label, now - inc.openedAt));
      else inc.removed = true;
      h.resolve(inc, now);
    }
  }
}
