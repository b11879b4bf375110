// Health and incidents shared by the hub's replicas. The replica that holds an agent's lease polls it,
// so it alone raises the agent's incidents and posts their alerts (one incident, one notification, one
// Alertmanager alert per event across replicas); it writes the agent's health and its incidents to
// Postgres (hub_health, hub_incidents), and every replica answers agents.list, health.snapshot, alerts.list
// and alerts.history from there, so any replica shows every agent. A replica that takes an agent over
// continues its open incident (same id, same start): it reads it before its first poll of the agent.
// An acknowledgement or a snooze made on any replica is written at once (with the member who made it)
// and recorded in hub_incident_actions; every replica reads the new actions every ACTIONS_READ_MS and
// applies them to the incidents it holds (the holder stops re-alerting), a snooze to all.
import { sql } from 'kysely';
import type { AlertEventDTO, AgentHealthDTO, IncidentDTO } from '../../../src-shared/contract';
import type { Incident, IncidentUpdate, TimelineEntry } from '../../core/monitor';
import type { Companion } from '../companion/companion';
import type { ContractEvents } from '../contract';
import { agentHealthDTO } from '../contract/dto';
import { timelineRequests } from '../contract/health';
import { createScope } from '../contract/scope';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import { unknownHealth, worstHealth } from '../health';
import { serial } from '../serial';
import { actingMember } from './acting';
import type { HubDatabase } from './database';
import type { AgentKey } from './leases';

/** How often what changed is written, and the others' actions read (ms). */
const FLUSH_MS = 250;
/** An agent's health changes are kept this long (availability looks back 30 days)… */
const TIMELINE_KEEP_MS = 31 * 24 * 3_600_000;
/** …deleted beyond it at most this often… */
const TIMELINE_PRUNE_MS = 3_600_000;
/** …and at most this many (the newest) read for one agent, as the data folder's timeline keeps. */
const TIMELINE_READ_MAX = 500;
const ACTIONS_READ_MS = 1_000;

interface PendingIncident {
  teamId: string;
  agentId: string | null;
  incident?: Incident;
  dto?: IncidentDTO;
}

interface IncidentRow {
  id: string;
  dto: IncidentDTO | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
}

export interface SharedIncidentsOptions {
  db: HubDatabase;
  replica: string;
  companion: Companion;
  events: ContractEvents;
  /** Whether this replica polls the agent now (holds its lease). */
  holds(a: AgentKey): boolean;
}

type HubRequests = Pick<
  Implementations,
  | 'agents.list'
  | 'health.snapshot'
  | 'health.history'
  | 'health.availability'
  | 'alerts.list'
  | 'alerts.history'
  | 'alerts.acknowledge'
  | 'alerts.acknowledgeAll'
  | 'alerts.snooze'
  | 'alerts.unsnooze'
>;

function keyOf(a: AgentKey): string {
  return `${a.teamId}\u0000${a.agentId}`;
}

/** A stored incident's DTO with the acknowledgement made on any replica. */
function incidentOf(r: IncidentRow): IncidentDTO | null {
  if (!r.dto) return null;
  const at = r.dto.acknowledgedAt ?? (r.acknowledged_at === null ? null : Number(r.acknowledged_at));
  const by = r.dto.acknowledgedBy ?? r.acknowledged_by ?? undefined;
  return { ...r.dto, acknowledgedAt: at, ...(by !== undefined ? { acknowledgedBy: by } : {}) };
}

interface IncidentTakenUp {
  incident: Incident | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
}

/** Stored open incidents as the monitor goes on with them: an acknowledgement made on any replica kept. */
function withAcknowledgements(rows: IncidentTakenUp[]): Incident[] {
  const open: Incident[] = [];
  for (const r of rows) {
    const inc = r.incident!;
    if (inc.acknowledgedAt === null && r.acknowledged_at !== null) {
      inc.acknowledgedAt = Number(r.acknowledged_at);
      if (r.acknowledged_by !== null) inc.acknowledgedBy = r.acknowledged_by;
    }
    open.push(inc);
  }
  return open;
}

export class SharedIncidents {
  private readonly health = new Set<string>();
  /** Health changes seen here not yet written (hub_health_changes), oldest first. */
  private timeline: TimelineEntry[] = [];
  /** When changes older than TIMELINE_KEEP_MS were last deleted (ms). */
  private prunedAt = 0;
  private readonly incidents = new Map<string, PendingIncident>();
  private readonly offs: Array<() => void> = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private actionsTimer: NodeJS.Timeout | null = null;
  /** The writes, one at a time. */
  private readonly writes = serial();
  private reading: Promise<void> = Promise.resolve();
  /** The last action read (hub_incident_actions.id). */
  private cursor = '0';
  private failing = false;
  private closed = false;

  constructor(private readonly o: SharedIncidentsOptions) {
    const c = o.companion;
    this.offs.push(
      c.events.on('poll', (r) => {
        if (!this.o.holds(r)) return;
        this.health.add(keyOf(r));
        this.scheduleFlush();
      }),
      c.monitor().on('timeline', (e) => {
        if (!this.o.holds(e)) return;
        this.timeline.push(e);
        this.scheduleFlush();
      }),
      c.events.on('incident', (u: IncidentUpdate) => this.pend(u.incident.id, u.incident)),
      o.events.onAny((e) => {
        if (e.name === 'alert') this.pend((e.payload as AlertEventDTO).incident.id, undefined, e.payload.incident);
      }),
    );
  }

  /** Reads where the others' actions stand (a snooze in force applies here too), then writes and reads on. */
  async start(): Promise<void> {
    const last = await this.o.db
      .selectFrom('hub_incident_actions')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    this.cursor = String(last?.id ?? '0');
    const snooze = await this.o.db
      .selectFrom('hub_incident_actions')
      .select(['until_ms'])
      .where('kind', '=', 'snooze')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const until = snooze?.until_ms == null ? null : Number(snooze.until_ms);
    if (until !== null && until > this.o.companion.clock.now()) this.o.companion.monitor().snooze(until);
    this.scheduleActions();
  }

  /** Writes what is pending, stops. */
  async close(): Promise<void> {
    this.closed = true;
    for (const off of this.offs) off();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.actionsTimer) clearTimeout(this.actionsTimer);
    await this.reading;
    await this.flush();
  }

  /** Health snapshots and incident changes not yet written to Postgres. */
  backlog(): number {
    return this.health.size + this.incidents.size + this.timeline.length;
  }

  /**
   * Agents this replica takes over: their open incidents (of the replica that held them) go on here,
   * with an acknowledgement made meanwhile on any replica.
   */
  async takeUp(agents: AgentKey[]): Promise<void> {
    if (agents.length === 0) return;
    const rows = await sql<IncidentTakenUp>`
      select i.incident, i.acknowledged_at, i.acknowledged_by
      from hub_incidents i
      join unnest(${agents.map((a) => a.teamId)}::text[], ${agents.map((a) => a.agentId)}::text[]) as a(team_id, agent_id)
        on i.team_id = a.team_id and i.agent_id = a.agent_id
      where i.open and i.incident is not null`.execute(this.o.db);
    this.o.companion.monitor().takeUp(withAcknowledgements(rows.rows));
  }

  /**
   * Teams this replica judges from now on (app/hub/team-incidents.ts): their open team-wide incidents go on
   * here, with an acknowledgement made meanwhile on any replica.
   */
  async takeUpTeams(teamIds: string[]): Promise<void> {
    if (teamIds.length === 0) return;
    const rows = await sql<IncidentTakenUp>`
      select incident, acknowledged_at, acknowledged_by from hub_incidents
      where open and agent_id is null and incident is not null and team_id = any(${teamIds}::text[])`.execute(
      this.o.db,
    );
    this.o.companion.monitor().takeUpTeams(withAcknowledgements(rows.rows));
  }

  /** The hub's answers to the requests about every agent's health and incidents (from Postgres). */
  requests(local: Pick<Implementations, 'agents.list' | 'alerts.snooze' | 'alerts.unsnooze'>): HubRequests {
    const c = this.o.companion;
    const db = this.o.db;
    const member = (): string | null => actingMember()?.name ?? null;
    const record = (kind: string, incidentId: string | null, untilMs: number | null) =>
      db
        .insertInto('hub_incident_actions')
        .values({
          kind,
          incident_id: incidentId,
          until_ms: untilMs === null ? null : String(untilMs),
          member: member(),
          replica: this.o.replica,
        })
        .execute();
    return {
      // The agents with every agent's last poll, whichever replica made it (this replica's own when newer).
      'agents.list': async (args) => {
        const [agents, rows] = await Promise.all([
          local['agents.list'](args),
          db.selectFrom('hub_health').select(['team_id', 'agent_id', 'health']).execute(),
        ]);
        const seen = new Map(
          rows.map((r) => [keyOf({ teamId: r.team_id, agentId: r.agent_id }), r.health as AgentHealthDTO]),
        );
        return agents.map((a) => {
          const stored = seen.get(keyOf(a));
          return stored !== undefined && (stored.checkedAt ?? -1) > (a.health.checkedAt ?? -1)
            ? { ...a, health: stored }
            : a;
        });
      },
      'health.snapshot': async () => {
        const rows = await db.selectFrom('hub_health').select(['team_id', 'agent_id', 'health']).execute();
        const seen = new Map(rows.map((r) => [keyOf({ teamId: r.team_id, agentId: r.agent_id }), r.health]));
        const now = c.clock.now();
        const agents = c
          .listTeams()
          .flatMap((t) =>
            t.agents.map(
              (a) =>
                (seen.get(keyOf({ teamId: t.id, agentId: a.agentId })) as AgentHealthDTO | undefined) ??
                unknownHealth(t.id, a.agentId, now),
            ),
          );
        return { at: now, worst: worstHealth(agents.map((a) => a.health)), agents };
      },
      // Every agent's health changes as its holders wrote them: any replica answers for every agent.
      ...timelineRequests(
        createScope(c, () => undefined),
        async (teamId, agentId) => {
          await this.flush();
          const rows = await db
            .selectFrom('hub_health_changes')
            .select('entry')
            .where('team_id', '=', teamId)
            .where('agent_id', '=', agentId)
            .orderBy('at', 'desc')
            .orderBy('id', 'desc')
            .limit(TIMELINE_READ_MAX)
            .execute();
          return rows.map((r) => r.entry as TimelineEntry);
        },
      ),
      'alerts.list': async () => {
        await this.flush();
        const rows = await db
          .selectFrom('hub_incidents')
          .select(['id', 'dto', 'acknowledged_at', 'acknowledged_by'])
          .where('open', '=', true)
          .orderBy('opened_at', 'desc')
          .execute();
        return rows.map((r) => incidentOf(r as IncidentRow)).filter((d): d is IncidentDTO => d !== null);
      },
      'alerts.history': async ({ teamId, agentId, kind, limit }) => {
        let q = db
          .selectFrom('hub_incidents')
          .select(['id', 'dto', 'acknowledged_at', 'acknowledged_by'])
          .where('open', '=', false);
        if (teamId !== undefined) q = q.where('team_id', '=', teamId);
        if (agentId !== undefined) q = q.where('agent_id', '=', agentId);
        if (kind !== undefined) q = q.where(sql<string>`dto->>'kind'`, '=', kind);
        const rows = await q
          .orderBy('resolved_at', 'desc')
          .limit(limit ?? 1000)
          .execute();
        return rows.map((r) => incidentOf(r as IncidentRow)).filter((d): d is IncidentDTO => d !== null);
      },
      'alerts.acknowledge': async ({ incidentId }) => {
        await this.flush();
        const now = c.clock.now();
        const by = member();
        const row = await db
          .selectFrom('hub_incidents')
          .select(['id', 'team_id', 'agent_id', 'acknowledged_at'])
          .where('id', '=', incidentId)
          .where('open', '=', true)
          .executeTakeFirst();
        if (!row)
          throw new AppError('not-found', 'NO_INCIDENT', 'No open incident with that id (it may have been resolved).');
        if (row.acknowledged_at === null) {
          await db
            .updateTable('hub_incidents')
            .set({ acknowledged_at: String(now), acknowledged_by: by })
            .where('id', '=', incidentId)
            .where('acknowledged_at', 'is', null)
            .execute();
          await record('acknowledge', incidentId, null);
        }
        // Held here: applied at once (the others apply it when they read the action).
        c.monitor().acknowledge(incidentId, by ?? undefined);
        return null;
      },
      'alerts.acknowledgeAll': async () => {
        await this.flush();
        const now = c.clock.now();
        const done = await db
          .updateTable('hub_incidents')
          .set({ acknowledged_at: String(now), acknowledged_by: member() })
          .where('open', '=', true)
          .where('acknowledged_at', 'is', null)
          .where(sql<boolean>`(dto->>'acknowledgedAt') is null`)
          .returning('id')
          .execute();
        await record('acknowledge-all', null, null);
        c.monitor().acknowledgeAll(member() ?? undefined);
        return { count: done.length };
      },
      'alerts.snooze': async (spec) => {
        const status = await local['alerts.snooze'](spec);
        await record('snooze', null, status.snoozedUntil);
        return status;
      },
      'alerts.unsnooze': async () => {
        const status = await local['alerts.unsnooze']({});
        await record('snooze', null, null);
        return status;
      },
    };
  }

  // ----- writing --------------------------------------------------------------------------------

  private pend(id: string, incident?: Incident, dto?: IncidentDTO): void {
    const p = this.incidents.get(id) ?? { teamId: (incident ?? dto)!.teamId, agentId: null };
    if (incident) {
      p.incident = { ...incident, agentIds: [...incident.agentIds] };
      p.agentId = incident.agentId;
    }
    if (dto) {
      p.dto = dto;
      if (!incident && !p.incident) p.agentId = dto.teamWide ? null : dto.agentId;
    }
    this.incidents.set(id, p);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Writes the pending health snapshots and incident changes (one statement each), in turn. */
  flush(): Promise<void> {
    return this.writes(() => this.write());
  }

  private async write(): Promise<void> {
    if (this.health.size === 0 && this.incidents.size === 0 && this.timeline.length === 0) return;
    const monitor = this.o.companion.monitor();
    const health: Array<{ team_id: string; agent_id: string; health: AgentHealthDTO }> = [];
    for (const k of this.health) {
      const [teamId = '', agentId = ''] = k.split('\u0000');
      const snap = monitor.snapshotOf(teamId, agentId);
      if (snap) health.push({ team_id: teamId, agent_id: agentId, health: agentHealthDTO(snap) });
    }
    const incidents = [...this.incidents].map(([id, p]) => {
      const openedAt = p.incident?.openedAt ?? p.dto!.openedAt;
      const resolvedAt = p.incident ? p.incident.resolvedAt : p.dto!.resolvedAt;
      return {
        id,
        team_id: p.teamId,
        agent_id: p.agentId,
        open: resolvedAt === null,
        opened_at: openedAt,
        resolved_at: resolvedAt,
        incident: p.incident ?? null,
        dto: p.dto ?? null,
      };
    });
    const timeline = this.timeline;
    this.health.clear();
    this.incidents.clear();
    this.timeline = [];
    const me = this.o.replica;
    let timelineWritten = false;
    try {
      if (timeline.length > 0) await this.writeTimeline(timeline);
      timelineWritten = true;
      if (health.length > 0)
        await sql`
          insert into hub_health (team_id, agent_id, health, replica, updated_at)
          select r.team_id, r.agent_id, r.health, ${me}, now()
          from jsonb_to_recordset(${JSON.stringify(health)}::jsonb) as r(team_id text, agent_id text, health jsonb)
          on conflict (team_id, agent_id) do update
            set health = excluded.health, replica = excluded.replica, updated_at = excluded.updated_at`.execute(
          this.o.db,
        );
      if (incidents.length > 0)
        await sql`
          insert into hub_incidents (id, team_id, agent_id, open, opened_at, resolved_at, incident, dto, replica, updated_at)
          select r.id, r.team_id, r.agent_id, r.open, r.opened_at, r.resolved_at, r.incident, r.dto, ${me}, now()
          from jsonb_to_recordset(${JSON.stringify(incidents)}::jsonb)
            as r(id text, team_id text, agent_id text, open boolean, opened_at bigint, resolved_at bigint,
                 incident jsonb, dto jsonb)
          on conflict (id) do update set
            open = excluded.open,
            resolved_at = excluded.resolved_at,
            incident = coalesce(excluded.incident, hub_incidents.incident),
            dto = coalesce(excluded.dto, hub_incidents.dto),
            replica = excluded.replica,
            updated_at = excluded.updated_at`.execute(this.o.db);
      if (this.failing) this.o.companion.logger.info('hub: health and incidents are written again');
      this.failing = false;
    } catch (err) {
      // Kept for the next write (a newer change of the same agent or incident wins).
      if (!timelineWritten) this.timeline = [...timeline, ...this.timeline];
      for (const h of health) this.health.add(keyOf({ teamId: h.team_id, agentId: h.agent_id }));
      for (const i of incidents)
        if (!this.incidents.has(i.id))
          this.incidents.set(i.id, {
            teamId: i.team_id,
            agentId: i.agent_id,
            ...(i.incident ? { incident: i.incident } : {}),
            ...(i.dto ? { dto: i.dto } : {}),
          });
      if (!this.failing)
        this.o.companion.logger.warn('hub: health and incidents not written (retrying)', {
          error: err instanceof Error ? err.message : String(err),
        });
      this.failing = true;
      this.scheduleFlush();
    }
  }

  /**
   * Appends health changes to the agents' shared timeline. A replica that takes an agent over sees it first
   * from 'unknown': that change continues what the previous holder wrote (from its last health), and is not
   * written when the health is the same (nothing changed; the time between counts as observed).
   */
  private async writeTimeline(entries: TimelineEntry[]): Promise<void> {
    const rows = entries.map((e, ord) => ({ team_id: e.teamId, agent_id: e.agentId, at: e.at, entry: e, ord }));
    await sql`
      with r as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as r(team_id text, agent_id text, at bigint, entry jsonb, ord int)
      ), last as (
        select distinct on (h.team_id, h.agent_id) h.team_id, h.agent_id, h.entry->>'to' as health
        from hub_health_changes h
        join (select distinct team_id, agent_id from r where r.entry->>'from' = 'unknown') k
          on h.team_id = k.team_id and h.agent_id = k.agent_id
        order by h.team_id, h.agent_id, h.at desc, h.id desc
      )
      insert into hub_health_changes (team_id, agent_id, at, entry)
      select r.team_id, r.agent_id, r.at,
        case when r.entry->>'from' = 'unknown' and l.health is not null
          then jsonb_set(r.entry, '{from}', to_jsonb(l.health)) else r.entry end
      from r left join last l on l.team_id = r.team_id and l.agent_id = r.agent_id
      where not (r.entry->>'from' = 'unknown' and l.health is not distinct from r.entry->>'to')
      order by r.ord`.execute(this.o.db);
    const now = Date.now();
    if (now - this.prunedAt < TIMELINE_PRUNE_MS) return;
    this.prunedAt = now;
    // Deleted again next time if this fails: what was appended stays appended.
    await this.o.db
      .deleteFrom('hub_health_changes')
      .where('at', '<', String(now - TIMELINE_KEEP_MS))
      .execute()
      .catch(() => undefined);
  }

  // ----- the others' actions ------------------------------------------------------------------

  private scheduleActions(): void {
    if (this.closed) return;
    this.actionsTimer = setTimeout(() => {
      this.actionsTimer = null;
      this.reading = this.readActions().finally(() => this.scheduleActions());
    }, ACTIONS_READ_MS);
    this.actionsTimer.unref();
  }

  private async readActions(): Promise<void> {
    let rows: Array<{
      id: string;
      kind: string;
      incident_id: string | null;
      until_ms: string | null;
      member: string | null;
      replica: string;
    }>;
    try {
      rows = await this.o.db
        .selectFrom('hub_incident_actions')
        .select(['id', 'kind', 'incident_id', 'until_ms', 'member', 'replica'])
        .where('id', '>', this.cursor)
        .orderBy('id')
        .execute();
    } catch {
      return; // read again next time
    }
    const monitor = this.o.companion.monitor();
    for (const a of rows) {
      this.cursor = a.id;
      if (a.replica === this.o.replica || this.closed) continue;
      const by = a.member ?? undefined;
      if (a.kind === 'acknowledge' && a.incident_id !== null) monitor.acknowledge(a.incident_id, by);
      else if (a.kind === 'acknowledge-all') monitor.acknowledgeAll(by);
      else if (a.kind === 'snooze') monitor.snooze(a.until_ms === null ? null : Number(a.until_ms));
    }
  }
}
