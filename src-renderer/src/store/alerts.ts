// Alerts: open incidents, a log of every incident seen (the agent timeline), snooze and quiet hours.
import type { AlertEventDTO, AlertStatusDTO, Api, ErrorDTO, HealthHistoryEntryDTO, IncidentDTO, QuietHoursDTO } from '../../../src-shared/contract';
import { mergeHistory } from './history';
import { agentKey, type Slice, type StoreEnv } from './slices';

export interface AlertsSlice {
  /** Open (unresolved) incidents, newest first. */
  incidents: IncidentDTO[];
  /** Every incident seen since the window opened, latest version of each, newest first. */
  incidentLog: IncidentDTO[];
  alertStatus: AlertStatusDTO | null;
  /**
   * Each agent's health changes (health.history), newest first, by agentKey; present once loaded,
   * then kept current by health.changed events (see applyHealth).
   */
  healthHistory: Record<string, HealthHistoryEntryDTO[]>;
  loadHealthHistory(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  setIncidents(list: IncidentDTO[]): void;
  applyAlert(e: AlertEventDTO): void;
  acknowledge(incidentId: string): Promise<ErrorDTO | null>;
  acknowledgeAll(): Promise<ErrorDTO | null>;
  snooze(arg: { minutes: number } | { until: 'tomorrow' }): Promise<ErrorDTO | null>;
  unsnooze(): Promise<ErrorDTO | null>;
  setQuietHours(q: QuietHoursDTO): Promise<ErrorDTO | null>;
}

const LOG_MAX = 500;

function mergeLog(log: IncidentDTO[], incoming: IncidentDTO[]): IncidentDTO[] {
  const byId = new Map(log.map((i) => [i.id, i]));
  for (const i of incoming) byId.set(i.id, i);
  return [...byId.values()].sort((a, b) => b.openedAt - a.openedAt).slice(0, LOG_MAX);
}

export const alertsSlice =
  (api: Api, env: StoreEnv): Slice<AlertsSlice> =>
  (set) => {
    const statusCall = async (r: Promise<{ ok: true; value: AlertStatusDTO } | { ok: false; error: ErrorDTO }>) => {
      const res = await r;
      if (!res.ok) return res.error;
      set({ alertStatus: res.value });
      return null;
    };
    const patchIncidents = (fn: (i: IncidentDTO) => IncidentDTO) =>
      set((s) => ({ incidents: s.incidents.map(fn), incidentLog: s.incidentLog.map(fn) }));
    return {
      incidents: [],
      incidentLog: [],
      alertStatus: null,
      healthHistory: {},
      loadHealthHistory: async (teamId, agentId) => {
        const r = await api['health.history']({ teamId, agentId });
        if (!r.ok) return r.error;
        const loaded = Array.isArray(r.value) ? r.value : [];
        const key = agentKey(teamId, agentId);
        // Live entries that arrived while loading are kept.
        set((s) => ({ healthHistory: { ...s.healthHistory, [key]: mergeHistory(loaded, s.healthHistory[key] ?? []) } }));
        return null;
      },
      setIncidents: (list) =>
        set((s) => ({
          incidents: list.filter((i) => i.resolvedAt === null).sort((a, b) => b.openedAt - a.openedAt),
          incidentLog: mergeLog(s.incidentLog, list),
        })),
      applyAlert: ({ change, incident }) =>
        set((s) => {
          const rest = s.incidents.filter((i) => i.id !== incident.id);
          const resolved = change === 'resolved' || incident.resolvedAt !== null;
          const logged = resolved && incident.resolvedAt === null ? { ...incident, resolvedAt: env.now() } : incident;
          return { incidents: resolved ? rest : [incident, ...rest], incidentLog: mergeLog(s.incidentLog, [logged]) };
        }),
      acknowledge: async (incidentId) => {
        const r = await api['alerts.acknowledge']({ incidentId });
        if (!r.ok) return r.error;
        const at = env.now();
        patchIncidents((i) => (i.id === incidentId && i.acknowledgedAt === null ? { ...i, acknowledgedAt: at } : i));
        return null;
      },
      acknowledgeAll: async () => {
        const r = await api['alerts.acknowledgeAll']();
        if (!r.ok) return r.error;
        const at = env.now();
        patchIncidents((i) => (i.acknowledgedAt === null && i.resolvedAt === null ? { ...i, acknowledgedAt: at } : i));
        return null;
      },
      snooze: (arg) => statusCall(api['alerts.snooze'](arg)),
      unsnooze: () => statusCall(api['alerts.unsnooze']()),
      setQuietHours: (q) => statusCall(api['alerts.setQuietHours'](q)),
    };
  };

/** Open incidents nobody has acknowledged yet. */
export function countOpen(s: { incidents: IncidentDTO[] }): number {
  return s.incidents.filter((i) => i.resolvedAt === null).length;
}
