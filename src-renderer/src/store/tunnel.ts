// Tunnel: receiver status (with its public exposure), the live list of deliveries and of refused
// requests (newest first), loaded details, forward results as they happen, webhook registrations
// made from this window.
import type {
  DeliveryDetailDTO,
  DeliverySummaryDTO,
  ErrorDTO,
  ExportDTO,
  ExposeArgs,
  ExposureDTO,
  ForwardResultDTO,
  MediaDTO,
  RefusedRequestDTO,
  Result,
  SimulateArgs,
  TunnelStatusDTO,
  WebhookHistoryDTO,
  WebhookRegistrationDTO,
  WebhookRestoreDTO,
} from '../../../src-shared/contract';
import { agentKey, type Slice } from './env';

export interface TunnelSlice {
  tunnelStatus: TunnelStatusDTO | null;
  tunnelError: ErrorDTO | null;
  deliveries: DeliverySummaryDTO[];
  deliveriesLoaded: boolean;
  /** Requests the receiver refused or that were not to a hook (metadata only), newest first. */
  refused: RefusedRequestDTO[];
  deliveryDetails: Record<string, DeliveryDetailDTO>;
  /** Recent forward results of any delivery, oldest first (to tell since when the local app is down). */
  forwardLog: ForwardResultDTO[];
  registrations: Record<string, WebhookRegistrationDTO>;
  /** The latest forward result of each delivery seen live (a failure with no answer has status null). */
  lastForward: Record<string, ForwardResultDTO>;
  /** Reads the receiver status and the list of deliveries. */
  loadTunnel(): Promise<void>;
  /** Re-reads the receiver status (the receiver starts on the first read, so it turns Listening later). */
  loadTunnelStatus(): Promise<void>;
  /** Sets (or with null clears) the local app URL deliveries are forwarded to. */
  setForwardTarget(url: string | null): Promise<ErrorDTO | null>;
  /** Saves `port` as the tunnel port (the receiver starts there); the answer to a taken port. */
  setTunnelPort(port: number): Promise<ErrorDTO | null>;
  loadDelivery(id: string): Promise<ErrorDTO | null>;
  replayDelivery(id: string, mode: 'as-received' | 're-signed', body?: string): Promise<Result<ForwardResultDTO>>;
  simulateDelivery(args: SimulateArgs): Promise<Result<DeliverySummaryDTO>>;
  exportDelivery(id: string, format: 'curl' | 'fixture'): Promise<Result<ExportDTO>>;
  /** The file of an image/document delivery (downloaded by the main process). */
  loadDeliveryMedia(id: string): Promise<Result<MediaDTO>>;
  registerWebhook(teamId: string, agentId: string, publicUrl: string): Promise<Result<WebhookRegistrationDTO>>;
  /** Tries an agent's waiting forwards now; the delivery `id` (when given) and the status are read again. */
  retryForwardsNow(agentId: string, id?: string): Promise<ErrorDTO | null>;
  /** This install's registrations of the agent's webhook (read afresh; not kept in the store). */
  webhookHistory(teamId: string, agentId: string): Promise<Result<WebhookHistoryDTO>>;
  /** Registers the agent's previous URL again; the status is re-read. */
  restoreWebhook(teamId: string, agentId: string): Promise<Result<WebhookRestoreDTO>>;
  /** The agent's signing secret on an explicit, confirmed request: handed to the caller, never kept in the store. */
  revealSigningSecret(teamId: string, agentId: string): Promise<Result<{ secret: string }>>;
  /** Opens the receiver's public URL (ngrok or a tunnel command); the answer is up or failed. */
  expose(args: ExposeArgs): Promise<Result<ExposureDTO>>;
  unexpose(): Promise<Result<ExposureDTO>>;
  /** Stores the ngrok authtoken in the keychain (the store keeps nothing of it). */
  setNgrokAuthtoken(authtoken: string): Promise<Result<{ hint: string }>>;
  /** Deliveries and refused requests matching `text`, searched by the main process (bodies included). */
  searchTunnel(text: string): Promise<Result<{ deliveries: DeliverySummaryDTO[]; refused: RefusedRequestDTO[] }>>;
  applyDelivery(d: DeliverySummaryDTO): void;
  applyForward(f: ForwardResultDTO): void;
  applyRefused(r: RefusedRequestDTO): void;
  /** The tunnel.exposure event: shown at once, the per-agent public URLs re-read. */
  applyExposure(x: ExposureDTO): void;
}

type S = TunnelSlice;

/**
 * The local app's state across agents from tunnel.status: the earliest "down since" of any agent
 * whose forwards fail (null when every local app answers) and how many deliveries wait in total.
 */
export function forwardingOf(st: TunnelStatusDTO | null): { downSince: number | null; pending: number } {
  let downSince: number | null = null;
  let pending = 0;
  for (const a of st?.agents ?? []) {
    if (
      a.localAppDownSince !== null &&
      a.localAppDownSince !== undefined &&
      (downSince === null || a.localAppDownSince < downSince)
    )
      downSince = a.localAppDownSince;
    pending += a.pending ?? 0;
  }
  return { downSince, pending };
}
const MAX_DELIVERIES = 1000;
const MAX_REFUSED = 500;
const SEARCH_LIMIT = 200;
const MAX_FORWARD_LOG = 200;

/** Keeps the newest MAX_DELIVERIES entries (objects keep insertion order). */
function pruned<T>(rec: Record<string, T>): Record<string, T> {
  const keys = Object.keys(rec);
  if (keys.length <= MAX_DELIVERIES) return rec;
  const out: Record<string, T> = {};
  for (const k of keys.slice(-MAX_DELIVERIES)) out[k] = rec[k] as T;
  return out;
}

export const tunnelSlice: Slice<TunnelSlice> = ({ set, get, api }) => {
  const status = async (): Promise<void> => {
    const r = await api['tunnel.status']();
    set(r.ok ? { tunnelStatus: r.value } : { tunnelError: r.error });
  };
  return {
    tunnelStatus: null,
    tunnelError: null,
    deliveries: [],
    deliveriesLoaded: false,
    refused: [],
    deliveryDetails: {},
    forwardLog: [],
    registrations: {},
    lastForward: {},
    loadTunnelStatus: status,
    setForwardTarget: async (url) => {
      const cur = await api['settings.get']();
      if (!cur.ok) return cur.error;
      const r = await api['settings.update']({ patch: { tunnel: { port: cur.value.tunnel.port, forwardTo: url } } });
      if (!r.ok) return r.error;
      await status();
      return null;
    },
    setTunnelPort: async (port) => {
      const cur = await api['settings.get']();
      if (!cur.ok) return cur.error;
      const r = await api['settings.update']({ patch: { tunnel: { port, forwardTo: cur.value.tunnel.forwardTo } } });
      if (!r.ok) return r.error;
      await status();
      return null;
    },
    loadTunnel: async () => {
      const [st, list, refused] = await Promise.all([
        api['tunnel.status'](),
        api['tunnel.deliveries']({ limit: 500 }),
        api['tunnel.refused']({ limit: MAX_REFUSED }),
      ]);
      set((s) => {
        const patch: Partial<S> = {
          tunnelError: st.ok ? (list.ok ? (refused.ok ? null : refused.error) : list.error) : st.error,
        };
        if (st.ok) patch.tunnelStatus = st.value;
        if (refused.ok) {
          const ids = new Set(refused.value.map((r) => r.id));
          patch.refused = [...s.refused.filter((r) => !ids.has(r.id)), ...refused.value]
            .sort((a, b) => b.at - a.at)
            .slice(0, MAX_REFUSED);
        }
        if (list.ok) {
          // Keep anything a live event added while the list was loading.
          const ids = new Set(list.value.map((d) => d.id));
          const merged = [...s.deliveries.filter((d) => !ids.has(d.id)), ...list.value].sort(
            (a, b) => b.receivedAt - a.receivedAt,
          );
          patch.deliveries = merged.slice(0, MAX_DELIVERIES);
          patch.deliveriesLoaded = true;
        }
        return patch;
      });
    },
    loadDelivery: async (id) => {
      const r = await api['tunnel.delivery']({ id });
      if (!r.ok) return r.error;
      set((s) => ({ deliveryDetails: { ...s.deliveryDetails, [id]: r.value } }));
      return null;
    },
    replayDelivery: async (id, mode, body) => {
      const r = await api['tunnel.replay'](body === undefined ? { id, mode } : { id, mode, body });
      if (r.ok) get().applyForward(r.value);
      return r;
    },
    simulateDelivery: async (args) => {
      const r = await api['tunnel.simulate'](args);
      if (r.ok) {
        get().applyDelivery(r.value);
        void status();
      }
      return r;
    },
    exportDelivery: (id, format) => api['tunnel.export']({ id, format }),
    loadDeliveryMedia: (id) => api['tunnel.media']({ id }),
    retryForwardsNow: async (agentId, id) => {
      const r = await api['tunnel.retryNow']({ agentId });
      if (!r.ok) return r.error;
      await Promise.all([status(), id !== undefined ? get().loadDelivery(id) : Promise.resolve(null)]);
      return null;
    },
    registerWebhook: async (teamId, agentId, publicUrl) => {
      const r = await api['webhook.register']({ teamId, agentId, publicUrl });
      if (r.ok) {
        set((s) => ({ registrations: { ...s.registrations, [agentKey(teamId, agentId)]: r.value } }));
        void status();
      }
      return r;
    },
    webhookHistory: (teamId, agentId) => api['webhook.history']({ teamId, agentId }),
    restoreWebhook: async (teamId, agentId) => {
      const r = await api['webhook.restore']({ teamId, agentId });
      if (r.ok) void status();
      return r;
    },
    revealSigningSecret: (teamId, agentId) => api['webhook.revealSecret']({ teamId, agentId }),
    expose: async (args) => {
      const r = await api['tunnel.expose'](args);
      if (r.ok) get().applyExposure(r.value);
      return r;
    },
    unexpose: async () => {
      const r = await api['tunnel.unexpose']();
      if (r.ok) get().applyExposure(r.value);
      return r;
    },
    setNgrokAuthtoken: async (authtoken) => {
      const r = await api['tunnel.setNgrokAuthtoken']({ authtoken });
      if (r.ok) void status();
      return r;
    },
    searchTunnel: async (text) => {
      const [deliveries, refused] = await Promise.all([
        api['tunnel.deliveries']({ text, limit: SEARCH_LIMIT }),
        api['tunnel.refused']({ text, limit: SEARCH_LIMIT }),
      ]);
      if (!deliveries.ok) return deliveries;
      if (!refused.ok) return refused;
      return { ok: true, value: { deliveries: deliveries.value, refused: refused.value } };
    },
    applyRefused: (r) =>
      set((s) => ({ refused: [r, ...s.refused.filter((x) => x.id !== r.id)].slice(0, MAX_REFUSED) })),
    applyExposure: (x) => {
      set((s) => (s.tunnelStatus ? { tunnelStatus: { ...s.tunnelStatus, exposure: x } } : {}));
      void status();
    },
    applyDelivery: (d) =>
      set((s) => {
        const rest = s.deliveries.filter((x) => x.id !== d.id);
        return { deliveries: [d, ...rest].slice(0, MAX_DELIVERIES) };
      }),
    // A replay joins its delivery's attempts only: the delivery's own forward (its status in the
    // list, the counts, whether the local app is down) is what the forward queue did.
    applyForward: (f) =>
      set((s) => {
        const replay = f.replay !== undefined;
        const patch: Partial<S> = replay
          ? {}
          : {
              forwardLog: [...s.forwardLog, f].slice(-MAX_FORWARD_LOG),
              lastForward: pruned({ ...s.lastForward, [f.deliveryId]: f }),
            };
        if (!replay && s.deliveries.some((d) => d.id === f.deliveryId)) {
          patch.deliveries = s.deliveries.map((d) => (d.id === f.deliveryId ? { ...d, forwardStatus: f.status } : d));
        }
        const detail = s.deliveryDetails[f.deliveryId];
        if (detail && !detail.forwards.some((x) => x.at === f.at && x.url === f.url)) {
          const forwards = [...detail.forwards, f];
          const own = replay
            ? {}
            : {
                forwardStatus: f.status,
                forwardState:
                  f.status !== null && f.status >= 200 && f.status < 300 ? ('delivered' as const) : detail.forwardState,
              };
          patch.deliveryDetails = { ...s.deliveryDetails, [f.deliveryId]: { ...detail, ...own, forwards } };
        }
        return patch;
      }),
  };
};
