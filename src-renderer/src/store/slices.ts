// The store's core slices: teams, agents with live health, UI (route). Data arrives only through
// the bridge. Alerts, settings, pairing and notices live in their own files; AppState joins them.
import type { StateCreator } from 'zustand';
import type { AgentDTO, AgentHealthDTO, Api, ErrorDTO, TeamDTO } from '../../../src-shared/contract';
import type { AlertsSlice } from './alerts';
import { liveHistoryEntry, mergeHistory } from './history';
import type { NoticesSlice } from './notices';
import type { PairingSlice } from './pairing';
import type { SettingsSlice } from './settings';
import type { SlicesB } from './slices-b';

export const agentKey = (teamId: string, agentId: string): string => `${teamId}/${agentId}`;

export interface TeamsSlice {
  teams: TeamDTO[];
  loaded: boolean;
  addTeam(input: { label: string; baseUrl: string; apiKey: string; agentIds: string[] }): Promise<ErrorDTO | null>;
  removeTeam(teamId: string): Promise<ErrorDTO | null>;
  addAgent(teamId: string, agentId: string, label?: string): Promise<ErrorDTO | null>;
  removeAgent(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  startDemo(): Promise<ErrorDTO | null>;
  setTeams(teams: TeamDTO[]): void;
}

export interface AgentsSlice {
  /** Keyed by agentKey(teamId, agentId); insertion order is display order. */
  agents: Record<string, AgentDTO>;
  /**
   * Health that arrived for agents not in `agents` yet (a health.changed event can overtake the
   * agents.list answer); setAgents uses it when it is newer than the listed health.
   */
  healthBuffer: Record<string, AgentHealthDTO>;
  setAgents(list: AgentDTO[]): void;
  applyHealth(h: AgentHealthDTO): void;
}

export interface UiSlice {
  lastError: ErrorDTO | null;
  /** The hash route, e.g. "#/agents/a1?team=t1". */
  route: string;
  setRoute(route: string): void;
  clearError(): void;
}

/** Injected time, so tests are deterministic. */
export interface StoreEnv {
  now(): number;
}

export type AppState = TeamsSlice &
  AgentsSlice &
  AlertsSlice &
  UiSlice &
  NoticesSlice &
  SettingsSlice &
  PairingSlice &
  SlicesB & { refresh(): Promise<void> };
export type Slice<T> = StateCreator<AppState, [], [], T>;

export const teamsSlice =
  (api: Api): Slice<TeamsSlice> =>
  (set, get) => {
    const thenRefresh = async (r: { ok: true } | { ok: false; error: ErrorDTO }): Promise<ErrorDTO | null> => {
      if (!r.ok) return r.error;
      await get().refresh();
      return null;
    };
    return {
      teams: [],
      loaded: false,
      setTeams: (teams) => set({ teams }),
      addTeam: async ({ label, baseUrl, apiKey, agentIds }) =>
        thenRefresh(await api['teams.add']({ label, baseUrl, apiKey, agents: agentIds.map((agentId) => ({ agentId })) })),
      removeTeam: async (teamId) => thenRefresh(await api['teams.remove']({ teamId })),
      addAgent: async (teamId, agentId, label) =>
        thenRefresh(await api['agents.add']({ teamId, agentId, ...(label ? { label } : {}) })),
      removeAgent: async (teamId, agentId) => thenRefresh(await api['agents.remove']({ teamId, agentId })),
      startDemo: async () => thenRefresh(await api['demo.start']()),
    };
  };

/** Agents whose health arrived before they were listed are kept at most this many. */
const HEALTH_BUFFER_MAX = 500;

/** The newer of two health reports: by checkedAt (null = never polled), then by since. */
export function newerHealth(a: AgentHealthDTO, b: AgentHealthDTO): AgentHealthDTO {
  const ca = a.checkedAt ?? -Infinity;
  const cb = b.checkedAt ?? -Infinity;
  if (ca !== cb) return ca > cb ? a : b;
  return b.since > a.since ? b : a;
}

export const agentsSlice: Slice<AgentsSlice> = (set) => ({
  agents: {},
  healthBuffer: {},
  setAgents: (list) =>
    set((s) => {
      const agents: Record<string, AgentDTO> = {};
      for (const a of list) {
        const key = agentKey(a.teamId, a.agentId);
        // A list answer may be older than a health event already applied or buffered: keep the newer.
        const known = [s.agents[key]?.health, s.healthBuffer[key]].filter((h): h is AgentHealthDTO => h !== undefined);
        const health = known.reduce((best, h) => newerHealth(best, h), a.health);
        agents[key] = health === a.health ? a : { ...a, health };
      }
      const healthBuffer = Object.fromEntries(Object.entries(s.healthBuffer).filter(([k]) => !(k in agents)));
      return { agents, healthBuffer };
    }),
  applyHealth: (h) =>
    set((s) => {
      const key = agentKey(h.teamId, h.agentId);
      const current = s.agents[key];
      if (!current) {
        const prev = s.healthBuffer[key];
        const rest = Object.entries(s.healthBuffer).filter(([k]) => k !== key);
        const kept = rest.length >= HEALTH_BUFFER_MAX ? rest.slice(rest.length - HEALTH_BUFFER_MAX + 1) : rest;
        return { healthBuffer: { ...Object.fromEntries(kept), [key]: prev ? newerHealth(prev, h) : h } };
      }
      const agents = { ...s.agents, [key]: { ...current, health: h } };
      // The agent's timeline, once loaded, grows with each change of the health word.
      const shown = s.healthHistory[key];
      const entry = shown ? liveHistoryEntry(current.health, h) : null;
      return entry && shown ? { agents, healthHistory: { ...s.healthHistory, [key]: mergeHistory([entry], shown) } } : { agents };
    }),
});

/** Only hash routes ("#/…") are accepted; anything else goes home. */
export function normalizeRoute(route: string): string {
  return route.startsWith('#/') ? route : '#/';
}

export const uiSlice: Slice<UiSlice> = (set) => ({
  lastError: null,
  route: '#/',
  setRoute: (route) => set({ route: normalizeRoute(route) }),
  clearError: () => set({ lastError: null }),
});
