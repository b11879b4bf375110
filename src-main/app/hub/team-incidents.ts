// Team-wide incidents on a hub (the service unreachable for every agent of a team, the team's key rejected):
// one per team across replicas. The replica that holds the team's lease (hub_team_leases, app/hub/leases.ts)
// alone raises and resolves them, judging over every agent of the team: those it polls as it polls them, the
// others as their holders wrote them to hub_health, read every READ_MS. The other replicas judge no team-wide
// incident; while one is open they do not alert their unreachable agents one by one either (the team's
// incident covers them). A replica that takes a team's lease over continues its open team-wide incidents.
import { sql } from 'kysely';
import type { Health, TeamJudge, TeamMemberHealth } from '../../core/monitor';
import type { Logger } from '../../core/ports';
import type { Companion } from '../companion/companion';
import { serial } from '../serial';
import type { HubDatabase } from './database';

/** How often the team's agents polled elsewhere, and the team-wide outages judged elsewhere, are read (ms). */
const READ_MS = 1_000;

interface TeamIncidentsOptions {
  db: HubDatabase;
  logger: Logger;
  /** Whether this replica holds the team's lease now. */
  holdsTeam(teamId: string): boolean;
}

export class TeamIncidents implements TeamJudge {
  /** The agents of the teams judged here, as their holders wrote them (agents without a row: unknown). */
  private members = new Map<string, TeamMemberHealth[]>();
  /** Teams with a team-wide outage open (judged by any replica). */
  private down = new Set<string>();
  private companion: Companion | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The reads, one at a time. */
  private readonly reads = serial();
  private failing = false;
  private closed = false;

  constructor(private readonly o: TeamIncidentsOptions) {}

  // ----- TeamJudge ------------------------------------------------------------------------------

  judges(teamId: string): boolean {
    return this.o.holdsTeam(teamId);
  }

  elsewhere(teamId: string): TeamMemberHealth[] {
    return this.members.get(teamId) ?? [];
  }

  downElsewhere(teamId: string): boolean {
    return !this.o.holdsTeam(teamId) && this.down.has(teamId);
  }

  // ----- lifecycle ------------------------------------------------------------------------------

  /** Reads, then judges every team again every READ_MS. */
  async start(companion: Companion): Promise<void> {
    this.companion = companion;
    await this.read();
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.reads.idle();
  }

  /** Reads what the other replicas saw and judges every team again (the leases changed, or time passed). */
  judgeNow(): Promise<void> {
    return this.reads(() => this.read());
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.judgeNow().finally(() => this.schedule());
    }, READ_MS);
    this.timer.unref();
  }

  private async read(): Promise<void> {
    const c = this.companion;
    if (!c || this.closed) return;
    const teams = c.listTeams();
    const judged = teams.filter((t) => this.o.holdsTeam(t.id));
    try {
      const rows =
        judged.length === 0
          ? []
          : (
              await sql<{ team_id: string; agent_id: string; health: Health; since: string | null }>`
                select team_id, agent_id, health->>'health' as health, health->>'since' as since
                from hub_health where team_id = any(${judged.map((t) => t.id)}::text[])`.execute(this.o.db)
            ).rows;
      const down = await sql<{ team_id: string }>`
        select distinct team_id from hub_incidents
        where open and agent_id is null and incident->>'kind' = 'unreachable'`.execute(this.o.db);
      const seen = new Map(rows.map((r) => [`${r.team_id}\u0000${r.agent_id}`, r]));
      this.members = new Map(
        judged.map((t) => [
          t.id,
          t.agents.map((a): TeamMemberHealth => {
            const r = seen.get(`${t.id}\u0000${a.agentId}`);
            const health = r?.health ?? 'unknown';
            return {
              agentId: a.agentId,
              health,
              downSince: health === 'unreachable' && r?.since ? Number(r.since) : null,
            };
          }),
        ]),
      );
      this.down = new Set(down.rows.map((r) => r.team_id));
      if (this.failing) this.o.logger.info('hub: the team-wide health is read again');
      this.failing = false;
    } catch (err) {
      // Judged on what was read last; read again next time.
      if (!this.failing)
        this.o.logger.warn('hub: the team-wide health could not be read', {
          error: err instanceof Error ? err.message : String(err),
        });
      this.failing = true;
    }
    if (!this.closed) c.monitor().judgeTeams(teams.map((t) => t.id));
  }
}
