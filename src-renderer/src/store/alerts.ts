// Alerts: open incidents, a log of every incident seen (shown on the agent's timeline), the history
// of resolved incidents (alerts.history, then the resolutions seen live), snooze and quiet hours.
import type {
  AlertEventDTO,
  AlertStatusDTO,
  ErrorDTO,
  IncidentDTO,
  QuietHoursDTO,
  Result,
} from '../../../src-shared/contract';
import type { Slice } from './env';

export interface AlertsSlice {
  /** Open (unresolved) incidents: urgent first, then warning, then info; newest first within each. */
  incidents: IncidentDTO[];
  /** Every incident seen since the window opened, latest version of each, newest first. */
  incidentLog: IncidentDTO[];
  /** Resolved incidents kept by the main side, then those resolved since, latest resolved first; null until loaded. */
  incidentHistory: IncidentDTO[] | null;
  alertStatus: AlertStatusDTO | null;
  /** Reads the incidents and the alert status; answers the first error (what did load is kept). */
  loadAlerts(): Promise<ErrorDTO | null>;
  /** Reads the resolved incidents (every one kept: the filters apply on screen). */
  loadIncidentHistory(): Promise<ErrorDTO | null>;
  setIncidents(list: IncidentDTO[]): void;
  /** The alert status as the main side says it now ('alerts.status'). */
  applyAlertStatus(status: AlertStatusDTO): void;
  applyAlert(e: AlertEventDTO): void;
  acknowledge(incidentId: string): Promise<ErrorDTO | null>;
  acknowledgeAll(): Promise<ErrorDTO | null>;
  snooze(arg: { minutes: number } | { until: 'tomorrow' }): Promise<ErrorDTO | null>;
  unsnooze(): Promise<ErrorDTO | null>;
  setQuietHours(q: QuietHoursDTO): Promise<ErrorDTO | null>;
}

const LOG_MAX = 500;
/** As many as the main side keeps. */
const HISTORY_MAX = 1000;

const SEVERITY_RANK: Record<IncidentDTO['severity'], number> = { urgent: 0, warning: 1, info: 2 };

/** The open incidents in the order they are shown: the most severe first, then the newest. */
function openOrder(list: IncidentDTO[]): IncidentDTO[] {
  return list.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.openedAt - a.openedAt);
}

/** Resolved incidents, one per id, latest resolved first. */
function mergeHistory(history: IncidentDTO[], incoming: IncidentDTO[]): IncidentDTO[] {
  const byId = new Map(history.map((i) => [i.id, i]));
  for (const i of incoming) if (i.resolvedAt !== null) byId.set(i.id, i);
  return [...byId.values()]
    .sort((a, b) => (b.resolvedAt ?? 0) - (a.resolvedAt ?? 0) || b.openedAt - a.openedAt)
    .slice(0, HISTORY_MAX);
}

function mergeLog(log: IncidentDTO[], incoming: IncidentDTO[]): IncidentDTO[] {
  const byId = new Map(log.map((i) => [i.id, i]));
  for (const i of incoming) byId.set(i.id, i);
  return [...byId.values()].sort((a, b) => b.openedAt - a.openedAt).slice(0, LOG_MAX);
}

export const alertsSlice: Slice<AlertsSlice> = ({ set, get, api, env }) => {
  const statusCall = async (r: Promise<Result<AlertStatusDTO>>) => {
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
    incidentHistory: null,
    alertStatus: null,
    loadAlerts: async () => {
      const [incidents, status] = await Promise.all([api['alerts.list'](), api['alerts.status']()]);
      if (status.ok) set({ alertStatus: status.value });
      if (incidents.ok) get().setIncidents(incidents.value);
      return !incidents.ok ? incidents.error : !status.ok ? status.error : null;
    },
    loadIncidentHistory: async () => {
      const r = await api['alerts.history']({ limit: HISTORY_MAX });
      if (!r.ok) return r.error;
      // Resolutions seen live while loading are kept.
      set((s) => ({ incidentHistory: mergeHistory(s.incidentHistory ?? [], r.value) }));
      return null;
    },
    applyAlertStatus: (status) => set({ alertStatus: status }),
    setIncidents: (list) =>
      set((s) => ({
        incidents: openOrder(list.filter((i) => i.resolvedAt === null)),
        incidentLog: mergeLog(s.incidentLog, list),
      })),
    applyAlert: ({ change, incident }) =>
      set((s) => {
        const rest = s.incidents.filter((i) => i.id !== incident.id);
        const resolved = change === 'resolved' || incident.resolvedAt !== null;
        const logged = resolved && incident.resolvedAt === null ? { ...incident, resolvedAt: env.now() } : incident;
        return {
          incidents: resolved ? rest : openOrder([incident, ...rest]),
          incidentLog: mergeLog(s.incidentLog, [logged]),
          ...(resolved && s.incidentHistory !== null
            ? { incidentHistory: mergeHistory(s.incidentHistory, [logged]) }
            : {}),
        };
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
