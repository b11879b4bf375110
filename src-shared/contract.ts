// THE contract between the renderer and the main process (or the browser host).
// It imports only the shared words (vocabulary.ts): main, preload and renderer all compile against it. Its DTOs
// are split by domain in contract/ (errors, teams, service, tunnel, chat, settings, messages); this file holds
// the requests and events that carry them.
// Every DTO is plain data. API keys and signing secrets never appear in any DTO.

export { HEALTHS, VERDICTS, type Health, type RefusedReason, type Verdict } from './vocabulary';

import type { ChatConversationDTO, ChatFramesDTO, ChatMessageDTO, ChatResultDTO } from './contract/chat';
import type { EmptyArgs, ErrorDTO, Result } from './contract/errors';
import type {
  MessageContactsDTO,
  MessageDTO,
  MessageExportDTO,
  MessageNoticeDTO,
  MessageNotificationsDTO,
  MessageSearchDTO,
  MessageThreadDTO,
  MessageUnreadDTO,
} from './contract/messages';
import type {
  ChannelSettingsDTO,
  ContactCheckDTO,
  HubConnectionDTO,
  HubActivityDTO,
  PingDTO,
  SendArgs,
  SendBudgetDTO,
  SendProgressDTO,
  SendResultDTO,
  SessionDTO,
} from './contract/service';
import type { AppSettingsDTO, AppSettingsPatchDTO, DemoDTO, DiagnosticsDTO } from './contract/settings';
import type {
  AgentDTO,
  AgentHealthDTO,
  AgentInputDTO,
  AlertEventDTO,
  AlertStatusDTO,
  AvailabilityDTO,
  HealthHistoryEntryDTO,
  HealthSnapshotDTO,
  IncidentDTO,
  IncidentHistoryArgs,
  QuietHoursDTO,
  TeamDTO,
} from './contract/teams';
import type {
  DeliveryDetailDTO,
  DeliveryFilterDTO,
  DeliverySummaryDTO,
  ExportDTO,
  ExposeArgs,
  ExposureDTO,
  ForwardResultDTO,
  MediaDTO,
  MessageMediaDTO,
  RefusedRequestDTO,
  SavedMediaDTO,
  SimulateArgs,
  TunnelStatusDTO,
  WebhookHistoryDTO,
  WebhookRegistrationDTO,
  WebhookRestoreDTO,
} from './contract/tunnel';
export type * from './contract/errors';
export type * from './contract/teams';
export type * from './contract/service';
export type * from './contract/tunnel';
export type * from './contract/chat';
export type * from './contract/settings';
export type * from './contract/messages';

// ---------------------------------------------------------------------------------------------
// Requests: name → { args, result }
// ---------------------------------------------------------------------------------------------

interface Requests {
  'teams.list': { args: EmptyArgs; result: TeamDTO[] };
  'teams.add': {
    args: { label: string; baseUrl: string; apiKey: string; agents: AgentInputDTO[]; allowInsecureHttp?: boolean };
    result: TeamDTO;
  };
  'teams.remove': { args: { teamId: string }; result: null };
  /**
   * Changes a team in place (its id, and all kept under it, stay): a new label, base URL or key. A new
   * base URL or key is checked with every agent of the team before anything changes.
   */
  'teams.update': {
    args: { teamId: string; label?: string; baseUrl?: string; apiKey?: string; allowInsecureHttp?: boolean };
    result: TeamDTO;
  };

  'agents.list': { args: { teamId?: string }; result: AgentDTO[] };
  'agents.add': { args: { teamId: string; agentId: string; label?: string; labels?: string[] }; result: AgentDTO };
  'agents.remove': { args: { teamId: string; agentId: string }; result: null };
  /** Polls the agent at the fast interval all the time (on), or at the poll interval (off). */
  'agents.watchClosely': { args: { teamId: string; agentId: string; on: boolean }; result: AgentDTO };
  /**
   * Changes the agent's labels: `labels` replaces them, then `add` and `remove` change them (a label is
   * normalised: trimmed, lowercased; one that breaks the rule is refused, naming it, and nothing changes).
   */
  'agents.setLabels': {
    args: { teamId: string; agentId: string; labels?: string[]; add?: string[]; remove?: string[] };
    result: AgentDTO;
  };

  'health.snapshot': { args: EmptyArgs; result: HealthSnapshotDTO };
  /** The agent's health changes kept by the monitor, newest first. */
  'health.history': { args: { teamId: string; agentId: string }; result: HealthHistoryEntryDTO[] };
  /** The agent's availability over 24 h, 7 d and 30 d, from its timeline. */
  'health.availability': { args: { teamId: string; agentId: string }; result: AvailabilityDTO };

  'alerts.list': { args: EmptyArgs; result: IncidentDTO[] };
  /** Resolved incidents kept in the data folder (the last 1,000), latest resolved first. */
  'alerts.history': { args: IncidentHistoryArgs; result: IncidentDTO[] };
  'alerts.status': { args: EmptyArgs; result: AlertStatusDTO };
  'alerts.acknowledge': { args: { incidentId: string }; result: null };
  'alerts.acknowledgeAll': { args: EmptyArgs; result: { count: number } };
  'alerts.snooze': { args: { minutes: number } | { until: 'tomorrow' }; result: AlertStatusDTO };
  'alerts.unsnooze': { args: EmptyArgs; result: AlertStatusDTO };
  'alerts.setQuietHours': { args: QuietHoursDTO; result: AlertStatusDTO };

  'pairing.start': { args: { teamId: string; agentId: string }; result: SessionDTO };
  'pairing.session': { args: { teamId: string; agentId: string }; result: SessionDTO };

  /** `from: 'cli'`: a command sends it (the send log says so); default: the console. */
  'send.message': { args: SendArgs & { from?: 'cli' }; result: SendResultDTO };
  'send.budget': { args: { teamId: string }; result: SendBudgetDTO };
  'send.cancel': { args: { teamId: string; queuedId: string }; result: { cancelled: boolean } };
  /** Stops a send of this window by its clientRef, whether it waits in the queue or between retries. */
  'send.stop': { args: { clientRef: string }; result: { stopped: boolean } };

  'contacts.check': { args: { teamId: string; agentId: string; phone: string }; result: ContactCheckDTO };
  'channel.updateSettings': {
    args: { teamId: string; agentId: string; patch: Partial<ChannelSettingsDTO> };
    result: ChannelSettingsDTO;
  };
  /** `source`: who asks, as the registration history records it (default: the Tunnel screen's Register). */
  'webhook.register': {
    args: { teamId: string; agentId: string; publicUrl: string; source?: 'webhook set' };
    result: WebhookRegistrationDTO;
  };
  /** This install's registrations of the agent's webhook, newest first. */
  'webhook.history': { args: { teamId: string; agentId: string }; result: WebhookHistoryDTO };
  /** Registers the previous URL of the history again; the app behind it needs the new signing secret. */
  'webhook.restore': {
    args: { teamId: string; agentId: string; source?: 'webhook restore' };
    result: WebhookRestoreDTO;
  };
  /** The agent's current signing secret, only on this explicit request (a guarded reveal); never kept in the store. */
  'webhook.revealSecret': { args: { teamId: string; agentId: string }; result: { secret: string } };

  'tunnel.status': { args: EmptyArgs; result: TunnelStatusDTO };
  /** Starts the receiver when it is not running (a command that listens needs it); answers tunnel.status. */
  'tunnel.start': { args: EmptyArgs; result: TunnelStatusDTO };
  'tunnel.deliveries': { args: DeliveryFilterDTO; result: DeliverySummaryDTO[] };
  'tunnel.delivery': { args: { id: string }; result: DeliveryDetailDTO };
  /** `url`: send it there instead of the agent's forward address (the command line's --forward-to). */
  'tunnel.replay': {
    args: { id: string; mode: 'as-received' | 're-signed'; body?: string; url?: string };
    result: ForwardResultDTO;
  };
  'tunnel.simulate': { args: SimulateArgs; result: DeliverySummaryDTO };
  /** `url`: where the curl command posts (default: the agent's forward address, else a placeholder). */
  'tunnel.export': { args: { id: string; format: 'curl' | 'fixture'; url?: string }; result: ExportDTO };
  /** Downloads the file of an image/document delivery through its team's service client. */
  'tunnel.media': { args: { id: string }; result: MediaDTO };
  /** Refused requests and requests to paths that are not hooks, newest first (default 50). */
  'tunnel.refused': { args: { limit?: number; text?: string }; result: RefusedRequestDTO[] };
  /** Opens a public URL for the receiver (stopping the one before); answers once it is up or has failed. */
  'tunnel.expose': { args: ExposeArgs; result: ExposureDTO };
  'tunnel.unexpose': { args: EmptyArgs; result: ExposureDTO };
  /** Stores the ngrok authtoken in the keychain; answers only its hint. */
  'tunnel.setNgrokAuthtoken': { args: { authtoken: string }; result: { hint: string } };
  /** Tries the agent's waiting forwards now instead of waiting out the backoff. */
  'tunnel.retryNow': { args: { agentId: string }; result: { pending: number } };

  'chat.startTurn': {
    args: { teamId: string; agentId: string; userId: string; message: string };
    result: { turnId: string };
  };
  'chat.stopTurn': { args: { turnId: string }; result: { stopped: boolean } };
  'chat.transcript': { args: { teamId: string; agentId: string; userId: string }; result: ChatMessageDTO[] };
  /** The agent's conversations in this install, most recent first; `text` searches messages and replies. */
  'chat.conversations': { args: { teamId: string; agentId: string; text?: string }; result: ChatConversationDTO[] };
  /** Deletes this install's transcript of one conversation (refused while a reply is coming in it). */
  'chat.deleteConversation': {
    args: { teamId: string; agentId: string; userId: string };
    result: { deleted: boolean };
  };
  /** The turn's stream frames as received (event, id, data), not the decoded tokens. */
  'chat.frames': { args: { turnId: string }; result: ChatFramesDTO };

  'settings.get': { args: EmptyArgs; result: AppSettingsDTO };
  'settings.update': { args: { patch: AppSettingsPatchDTO }; result: AppSettingsDTO };

  'diagnostics.export': { args: EmptyArgs; result: DiagnosticsDTO };

  'demo.start': { args: EmptyArgs; result: DemoDTO };

  /** Contacts with messages, most recent first, over one agent, a team, or every agent; search: numbers, names, text. */
  'messages.contacts': {
    args: { teamId?: string; agentId?: string; search?: string; limit?: number };
    result: MessageContactsDTO;
  };
  /** One thread, oldest first: the `limit` latest messages before `beforeSeq` (receive order) or `before` (ms epoch). */
  'messages.thread': {
    args: { teamId: string; agentId: string; phone: string; before?: number; beforeSeq?: number; limit?: number };
    result: MessageThreadDTO;
  };
  /** Read up to the thread's latest message, or up to `upToSeq` (what the window showed). */
  'messages.markRead': { args: { teamId: string; agentId: string; phone: string; upToSeq?: number }; result: null };
  /** Search over every conversation (or a team's, an agent's): words in text, captions, file names; names; numbers in any form. */
  'messages.search': {
    args: { query: string; teamId?: string; agentId?: string; limit?: number };
    result: MessageSearchDTO;
  };
  /** A conversation as JSON lines, CSV or plain text. */
  'messages.export': {
    args: { teamId: string; agentId: string; phone: string; format: 'jsonl' | 'csv' | 'text' };
    result: MessageExportDTO;
  };
  /** Deletes a contact's data: its conversations with every agent and its local name. */
  'messages.deleteContact': { args: { phone: string }; result: { removed: number } };
  /** A local name for a number ('' removes it). */
  'messages.setName': { args: { phone: string; name: string }; result: null };
  'messages.deleteConversation': { args: { teamId: string; agentId: string; phone: string }; result: null };
  'messages.deleteAgent': { args: { teamId: string; agentId: string }; result: null };
  /** Days messages are kept (1–3650); older ones leave the send log and the inbox. */
  'messages.setRetention': { args: { days: number }; result: { retentionDays: number } };
  /** A send from the Messages composer: the same client, budget, queue and send log as send.message. */
  'messages.send': { args: SendArgs; result: SendResultDTO };
  /** An inbound message's image or document (`messageKey`: MessageDTO.key), through the service's media endpoint, cached. */
  'messages.media': { args: { teamId: string; agentId: string; messageKey: string }; result: MessageMediaDTO };
  /** Saves a message's file: a save dialog in the desktop app; the bytes to download in the browser host. */
  'messages.saveMedia': { args: { teamId: string; agentId: string; messageKey: string }; result: SavedMediaDTO };
  /** The agent's sends from this install (console, Messages, CLI), newest first: the send log as the console lists it. */
  'messages.sent': { args: { teamId: string; agentId: string; limit?: number }; result: MessageDTO[] };
  /** Unread counts per agent and in all (the same numbers the messages.unread event brings). */
  'messages.unread': { args: EmptyArgs; result: MessageUnreadDTO };
  /** The thread this window shows with focus (no new-message notification for it), or none ({}). */
  'messages.focus': { args: { teamId?: string; agentId?: string; phone?: string }; result: null };
  /** Mutes (or unmutes) the new-message notifications of one agent. */
  'messages.mute': { args: { teamId: string; agentId: string; muted: boolean }; result: MessageNotificationsDTO };

  /** The window's heartbeat: answers at once while the main side (the browser host, Electron's main process) runs. */
  'app.ping': { args: EmptyArgs; result: PingDTO };

  /** The team's hub the windows work through, or none (answered by the desktop app or the browser host itself). */
  'hub.status': { args: EmptyArgs; result: HubConnectionDTO };
  /** Connects the windows to a team's hub (the token is kept in the OS keychain, never shown again). */
  'hub.connect': { args: { url: string; token: string }; result: HubConnectionDTO };
  /** The team hub's activity, newest first: who sent, registered, deleted, acknowledged… (`before`: an entry's id). */
  'hub.activity': { args: { limit?: number; before?: number }; result: HubActivityDTO };
  /** Back to this machine's companion; the hub's token is forgotten. */
  'hub.disconnect': { args: EmptyArgs; result: HubConnectionDTO };
}

export type RequestName = keyof Requests;
export type ArgsOf<K extends RequestName> = Requests[K]['args'];
export type ResultOf<K extends RequestName> = Requests[K]['result'];

export const REQUEST_NAMES = [
  'teams.list',
  'teams.add',
  'teams.remove',
  'teams.update',
  'agents.list',
  'agents.add',
  'agents.remove',
  'agents.watchClosely',
  'agents.setLabels',
  'health.snapshot',
  'health.history',
  'health.availability',
  'alerts.list',
  'alerts.history',
  'alerts.status',
  'alerts.acknowledge',
  'alerts.acknowledgeAll',
  'alerts.snooze',
  'alerts.unsnooze',
  'alerts.setQuietHours',
  'pairing.start',
  'pairing.session',
  'send.message',
  'send.budget',
  'send.cancel',
  'send.stop',
  'contacts.check',
  'channel.updateSettings',
  'webhook.register',
  'webhook.history',
  'webhook.restore',
  'webhook.revealSecret',
  'tunnel.status',
  'tunnel.start',
  'tunnel.deliveries',
  'tunnel.delivery',
  'tunnel.replay',
  'tunnel.simulate',
  'tunnel.export',
  'tunnel.media',
  'tunnel.refused',
  'tunnel.expose',
  'tunnel.unexpose',
  'tunnel.setNgrokAuthtoken',
  'tunnel.retryNow',
  'chat.startTurn',
  'chat.stopTurn',
  'chat.transcript',
  'chat.conversations',
  'chat.deleteConversation',
  'chat.frames',
  'settings.get',
  'settings.update',
  'diagnostics.export',
  'demo.start',
  'messages.contacts',
  'messages.thread',
  'messages.markRead',
  'messages.setName',
  'messages.deleteConversation',
  'messages.deleteAgent',
  'messages.search',
  'messages.export',
  'messages.deleteContact',
  'messages.setRetention',
  'messages.send',
  'messages.media',
  'messages.saveMedia',
  'messages.sent',
  'messages.unread',
  'messages.focus',
  'messages.mute',
  'app.ping',
  'hub.status',
  'hub.connect',
  'hub.disconnect',
  'hub.activity',
] as const satisfies readonly RequestName[];

// ---------------------------------------------------------------------------------------------
// Events: name → payload (main → renderer, one way)
// ---------------------------------------------------------------------------------------------

export interface Events {
  'health.changed': AgentHealthDTO;
  alert: AlertEventDTO;
  'tunnel.delivery': DeliverySummaryDTO;
  'tunnel.forward': ForwardResultDTO;
  'tunnel.refused': RefusedRequestDTO;
  'tunnel.exposure': ExposureDTO;
  'chat.token': { turnId: string; token: string };
  'chat.done': { turnId: string; result: ChatResultDTO };
  'chat.error': { turnId: string; error: ErrorDTO };
  'send.progress': SendProgressDTO;
  /** Teams or agents were added/removed (by this window, another window, or the CLI). */
  'teams.changed': { teams: TeamDTO[] };
  /** The app settings changed (in this window, another one, or another process on the same config). */
  'settings.changed': { settings: AppSettingsDTO };
  /** This app started or stopped posting the alerts (AlertStatusDTO.alertsPostedBy). */
  'alerts.status': AlertStatusDTO;
  /** A message was stored: a delivery taken by the receiver, or a send recorded. */
  'messages.new': { message: MessageDTO };
  /** Read marks, names, deletions or retention changed (agentId null: any agent). */
  'messages.changed': { agentId: string | null };
  /** Unread counts changed (a message came in, a thread was read, a conversation deleted). */
  'messages.unread': MessageUnreadDTO;
  /** A new inbound message notifies, or a conversation's notification closes. */
  'messages.notice': MessageNoticeDTO;
  /** The shell asks the window to show a route, e.g. "#/agents/a1" (tray click, notification click). */
  'app.navigate': { route: string };
  /** A team hub changed this member's role (role null: the member was removed); told only to that member. */
  'hub.role': { member: string; role: string | null };
}

export type EventName = keyof Events;

export const EVENT_NAMES = [
  'health.changed',
  'alert',
  'tunnel.delivery',
  'tunnel.forward',
  'tunnel.refused',
  'tunnel.exposure',
  'chat.token',
  'chat.done',
  'chat.error',
  'send.progress',
  'teams.changed',
  'settings.changed',
  'alerts.status',
  'app.navigate',
  'messages.new',
  'messages.changed',
  'messages.unread',
  'messages.notice',
  'hub.role',
] as const satisfies readonly EventName[];

/** Any one event as a tagged value. */
export type AnyEvent = { [E in EventName]: { name: E; payload: Events[E] } }[EventName];

// ---------------------------------------------------------------------------------------------
// The Api the renderer sees (window.api in Electron; the web bridge in a browser)
// ---------------------------------------------------------------------------------------------

type ArgsParam<K extends RequestName> = EmptyArgs extends ArgsOf<K> ? [args?: ArgsOf<K>] : [args: ArgsOf<K>];

type RequestFns = { [K in RequestName]: (...args: ArgsParam<K>) => Promise<Result<ResultOf<K>>> };

export type Unsubscribe = () => void;

export type Api = RequestFns & {
  on<E extends EventName>(event: E, cb: (payload: Events[E]) => void): Unsubscribe;
};

/** IPC channel for a request or an event. */
export const IPC_PREFIX = 'cc:';
export const EVENT_PREFIX = 'cc-event:';

export function isRequestName(name: string): name is RequestName {
  return (REQUEST_NAMES as readonly string[]).includes(name);
}

export function isEventName(name: string): name is EventName {
  return (EVENT_NAMES as readonly string[]).includes(name);
}

// Compile-time completeness: every request and event name is listed in the const arrays above.
type MissingRequest = Exclude<RequestName, (typeof REQUEST_NAMES)[number]>;
type MissingEvent = Exclude<EventName, (typeof EVENT_NAMES)[number]>;
const _contractListsComplete: [MissingRequest | MissingEvent] extends [never] ? true : MissingRequest | MissingEvent =
  true;
