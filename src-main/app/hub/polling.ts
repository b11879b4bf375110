// A hub replica's share of the polling: its leases (leases.ts) decide which agents its companion polls,
// and what those agents show (health, incidents) is written to and read from Postgres (incidents.ts).
// Made before the replica's companion (the companion takes `share` as its CompanionOptions.pollShare),
// started once the companion runs.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../core/ports';
import type { HostedCompanion } from '../companion/hosted';
import type { PollShare } from '../companion/types';
import type { ContractEvents } from '../contract';
import { createHandlers, type Handlers } from '../handlers';
import type { HubDatabase } from './database';
import { SharedIncidents } from './incidents';
import { healthOnChange } from './health-events';
import { PollLeases } from './leases';
import { TeamIncidents } from './team-incidents';

export interface HubPolling {
  /** This replica's id: host name, process id and a random tag. */
  readonly replica: string;
  /** For the companion: it polls the agents this replica holds. */
  readonly share: PollShare;
  /** Takes the first leases, then renews them; answers the hub's handlers of health and incidents. */
  start(hosted: HostedCompanion): Promise<Partial<Handlers>>;
  /**
   * The companion's contract events as the hub publishes them: an agent's health.changed when it changes
   * (and a refresh of its poll time now and then), not after every poll.
   */
  publishedEvents(hosted: HostedCompanion): ContractEvents;
  /** Agents this replica holds now. */
  leasesHeld(): number;
  /** Health snapshots and incident changes not yet written to Postgres. */
  backlog(): number;
  /** Going away: the others stop counting this replica (no share for it). */
  drain(): Promise<void>;
  /** Writes what is pending and gives every lease back (another replica takes them at once). */
  close(): Promise<void>;
}

/** A replica id: the host, the process, and a random tag (a restarted process is a new replica). */
export function replicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function hubPolling(o: { db: HubDatabase; logger: Logger; replica?: string }): HubPolling {
  const replica = o.replica ?? replicaId();
  let hosted: HostedCompanion | null = null;
  let incidents: SharedIncidents | null = null;
  // Team-wide incidents: judged by the holder of the team's lease, over every agent of the team.
  const teams = new TeamIncidents({ db: o.db, logger: o.logger, holdsTeam: (teamId) => leases.holdsTeam(teamId) });
  const leases = new PollLeases({
    db: o.db,
    replica,
    logger: o.logger,
    intervalMs: () => hosted?.companion.monitor().pollConfig().intervalMs ?? 15_000,
    agents: () =>
      (hosted?.companion.listTeams() ?? []).flatMap((t) => t.agents.map((a) => ({ teamId: t.id, agentId: a.agentId }))),
    gained: async (agents) => incidents?.takeUp(agents),
    teams: () => (hosted?.companion.listTeams() ?? []).map((t) => t.id),
    gainedTeams: async (teamIds) => incidents?.takeUpTeams(teamIds),
    changed: () => {
      hosted?.companion.monitor().refresh();
      if (hosted) void teams.judgeNow();
    },
  });
  let closed = false;
  return {
    replica,
    share: {
      targets: (all) => leases.targets(all),
      watchedElsewhere: (t) => leases.watchedElsewhere(t),
      teamJudge: teams,
    },
    async start(h) {
      hosted = h;
      incidents = new SharedIncidents({
        db: o.db,
        replica,
        companion: h.companion,
        events: h.contract.events,
        holds: (a) => leases.holds(a),
      });
      await incidents.start();
      await leases.start();
      await teams.start(h.companion);
      const impl = incidents.requests(h.contract.implementations);
      const all = createHandlers({ ...h.contract.implementations, ...impl });
      return Object.fromEntries(Object.keys(impl).map((k) => [k, all[k as keyof Handlers]])) as Partial<Handlers>;
    },
    publishedEvents: (h) => healthOnChange(h.contract.events, () => h.companion.monitor().pollConfig().intervalMs),
    leasesHeld: () => leases.count(),
    backlog: () => incidents?.backlog() ?? 0,
    drain: () => leases.drain(),
    async close() {
      if (closed) return;
      closed = true;
      await leases.close();
      await teams.close();
      await incidents?.close();
    },
  };
}
