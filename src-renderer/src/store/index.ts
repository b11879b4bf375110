// One zustand store of slices, built around a bridge (the contract's Api). connect() loads the
// first data and subscribes to contract events; it returns the disconnect.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Api, ErrorDTO, HealthState } from '../../../src-preload/contract';
import { HEALTH_STATES } from '../../../src-preload/contract';
import { agentsSlice, alertsSlice, teamsSlice, uiSlice, type AppState } from './slices';

export type { AppState } from './slices';
export { agentKey } from './slices';

export type AppStore = StoreApi<AppState>;

export function createAppStore(api: Api): AppStore {
  return createStore<AppState>()((set, get, store) => ({
    ...teamsSlice(api)(set, get, store),
    ...agentsSlice(set, get, store),
    ...alertsSlice(api)(set, get, store),
    ...uiSlice(set, get, store),
    refresh: async () => {
      const [teams, agents, incidents, status] = await Promise.all([
        api['teams.list'](),
        api['agents.list'](),
        api['alerts.list'](),
        api['alerts.status'](),
      ]);
      const firstError: ErrorDTO | null = [teams, agents, incidents, status].map((r) => (r.ok ? null : r.error)).find((e) => e) ?? null;
      set({
        ...(teams.ok ? { teams: teams.value } : {}),
        ...(incidents.ok ? { incidents: incidents.value } : {}),
        ...(status.ok ? { alertStatus: status.value } : {}),
        loaded: true,
        lastError: firstError,
      });
      if (agents.ok) get().setAgents(agents.value);
    },
  }));
}

export function connectStore(store: AppStore, api: Api): () => void {
  const offs = [
    api.on('health.changed', (h) => store.getState().applyHealth(h)),
    api.on('alert', (e) => store.getState().applyAlert(e)),
    api.on('accounts.changed', () => void store.getState().refresh()),
    api.on('app.navigate', ({ route }) => store.getState().setRoute(route)),
  ];
  void store.getState().refresh();
  return () => offs.forEach((off) => off());
}

/** Worst health across agents (HEALTH_STATES is ordered best → worst). */
export function selectWorst(s: AppState): HealthState {
  let worst = -1;
  for (const a of Object.values(s.agents)) worst = Math.max(worst, HEALTH_STATES.indexOf(a.health.health));
  return HEALTH_STATES[worst] ?? 'unknown';
}
