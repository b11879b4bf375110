// Poll leases: each agent is polled by exactly one hub replica at a time. A replica holds an agent for
// LEASE_INTERVALS poll intervals and renews what it holds every ROUND_FRACTION of an interval, in one
// statement per round (INSERT … ON CONFLICT DO UPDATE … WHERE the lease expired or is this replica's),
// so a replica that dies leaves its agents to the others within two intervals: its leases run out at
// most 1.5 intervals after its last round, and a live replica's next round is at most half an interval
// later. The agents are spread over the live replicas (a heartbeat each, in hub_replicas): a replica
// claims at most ceil(agents / live replicas) and gives back what it holds beyond that, so a replica
// that joins gets its share within a round or two. Postgres' clock decides every expiry (now()), so
// the replicas' own clocks never disagree about one. Each team's team-wide incidents are judged by one
// replica: the holder of the team's lease (hub_team_leases), claimed, renewed and run out the same way in
// the same round (app/hub/team-incidents.ts).
import { sql } from 'kysely';
import type { PollTarget } from '../../core/monitor';
import type { Logger } from '../../core/ports';
import type { PollShare } from '../companion/types';
import type { HubDatabase } from './database';

/** A lease lasts this many poll intervals… */
const LEASE_INTERVALS = 1.5;
/** …and is renewed every this much of one. */
const ROUND_FRACTION = 0.5;
/** A replica whose heartbeat is older than this many intervals counts as gone. */
const LIVE_INTERVALS = 1;

export interface AgentKey {
  teamId: string;
  agentId: string;
}

export interface PollLeasesOptions {
  db: HubDatabase;
  /** This replica's id (unique among the hub's processes). */
  replica: string;
  /** The poll interval now (ms). */
  intervalMs(): number;
  /** Every agent of every team of the hub. */
  agents(): AgentKey[];
  /**
   * Agents this replica holds from now on, before any of them is polled here (awaited): the open
   * incidents of their previous holder are taken up here (app/hub/incidents.ts).
   */
  gained(agents: AgentKey[]): Promise<void>;
  /** Every team of the hub (its team-wide incidents are judged by the holder of its lease; default none). */
  teams?(): string[];
  /**
   * Teams whose lease this replica holds from now on, before it judges them (awaited): their open team-wide
   * incidents are taken up here.
   */
  gainedTeams?(teamIds: string[]): Promise<void>;
  /** The agents held here changed: the monitor re-reads its targets. */
  changed(): void;
  logger: Logger;
}

function keyOf(a: AgentKey): string {
  return `${a.teamId}\u0000${a.agentId}`;
}

export class PollLeases implements PollShare {
  private held = new Set<string>();
  private heldTeams = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private failing = false;
  /** When the last round won its leases (ms, this process' clock). */
  private wonAt = 0;

  constructor(private readonly o: PollLeasesOptions) {}

  // ----- PollShare ------------------------------------------------------------------------------

  targets(all: PollTarget[]): PollTarget[] {
    return all.filter((t) => this.held.has(keyOf(t)));
  }

  watchedElsewhere(t: PollTarget): boolean {
    // Gone from the targets while still held here: the agent itself was removed (its incident closes).
    return !this.held.has(keyOf(t));
  }

  // ----- reading --------------------------------------------------------------------------------

  /** How many agents this replica holds now. */
  count(): number {
    return this.held.size;
  }

  holds(a: AgentKey): boolean {
    return this.held.has(keyOf(a));
  }

  /** Whether this replica holds the team's lease (it judges the team's team-wide incidents). */
  holdsTeam(teamId: string): boolean {
    return this.heldTeams.has(teamId);
  }

  // ----- lifecycle ------------------------------------------------------------------------------

  /** The first round (awaited), then one every ROUND_FRACTION of an interval. */
  async start(): Promise<void> {
    await this.round();
    this.schedule();
  }

  /**
   * Gives every lease back at once (a graceful drain): another replica takes the agents over at its
   * next round, not when the leases would have run out. Nothing is polled here after.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.held = new Set();
    this.heldTeams = new Set();
    this.o.changed();
    const me = this.o.replica;
    try {
      await this.o.db.deleteFrom('hub_leases').where('holder', '=', me).execute();
      await this.o.db.deleteFrom('hub_team_leases').where('holder', '=', me).execute();
      await this.o.db.deleteFrom('hub_replicas').where('replica', '=', me).execute();
    } catch (err) {
      this.o.logger.warn('leases: not given back (they run out by themselves)', { error: errorText(err) });
    }
  }

  /** Says this replica is going away: the others stop counting it at once and take no share for it. */
  async drain(): Promise<void> {
    await this.o.db
      .updateTable('hub_replicas')
      .set({ draining: true })
      .where('replica', '=', this.o.replica)
      .execute()
      .catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed) return;
    const wait = Math.max(50, Math.round(this.o.intervalMs() * ROUND_FRACTION));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.round().finally(() => this.schedule());
    }, wait);
    this.timer.unref();
  }

  /** One round: heartbeat, then claim and renew this replica's share, give back the rest. */
  private async round(): Promise<void> {
    if (this.closed) return;
    const me = this.o.replica;
    const interval = this.o.intervalMs();
    const agents = this.o.agents();
    const teams = this.o.teams?.() ?? [];
    const startedAt = Date.now();
    let won: Set<string>;
    let wonTeams: Set<string>;
    try {
      [won, wonTeams] = await this.o.db.transaction().execute(async (trx) => {
        await sql`
          insert into hub_replicas (replica, heartbeat_at, draining) values (${me}, now(), false)
          on conflict (replica) do update set heartbeat_at = now()`.execute(trx);
        const live = await sql<{ n: string }>`
          select count(*) as n from hub_replicas
          where not draining and heartbeat_at > now() - make_interval(secs => ${(interval * LIVE_INTERVALS) / 1000})
        `.execute(trx);
        const replicas = Math.max(1, Number(live.rows[0]?.n ?? 1));
        const share = Math.ceil(agents.length / replicas);
        // The one claim of the round: what this replica holds first (renewed), then free or expired
        // leases at random, up to its share; a lease another live replica holds is never taken.
        const claimed = await sql<{ team_id: string; agent_id: string }>`
          with wanted as (
            select a.team_id, a.agent_id
            from unnest(${agents.map((a) => a.teamId)}::text[], ${agents.map((a) => a.agentId)}::text[])
              as a(team_id, agent_id)
            left join hub_leases l on l.team_id = a.team_id and l.agent_id = a.agent_id
            where l.team_id is null or l.holder = ${me} or l.expires_at < now()
            order by (l.holder is not distinct from ${me}) desc, random()
            limit ${share}
          )
          insert into hub_leases (team_id, agent_id, holder, expires_at)
          select team_id, agent_id, ${me}, now() + make_interval(secs => ${(interval * LEASE_INTERVALS) / 1000})
          from wanted
          on conflict (team_id, agent_id) do update
            set holder = excluded.holder, expires_at = excluded.expires_at
            where hub_leases.expires_at < now() or hub_leases.holder = excluded.holder
          returning team_id, agent_id`.execute(trx);
        // Held here but not renewed this round (beyond the share, or no longer an agent): given back.
        // now() is the transaction's start, the same instant the claim used.
        await sql`
          delete from hub_leases where holder = ${me}
          and expires_at <> now() + make_interval(secs => ${(interval * LEASE_INTERVALS) / 1000})`.execute(trx);
        // The teams: each judged by one replica, its lease claimed and renewed the same way (no share).
        const teamsClaimed = await sql<{ team_id: string }>`
          insert into hub_team_leases (team_id, holder, expires_at)
          select t.team_id, ${me}, now() + make_interval(secs => ${(interval * LEASE_INTERVALS) / 1000})
          from unnest(${teams}::text[]) as t(team_id)
          on conflict (team_id) do update
            set holder = excluded.holder, expires_at = excluded.expires_at
            where hub_team_leases.expires_at < now() or hub_team_leases.holder = excluded.holder
          returning team_id`.execute(trx);
        await sql`delete from hub_team_leases where holder = ${me} and not (team_id = any(${teams}::text[]))`.execute(
          trx,
        );
        return [
          new Set(claimed.rows.map((r) => keyOf({ teamId: r.team_id, agentId: r.agent_id }))),
          new Set(teamsClaimed.rows.map((r) => r.team_id)),
        ] as const;
      });
      this.wonAt = startedAt;
      if (this.failing) this.o.logger.info('leases: the database answers again');
      this.failing = false;
    } catch (err) {
      // The database does not answer: what is held stays polled until its leases would have run out.
      if (!this.failing) this.o.logger.warn('leases: a round failed', { error: errorText(err) });
      this.failing = true;
      // Leases not renewed have run out: another replica may poll those agents now, so this one stops.
      if ((this.held.size > 0 || this.heldTeams.size > 0) && Date.now() - this.wonAt > interval * LEASE_INTERVALS) {
        this.held = new Set();
        this.heldTeams = new Set();
        this.o.changed();
      }
      return;
    }
    if (this.closed) return;
    const gained = [...won].filter((k) => !this.held.has(k));
    const lost = [...this.held].filter((k) => !won.has(k));
    if (gained.length > 0) {
      const keys = gained.map((k) => {
        const [teamId = '', agentId = ''] = k.split('\u0000');
        return { teamId, agentId };
      });
      try {
        await this.o.gained(keys);
      } catch (err) {
        this.o.logger.warn('leases: the incidents of the agents taken over were not read', { error: errorText(err) });
      }
    }
    const gainedTeams = [...wonTeams].filter((t) => !this.heldTeams.has(t));
    const teamsChanged = gainedTeams.length > 0 || [...this.heldTeams].some((t) => !wonTeams.has(t));
    if (gainedTeams.length > 0) {
      try {
        await this.o.gainedTeams?.(gainedTeams);
      } catch (err) {
        this.o.logger.warn('leases: the team incidents of the teams taken over were not read', {
          error: errorText(err),
        });
      }
    }
    this.held = won;
    this.heldTeams = wonTeams;
    if (gained.length > 0 || lost.length > 0) {
      this.o.logger.info('leases: agents held', { held: won.size, gained: gained.length, given: lost.length });
    }
    if (gained.length > 0 || lost.length > 0 || teamsChanged) this.o.changed();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
