// Teams and agents: the list, each agent's live health, and its health timeline. Data arrives only
// through the bridge (a list answer, then health.changed events, which may overtake it).
import type {
  AgentDTO,
  AgentHealthDTO,
  AvailabilityDTO,
  ErrorDTO,
  HealthHistoryEntryDTO,
  Health,
  TeamDTO,
} from '../../../src-shared/contract';
import { HEALTHS } from '../../../src-shared/contract';
import { movesInOrder, reorder, sortedKeys } from './agent-order';
import { agentKey, type Slice } from './env';
import { frameBatch } from './frame-batch';
import { liveHistoryEntry, mergeHistory } from './history';

export interface AgentsSlice {
  teams: TeamDTO[];
  /** True once the first refresh has answered. */
  loaded: boolean;
  /**
   * Keyed by agentKey(teamId, agentId); insertion order is display order. A new record when agents are
   * listed or an agent's settings change; a health event replaces its agent's entry in place (the record
   * stays the same object: a team of thousands is not copied per poll). Whoever shows health selects the
   * entry (`s.agents[key]`), `agentOrder` or `healthCounts`; a selector of the whole record wakes only
   * for the list's changes.
   */
  agents: Record<string, AgentDTO>;
  /**
   * The keys of `agents`, worst health first (see agent-order.ts). A new array whenever the order or
   * what the Agents screen filters on (health, state, phone, labels) changes; the same array after a
   * poll that changed only what a row shows, so the list is not filtered or laid out again for it.
   */
  agentOrder: string[];
  /** How many agents have each health; kept by each health event (not counted again over every agent). */
  healthCounts: Readonly<Record<Health, number>>;
  /**
   * Health that arrived for agents not in `agents` yet (a health.changed event can overtake the
   * agents.list answer); setAgents uses it when it is newer than the listed health.
   */
  healthBuffer: Record<string, AgentHealthDTO>;
  /**
   * Each agent's health changes, newest first, by agentKey; present once loaded, then kept current
   * by health.changed events (see applyHealth).
   */
  healthHistory: Record<string, HealthHistoryEntryDTO[]>;
  /** Reads teams and agents; answers the first error (what did load is kept). */
  loadTeams(): Promise<ErrorDTO | null>;
  loadHealthHistory(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  /** Each agent's availability over 24 h / 7 d / 30 d, by agentKey, as last read. */
  availability: Record<string, AvailabilityDTO>;
  loadAvailability(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  setAgents(list: AgentDTO[]): void;
  applyHealth(h: AgentHealthDTO): void;
  /** Several health events in one store update (one render of each changed row). */
  applyHealthBatch(list: readonly AgentHealthDTO[]): void;
  /**
   * A health.changed event, applied with every other one that arrives meanwhile, in the next frame
   * and at most every 250 ms: a team of thousands of agents sends hundreds a second, and each store
   * update costs every subscriber a look.
   */
  applyHealthInFrame(h: AgentHealthDTO): void;
  addTeam(input: {
    label: string;
    baseUrl: string;
    apiKey: string;
    agentIds: string[];
    allowInsecureHttp?: boolean;
  }): Promise<ErrorDTO | null>;
  /** Changes a team in place (its id and history stay); only the fields given change. */
  updateTeam(
    teamId: string,
    patch: { label?: string; baseUrl?: string; apiKey?: string; allowInsecureHttp?: boolean },
  ): Promise<ErrorDTO | null>;
  removeTeam(teamId: string): Promise<ErrorDTO | null>;
  addAgent(teamId: string, agentId: string, label?: string): Promise<ErrorDTO | null>;
  removeAgent(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  /** Polls the agent at the fast interval all the time (on) or at the poll interval (off). */
  setWatchClosely(teamId: string, agentId: string, on: boolean): Promise<ErrorDTO | null>;
  /** Changes the agent's labels (`add`, `remove`); the list's filters see them at once. */
  setAgentLabels(
    teamId: string,
    agentId: string,
    change: { add?: string[]; remove?: string[] },
  ): Promise<ErrorDTO | null>;
  startDemo(): Promise<ErrorDTO | null>;
}

/** Health events are committed at most this often (ms): a poll's result is on screen within it. */
const HEALTH_COMMIT_MS = 250;

/** Agents whose health arrived before they were listed are kept at most this many. */
const HEALTH_BUFFER_MAX = 500;

/** The newer of two health reports: by checkedAt (null = never polled), then by since. */
function newerHealth(a: AgentHealthDTO, b: AgentHealthDTO): AgentHealthDTO {
  const ca = a.checkedAt ?? -Infinity;
  const cb = b.checkedAt ?? -Infinity;
  if (ca !== cb) return ca > cb ? a : b;
  return b.since > a.since ? b : a;
}

function countHealths(agents: Readonly<Record<string, AgentDTO>>): Record<Health, number> {
  const counts = Object.fromEntries(HEALTHS.map((h) => [h, 0])) as Record<Health, number>;
  for (const key in agents) counts[agents[key]!.health.health]++;
  return counts;
}

/** A change of teams or agents reloads the whole store (refresh). */
export const agentsSlice: Slice<AgentsSlice, { refresh(): Promise<void> }> = ({ set, get, api, env }) => {
  // Each commit wakes every subscriber (a team's hub sends hundreds of events a second): health
  // events are committed together, in a frame, at most every HEALTH_COMMIT_MS.
  let committedAt = -Infinity;
  const healthFrames = frameBatch<AgentHealthDTO>(
    (fn) => {
      const wait = committedAt + HEALTH_COMMIT_MS - env.now();
      if (wait > 0) env.later(wait, () => env.nextFrame(fn));
      else env.nextFrame(fn);
    },
    (batch) => {
      committedAt = env.now();
      get().applyHealthBatch([...batch.values()].flat());
    },
  );
  const thenRefresh = async (r: { ok: true } | { ok: false; error: ErrorDTO }): Promise<ErrorDTO | null> => {
    if (!r.ok) return r.error;
    await get().refresh();
    return null;
  };
  return {
    teams: [],
    loaded: false,
    agents: {},
    agentOrder: [],
    healthCounts: countHealths({}),
    healthBuffer: {},
    healthHistory: {},
    availability: {},
    loadTeams: async () => {
      const [teams, agents] = await Promise.all([api['teams.list'](), api['agents.list']()]);
      if (teams.ok) set({ teams: teams.value });
      if (agents.ok) get().setAgents(agents.value);
      else if (teams.ok) set((s) => ({ agentOrder: sortedKeys(s.agents, s.teams) }));
      return !teams.ok ? teams.error : !agents.ok ? agents.error : null;
    },
    loadHealthHistory: async (teamId, agentId) => {
      const r = await api['health.history']({ teamId, agentId });
      if (!r.ok) return r.error;
      const loaded = Array.isArray(r.value) ? r.value : [];
      const key = agentKey(teamId, agentId);
      // Live entries that arrived while loading are kept.
      set((s) => ({ healthHistory: { ...s.healthHistory, [key]: mergeHistory(loaded, s.healthHistory[key] ?? []) } }));
      return null;
    },
    loadAvailability: async (teamId, agentId) => {
      const r = await api['health.availability']({ teamId, agentId });
      if (!r.ok) return r.error;
      set((s) => ({ availability: { ...s.availability, [agentKey(teamId, agentId)]: r.value } }));
      return null;
    },
    setAgents: (list) =>
      set((s) => {
        const agents: Record<string, AgentDTO> = {};
        for (const a of list) {
          const key = agentKey(a.teamId, a.agentId);
          // A list answer may be older than a health event already applied or buffered: keep the newer.
          const known = [s.agents[key]?.health, s.healthBuffer[key]].filter(
            (h): h is AgentHealthDTO => h !== undefined,
          );
          const health = known.reduce((best, h) => newerHealth(best, h), a.health);
          agents[key] = health === a.health ? a : { ...a, health };
        }
        const healthBuffer = Object.fromEntries(Object.entries(s.healthBuffer).filter(([k]) => !(k in agents)));
        return { agents, agentOrder: sortedKeys(agents, s.teams), healthCounts: countHealths(agents), healthBuffer };
      }),
    applyHealth: (h) => get().applyHealthBatch([h]),
    applyHealthBatch: (list) =>
      set((s) => {
        // Work in proportion to the events: each changed agent's entry is replaced in the record as it
        // stands (not copied), the counts move by what changed, and the other maps are copied only when
        // one of theirs changes (few keys).
        const agents = s.agents;
        let changed = false;
        let healthCounts: Record<Health, number> | null = null;
        let healthBuffer: Record<string, AgentHealthDTO> | null = null;
        let healthHistory: Record<string, HealthHistoryEntryDTO[]> | null = null;
        const moved = new Set<string>();
        let filtered = false;
        for (const h of list) {
          const key = agentKey(h.teamId, h.agentId);
          const current = agents[key];
          if (!current) {
            const buffer: Record<string, AgentHealthDTO> = healthBuffer ?? s.healthBuffer;
            const prev = buffer[key];
            const rest = Object.entries(buffer).filter(([k]) => k !== key);
            const kept = rest.length >= HEALTH_BUFFER_MAX ? rest.slice(rest.length - HEALTH_BUFFER_MAX + 1) : rest;
            healthBuffer = { ...Object.fromEntries(kept), [key]: prev ? newerHealth(prev, h) : h };
            continue;
          }
          agents[key] = { ...current, health: h };
          changed = true;
          if (current.health.health !== h.health) {
            healthCounts ??= { ...s.healthCounts };
            healthCounts[current.health.health]--;
            healthCounts[h.health]++;
          }
          if (movesInOrder(current.health, h)) moved.add(key);
          else if (current.health.phone !== h.phone || current.health.state !== h.state) filtered = true;
          // The agent's timeline, once loaded, grows with each change of the health word.
          const shown: HealthHistoryEntryDTO[] | undefined = (healthHistory ?? s.healthHistory)[key];
          const entry: HealthHistoryEntryDTO | null = shown ? liveHistoryEntry(current.health, h) : null;
          if (entry && shown)
            healthHistory = { ...(healthHistory ?? s.healthHistory), [key]: mergeHistory([entry], shown) };
        }
        const agentOrder =
          moved.size > 0 ? reorder(s.agentOrder, moved, agents, s.teams) : filtered ? [...s.agentOrder] : s.agentOrder;
        if (!changed && !healthBuffer) return s;
        return {
          ...(healthCounts ? { healthCounts } : {}),
          ...(agentOrder !== s.agentOrder ? { agentOrder } : {}),
          ...(healthBuffer ? { healthBuffer } : {}),
          ...(healthHistory ? { healthHistory } : {}),
        };
      }),
    applyHealthInFrame: (h) => healthFrames.push(agentKey(h.teamId, h.agentId), h),
    addTeam: async ({ label, baseUrl, apiKey, agentIds, allowInsecureHttp }) =>
      thenRefresh(
        await api['teams.add']({
          label,
          baseUrl,
          apiKey,
          agents: agentIds.map((agentId) => ({ agentId })),
          ...(allowInsecureHttp ? { allowInsecureHttp: true } : {}),
        }),
      ),
    updateTeam: async (teamId, patch) => thenRefresh(await api['teams.update']({ teamId, ...patch })),
    removeTeam: async (teamId) => thenRefresh(await api['teams.remove']({ teamId })),
    addAgent: async (teamId, agentId, label) =>
      thenRefresh(await api['agents.add']({ teamId, agentId, ...(label ? { label } : {}) })),
    removeAgent: async (teamId, agentId) => thenRefresh(await api['agents.remove']({ teamId, agentId })),
    setWatchClosely: async (teamId, agentId, on) => {
      const r = await api['agents.watchClosely']({ teamId, agentId, on });
      if (!r.ok) return r.error;
      const key = agentKey(teamId, agentId);
      // Only the switch changes here: the health shown stays the newest one the events brought.
      set((s) =>
        s.agents[key]
          ? { agents: { ...s.agents, [key]: { ...s.agents[key], watchClosely: r.value.watchClosely } } }
          : {},
      );
      return null;
    },
    setAgentLabels: async (teamId, agentId, change) => {
      const r = await api['agents.setLabels']({ teamId, agentId, ...change });
      if (!r.ok) return r.error;
      const key = agentKey(teamId, agentId);
      // A new record and order: the label counts and the filters are worked out again (health stays the newest).
      set((s) =>
        s.agents[key]
          ? {
              agents: { ...s.agents, [key]: { ...s.agents[key], labels: r.value.labels } },
              agentOrder: [...s.agentOrder],
            }
          : {},
      );
      return null;
    },
    startDemo: async () => thenRefresh(await api['demo.start']()),
  };
};

/** Worst health across agents: the first in the order's. */
export function selectWorst(s: Pick<AgentsSlice, 'agents' | 'agentOrder'>): Health {
  const first = s.agentOrder[0];
  return (first !== undefined ? s.agents[first]?.health.health : undefined) ?? 'unknown';
}

/** How many agents have each health (kept by the store as events arrive). */
export function selectHealthCounts(s: Pick<AgentsSlice, 'healthCounts'>): Readonly<Record<Health, number>> {
  return s.healthCounts;
}

/** A selector worked out again only when `agentOrder` is a new array (the same answer, the same object, otherwise). */
export function onOrderChange<T>(
  derive: (s: Pick<AgentsSlice, 'agents' | 'agentOrder' | 'teams'>) => T,
): (s: Pick<AgentsSlice, 'agents' | 'agentOrder' | 'teams'>) => T {
  let order: readonly string[] | null = null;
  let teams: readonly TeamDTO[] | null = null;
  let last: T;
  return (s) => {
    if (s.agentOrder !== order || s.teams !== teams) {
      order = s.agentOrder;
      teams = s.teams;
      last = derive(s);
    }
    return last;
  };
}
