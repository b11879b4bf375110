// The store's slices: teams, agents with live health, alerts. Data arrives only through the bridge.
import type { StateCreator } from 'zustand';
import type { AgentDTO, AgentHealthDTO, AlertEventDTO, AlertStatusDTO, Api, ErrorDTO, IncidentDTO, TeamDTO } from '../../../src-preload/contract';

export const agentKey = (teamId: string, agentId: string): string => `${teamId}/${agentId}`;

export interface TeamsSlice {
  teams: TeamDTO[];
  loaded: boolean;
  addTeam(input: { label: string; baseUrl: string; apiKey: string; agentIds: string[] }): Promise<ErrorDTO | null>;
  removeTeam(teamId: string): Promise<ErrorDTO | null>;
  startDemo(): Promise<ErrorDTO | null>;
  setTeams(teams: TeamDTO[]): void;
}

export interface AgentsSlice {
  /** Keyed by agentKey(teamId, agentId); insertion order is display order. */
  agents: Record<string, AgentDTO>;
  setAgents(list: AgentDTO[]): void;
  applyHealth(h: AgentHealthDTO): void;
}

export interface AlertsSlice {
  incidents: IncidentDTO[];
  alertStatus: AlertStatusDTO | null;
  applyAlert(e: AlertEventDTO): void;
  acknowledge(incidentId: string): Promise<ErrorDTO | null>;
  acknowledgeAll(): Promise<ErrorDTO | null>;
}

export interface UiSlice {
  lastError: ErrorDTO | null;
  route: string;
  setRoute(route: string): void;
  clearError(): void;
}

export type AppState = TeamsSlice & AgentsSlice & AlertsSlice & UiSlice & { refresh(): Promise<void> };
export type Slice<T> = StateCreator<AppState, [], [], T>;

export const teamsSlice =
  (api: Api): Slice<TeamsSlice> =>
  (set, get) => ({
    teams: [],
    loaded: false,
    setTeams: (teams) => set({ teams }),
    addTeam: async ({ label, baseUrl, apiKey, agentIds }) => {
      const r = await api['teams.add']({ label, baseUrl, apiKey, agents: agentIds.map((agentId) => ({ agentId })) });
      if (!r.ok) return r.error;
      await get().refresh();
      return null;
    },
    removeTeam: async (teamId) => {
      const r = await api['teams.remove']({ teamId });
      if (!r.ok) return r.error;
      await get().refresh();
      return null;
    },
    startDemo: async () => {
      const r = await api['demo.start']();
      if (!r.ok) return r.error;
      await get().refresh();
      return null;
    },
  });

export const agentsSlice: Slice<AgentsSlice> = (set) => ({
  agents: {},
  setAgents: (list) => set({ agents: Object.fromEntries(list.map((a) => [agentKey(a.teamId, a.agentId), a])) }),
  applyHealth: (h) =>
    set((s) => {
      const key = agentKey(h.teamId, h.agentId);
      const current = s.agents[key];
      if (!current) return {};
      return { agents: { ...s.agents, [key]: { ...current, health: h } } };
    }),
});

export const alertsSlice =
  (api: Api): Slice<AlertsSlice> =>
  (set) => ({
    incidents: [],
    alertStatus: null,
    applyAlert: ({ change, incident }) =>
      set((s) => {
        const rest = s.incidents.filter((i) => i.id !== incident.id);
        return { incidents: change === 'resolved' ? rest : [incident, ...rest] };
      }),
    acknowledge: async (incidentId) => {
      const r = await api['alerts.acknowledge']({ incidentId });
      if (!r.ok) return r.error;
      set((s) => ({ incidents: s.incidents.map((i) => (i.id === incidentId ? { ...i, acknowledgedAt: Date.now() } : i)) }));
      return null;
    },
    acknowledgeAll: async () => {
      const r = await api['alerts.acknowledgeAll']();
      if (!r.ok) return r.error;
      const at = Date.now();
      set((s) => ({ incidents: s.incidents.map((i) => (i.acknowledgedAt === null ? { ...i, acknowledgedAt: at } : i)) }));
      return null;
    },
  });

export const uiSlice: Slice<UiSlice> = (set) => ({
  lastError: null,
  route: '',
  setRoute: (route) => set({ route }),
  clearError: () => set({ lastError: null }),
});
