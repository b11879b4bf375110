// The renderer's one zustand store, assembled from its slices around a bridge (the contract's Api).
// Each slice lives in its own file and imports only ./env (and pure helpers); this module imports
// the slices, never the other way round.
//
// Action names: verb first. load* reads through the bridge into the store; apply* takes a contract
// event; set*/update* change a value (through the bridge when the core keeps it); the rest name what
// the user does (sendChat, snooze, registerWebhook, …).
//
// connectStore() subscribes to the contract's events and loads the first data; it returns the
// disconnect.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Api, ErrorDTO } from '../../../src-shared/contract';
import { agentsSlice, type AgentsSlice } from './agents';
import { alertsSlice, type AlertsSlice } from './alerts';
import { chatSlice, type ChatSlice } from './chat';
import { chatListSlice, type ChatListSlice } from './chat-list';
import { consoleSlice, type ConsoleSlice } from './console';
import { agentKey, defaultEnv, type SliceContext, type StoreEnv } from './env';
import { hubSlice, reloadingHubOnRefusal, type HubSlice } from './hub';
import { linkSlice, type LinkSlice } from './link';
import { messagesSlice, type MessagesSlice } from './messages';
import { messageMediaSlice, type MessageMediaSlice } from './message-media';
import { noticesSlice, type NoticesSlice } from './notices';
import { pairingSlice, type PairingSlice } from './pairing';
import { settingsSlice, type SettingsSlice } from './settings';
import { tunnelSlice, type TunnelSlice } from './tunnel';
import { uiSlice, type UiSlice } from './ui';
import { unreadSlice, type UnreadSlice } from './unread';

export type AppState = AgentsSlice &
  AlertsSlice &
  NoticesSlice &
  SettingsSlice &
  PairingSlice &
  ChatSlice &
  ChatListSlice &
  ConsoleSlice &
  TunnelSlice &
  UiSlice &
  LinkSlice &
  HubSlice &
  MessagesSlice &
  MessageMediaSlice &
  UnreadSlice & {
    /** Reloads teams, agents, alerts and the unread counts; the first error becomes lastError. */
    refresh(): Promise<void>;
    /**
     * Reads again everything the window shows (after the link to the main side came back, or the main
     * side restarted): teams and agents, incidents, settings, the unread counts, the inbox and every
     * open thread, the chat lists, the tunnel once shown, the incident history once shown. Answers the
     * first error, or null when all of it answered.
     */
    reloadAll(): Promise<ErrorDTO | null>;
  };

export type AppStore = StoreApi<AppState>;

/** `env` replaces the clock and the frame scheduling (tests). */
export function createAppStore(api: Api, env: Partial<StoreEnv> = {}): AppStore {
  const storeEnv: StoreEnv = { ...defaultEnv(), ...env };
  return createStore<AppState>()((set, get) => {
    const watched = reloadingHubOnRefusal(api, () => void get().loadHub());
    const ctx: SliceContext<AppState> = { set, get, api: watched, env: storeEnv };
    return {
      ...agentsSlice(ctx),
      ...alertsSlice(ctx),
      ...noticesSlice(ctx),
      ...settingsSlice(ctx),
      ...pairingSlice(ctx),
      ...chatSlice(ctx),
      ...chatListSlice(ctx),
      ...consoleSlice(ctx),
      ...tunnelSlice(ctx),
      ...uiSlice(ctx),
      ...linkSlice(ctx),
      ...hubSlice(ctx),
      ...messagesSlice(ctx),
      ...messageMediaSlice(ctx),
      ...unreadSlice(ctx),
      refresh: async () => {
        const asked = storeEnv.now();
        void get().loadUnread();
        const errors = await Promise.all([get().loadTeams(), get().loadAlerts()]);
        // Notices of incidents that closed while this window was not listening say they are no longer open.
        if (errors[1] === null) get().settleNotices(new Set(get().incidents.map((i) => i.id)), asked);
        set({ loaded: true, lastError: errors.find((e) => e !== null) ?? null });
      },
      reloadAll: async () => {
        const s = get();
        const threads = Object.entries(s.threads)
          .filter(([, t]) => t.loaded)
          .map(([key]) => key.split('/'));
        const chatLists = Object.entries(s.chatLists)
          .filter(([, l]) => l.loaded)
          .map(([key]) => key.split('/'));
        const asked = storeEnv.now();
        void s.loadHub();
        const [teams, alerts, settings] = await Promise.all([
          s.loadTeams(),
          s.loadAlerts(),
          s.loadSettings(),
          s.loadUnread(),
          s.loadInbox(),
          ...threads.map(([teamId, agentId, ...contact]) => s.loadThread(teamId!, agentId!, contact.join('/'))),
          ...chatLists.map(([teamId, agentId]) => s.loadChatList(teamId!, agentId!)),
          ...(s.deliveriesLoaded || s.tunnelStatus !== null ? [s.loadTunnel()] : []),
          ...(s.incidentHistory !== null ? [s.loadIncidentHistory()] : []),
        ]);
        if (alerts === null) get().settleNotices(new Set(get().incidents.map((i) => i.id)), asked);
        const now = get();
        const failed =
          teams ??
          alerts ??
          settings ??
          now.inbox.error ??
          threads.map((k) => now.threads[k.join('/')]?.error ?? null).find((e) => e !== null) ??
          chatLists.map((k) => now.chatLists[k.join('/')]?.error ?? null).find((e) => e !== null) ??
          now.tunnelError ??
          null;
        set({ loaded: true, lastError: teams ?? alerts ?? null });
        return failed;
      },
    };
  });
}

export function connectStore(store: AppStore, api: Api): () => void {
  const s = () => store.getState();
  const offs = [
    api.on('health.changed', (h) => s().applyHealthInFrame(h)),
    api.on('alert', (e) => {
      s().applyAlert(e);
      const label = s().agents[agentKey(e.incident.teamId, e.incident.agentId)]?.label ?? e.incident.agentId;
      s().applyAlertNotice(e, label);
    }),
    api.on('teams.changed', () => void s().refresh()),
    api.on('settings.changed', ({ settings }) => s().applySettings(settings)),
    api.on('alerts.status', (status) => s().applyAlertStatus(status)),
    api.on('app.navigate', ({ route }) => s().setRoute(route)),
    api.on('chat.token', ({ turnId, token }) => s().applyChatToken(turnId, token)),
    api.on('chat.done', ({ turnId, result }) => s().applyChatDone(turnId, result)),
    api.on('chat.error', ({ turnId, error }) => s().applyChatError(turnId, error)),
    api.on('send.progress', (p) => s().applySendProgress(p)),
    api.on('tunnel.delivery', (d) => s().applyDelivery(d)),
    api.on('tunnel.forward', (f) => s().applyForward(f)),
    api.on('tunnel.refused', (r) => s().applyRefused(r)),
    api.on('tunnel.exposure', (x) => s().applyExposure(x)),
    api.on('messages.new', ({ message }) => {
      s().applyMessage(message);
      s().applySentMessage(message);
    }),
    api.on('messages.changed', () => s().applyMessagesChanged()),
    api.on('messages.unread', (u) => s().applyUnread(u)),
    // The member's role changed on the hub: read it again, so what the screens allow follows (useAllowed).
    api.on('hub.role', () => void s().loadHub()),
  ];
  void s().refresh();
  void s().loadHub();
  void s().loadSettings();
  void s().loadInbox();
  return () => offs.forEach((off) => off());
}
