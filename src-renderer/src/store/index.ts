// One zustand store of slices, built around a bridge (the contract's Api). connectStore() loads the
// first data and subscribes to contract events; it returns the disconnect.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AlertEventDTO, Api, ErrorDTO, HealthState } from '../../../src-shared/contract';
import { HEALTH_STATES } from '../../../src-shared/contract';
import { alertsSlice } from './alerts';
import { noticesSlice } from './notices';
import { pairingSlice } from './pairing';
import { settingsSlice } from './settings';
import { agentsSlice, teamsSlice, uiSlice, type AppState, type StoreEnv } from './slices';
import { connectSlicesB, createSlicesB, type SliceEnv } from './slices-b';

export type { AppState, StoreEnv } from './slices';
export { agentKey } from './slices';

export type AppStore = StoreApi<AppState>;

export interface StoreOptions {
  env?: StoreEnv;
  /** Passed to the chat/console/tunnel slices (tests). */
  envB?: SliceEnv;
}

export function createAppStore(api: Api, opts: StoreOptions = {}): AppStore {
  const env = opts.env ?? { now: () => Date.now() };
  return createStore<AppState>()((set, get, store) => ({
    ...teamsSlice(api)(set, get, store),
    ...agentsSlice(set, get, store),
    ...alertsSlice(api, env)(set, get, store),
    ...uiSlice(set, get, store),
    ...noticesSlice(env)(set, get, store),
    ...settingsSlice(api)(set, get, store),
    ...pairingSlice(api, env)(set, get, store),
    ...(opts.envB ? createSlicesB(set, get, api, opts.envB) : createSlicesB(set, get, api)),
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
        ...(status.ok ? { alertStatus: status.value } : {}),
        loaded: true,
        lastError: firstError,
      });
      if (incidents.ok) get().setIncidents(incidents.value);
      if (agents.ok) get().setAgents(agents.value);
    },
  }));
}

/** The in-app notice for an alert event (none for plain updates). */
export function noticeFor(e: AlertEventDTO, agentLabel: string): Parameters<AppState['pushNotice']>[0] | null {
  const route = `#/agents/${encodeURIComponent(e.incident.agentId)}?team=${encodeURIComponent(e.incident.teamId)}`;
  if (e.change === 'opened') {
    const tone = e.incident.severity === 'urgent' ? 'urgent' : e.incident.severity === 'warning' ? 'warning' : 'info';
    return { tone, title: `${agentLabel}: ${e.incident.title}`, body: e.incident.message, route };
  }
  if (e.change === 'resolved') return { tone: 'success', title: `${agentLabel}: back to normal`, body: e.incident.title, route };
  return null;
}

export function connectStore(store: AppStore, api: Api): () => void {
  const s = () => store.getState();
  const offs = [
    api.on('health.changed', (h) => s().applyHealth(h)),
    api.on('alert', (e) => {
      s().applyAlert(e);
      const label = s().agents[`${e.incident.teamId}/${e.incident.agentId}`]?.label ?? e.incident.agentId;
      const n = noticeFor(e, label);
      if (n) s().pushNotice(n);
    }),
    api.on('accounts.changed', () => void s().refresh()),
    api.on('app.navigate', ({ route }) => s().setRoute(route)),
    connectSlicesB(store, api),
  ];
  void s().refresh();
  void s().loadSettings();
  return () => offs.forEach((off) => off());
}

/** Worst health across agents (HEALTH_STATES is ordered best → worst). */
export function selectWorst(s: AppState): HealthState {
  let worst = -1;
  for (const a of Object.values(s.agents)) worst = Math.max(worst, HEALTH_STATES.indexOf(a.health.health));
  return HEALTH_STATES[worst] ?? 'unknown';
}
