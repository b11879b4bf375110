// THE contract between the renderer and the main process (or the browser host).
// It imports only the shared words (vocabulary.ts): main, preload and renderer all compile against it.
// Every DTO is plain data. API keys and signing secrets never appear in any DTO.
import type { Health, RefusedReason, ServiceErrorKind, Verdict } from './vocabulary';

export { HEALTHS, VERDICTS, type Health, type RefusedReason, type Verdict } from './vocabulary';

// ---------------------------------------------------------------------------------------------
// Errors and the result envelope
// ---------------------------------------------------------------------------------------------

/** A service error's kind, or one of the app's own. */
export type ErrorKind = ServiceErrorKind | 'validation' | 'keychain' | 'forbidden' | 'internal';

export interface ErrorDTO {
  kind: ErrorKind;
  code: string;
  message: string;
  /** HTTP status from the service, when the error came from it. */
  status?: number;
  retryAfterSec?: number;
  /** Dotted path of the argument that failed validation (kind 'validation'). */
  field?: string;
  /** X-RateLimit-Limit of the service's answer: the ceiling a rate-limited request ran into (sends: per minute). */
  limit?: number;
  /** What the service answered, when it could not be read (e.g. code UNREADABLE_REPLY). */
  raw?: RawResponseDTO;
}

/** One frame of a token stream as received, before its data was decoded. */
export interface RawFrameDTO {
  /** ms from the answer's headers to the frame. */
  ms?: number;
  event: string | null;
  id: string | null;
  data: string;
  /** A comment line (a heartbeat); data is '' then. */
  comment?: string;
  retry?: number;
}

/** A service answer the app could not read: status, content type, size, first bytes, the frames. Never a key. */
export interface RawResponseDTO {
  status: number;
  contentType: string | null;
  bytes: number;
  prefix: string;
  frames?: RawFrameDTO[];
  framesOmitted?: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorDTO };

/** Requests that take no arguments take an empty object. */
type EmptyArgs = Record<string, never>;

// ---------------------------------------------------------------------------------------------
// DTOs
// ---------------------------------------------------------------------------------------------

export interface TeamDTO {
  teamId: string;
  label: string;
  baseUrl: string;
  /** Last four characters of the key, e.g. "…9f2c". Never the key. */
  keyHint: string;
  /** The service rejected the key (monitor marks the team once, not per poll). */
  keyRejected: boolean;
  agentIds: string[];
  /** The key may go over plain http:// to a host other than this machine (the person chose so); absent: no. */
  allowInsecureHttp?: boolean;
}

interface AgentInputDTO {
  agentId: string;
  label?: string;
}

export interface AgentHealthDTO {
  teamId: string;
  agentId: string;
  health: Health;
  /** The service's `state` verbatim (ASSUMPTION A-STATE), or null before the first poll. */
  state: string | null;
  phone: string | null;
  needsScan: boolean;
  /**
   * While `health` is 'unreachable': the health the last successful poll told of (absent when no
   * poll has succeeded). The agent's last known state, kept while the service does not answer.
   */
  lastKnown?: Health;
  /** ms epoch when `health` last changed. */
  since: number;
  /** ms epoch of the last poll, null before the first. */
  checkedAt: number | null;
  /** The last poll's error, when it failed. */
  error?: ErrorDTO;
}

export interface AgentDTO {
  teamId: string;
  agentId: string;
  label: string;
  health: AgentHealthDTO;
  /** Polled at the fast interval all the time (kept in the config), so short drops are seen. */
  watchClosely: boolean;
}

interface HealthSnapshotDTO {
  at: number;
  worst: Health;
  agents: AgentHealthDTO[];
}

export type IncidentSeverity = 'urgent' | 'warning' | 'info';

export interface IncidentDTO {
  id: string;
  teamId: string;
  /** The agent it is about; for a team-wide incident, the first of the agents it covers. */
  agentId: string;
  /** About the whole team (the service unreachable, the key rejected), not one agent. */
  teamWide?: boolean;
  /** What went wrong: 'needs-scan', 'reconnecting', 'unreachable', 'key-rejected', or another kind verbatim. */
  kind: string;
  severity: IncidentSeverity;
  title: string;
  message: string;
  /** ms epoch of its start: the first poll that saw the problem (for an unreachable agent, the last poll answered). */
  openedAt: number;
  acknowledgedAt: number | null;
  /** ms epoch when it closed (a drop closes once the agent has stayed connected a while); null while open. */
  resolvedAt: number | null;
  /** ms epoch of its end: the first poll that saw the agent well again; null while open. */
  endedAt: number | null;
  /** Its length, endedAt − openedAt, computed once by the companion: every text prints this; null while open. */
  durationMs: number | null;
  /** Closed because its agent (or team) is no longer watched: no recovery was seen. */
  removed?: true;
}

export interface AlertEventDTO {
  change: 'opened' | 'updated' | 'resolved';
  incident: IncidentDTO;
  /**
   * Tell the person now (a native notification, a toast): the monitor's alert policy raised an alert
   * about this incident with this change and it was not snoozed or held by quiet hours (for
   * 'resolved': its recovery notice), or the incident turned urgent after an alert about it. False
   * for everything that is only tracked: a drop within the grace period, the later drops of a
   * flapping agent, a pairing started on purpose.
   */
  notify: boolean;
}

export interface QuietHoursDTO {
  enabled: boolean;
  /** "HH:MM", local time. */
  start: string;
  end: string;
}

/** One health change of an agent, from the monitor's timeline (health.history). */
export interface HealthHistoryEntryDTO {
  /** ms epoch of the change. */
  at: number;
  health: Health;
  previous: Health;
  /** The service's `state` verbatim at that moment (ASSUMPTION A-STATE). */
  state?: string;
  /** Why, in words: the poll's error (redacted), when there was one. */
  note?: string;
}

/** Filters of alerts.history (all optional); at most `limit` (default and most 1,000) rows. */
interface IncidentHistoryArgs {
  teamId?: string;
  agentId?: string;
  kind?: string;
  limit?: number;
}

/** An agent's availability over one window (health.availability): connected time out of observed time. */
export interface AvailabilityWindowDTO {
  /** Length of the window, ms (24 h, 7 d, 30 d). */
  windowMs: number;
  /** Time with a known health (the monitor running and the agent polled), ms. */
  observedMs: number;
  /** Time connected, ms. */
  upMs: number;
}

export interface AvailabilityDTO {
  at: number;
  windows: AvailabilityWindowDTO[];
}

export interface AlertStatusDTO {
  snoozedUntil: number | null;
  quietHours: QuietHoursDTO;
  /**
   * The other app on this data folder that posts the alerts (alert webhook, Alertmanager) while this
   * one does not (one app per data folder posts them; this one takes over when that one stops), or
   * null: this app posts them.
   */
  alertsPostedBy: { pid: number; since: number } | null;
}

export interface SessionDTO {
  teamId: string;
  agentId: string;
  connected: boolean;
  linked: boolean;
  state: string;
  needsScan: boolean;
  phone: string | null;
  /** PNG data URL while pairing. */
  qr: string | null;
  live?: boolean;
  /** While a QR is on offer: when it changes and when the pairing expires, as the main side saw them. */
  pairing?: PairingTimesDTO;
}

/**
 * The clock of a pairing in progress. The service states no times: the main side counts them from
 * what it saw (ASSUMPTION A-PAIRING: the QR changes every 20 s from the start, the pairing expires
 * 2 min after it started), so a window that opens the pairing later shows the same countdown.
 */
export interface PairingTimesDTO {
  /** ms epoch: when this app started the pairing, or (startedHere false) when it first saw it. */
  startedAt: number;
  /** False when the pairing was started elsewhere: it may be older, and expire sooner, than shown. */
  startedHere: boolean;
  /** The QR changes every qrEveryMs counted from qrAnchorAt (ms epoch). */
  qrAnchorAt: number;
  qrEveryMs: number;
  /** ms epoch after which the code can no longer be scanned (a new pairing is needed). */
  expiresAt: number;
}

/** app.ping: the main side answers (the window's heartbeat). */
export interface PingDTO {
  /** ms epoch on the main side's clock. */
  at: number;
  /** ms epoch when the main side started: a change means it restarted (the window reloads its data). */
  upSince: number;
}

export interface SendArgs {
  teamId: string;
  agentId: string;
  to: string;
  text?: string;
  imageUrl?: string;
  documentUrl?: string;
  documentFilename?: string;
  /** Chosen by the renderer; echoed in send.progress events for this send. */
  clientRef?: string;
}

export interface SendResultDTO {
  status: string;
  messageId: string;
  to: string;
}

export interface QueuedSendDTO {
  id: string;
  agentId: string;
  to: string;
  enqueuedAt: number;
  etaMs: number;
}

export interface SendBudgetDTO {
  teamId: string;
  limit: number;
  windowMs: number;
  used: number;
  queued: QueuedSendDTO[];
}

export interface SendProgressDTO {
  teamId: string;
  agentId: string;
  to: string;
  clientRef?: string;
  phase: 'queued' | 'retrying';
  /** queued: the id to pass to send.cancel, its position and wait. */
  queuedId?: string;
  position?: number;
  waitMs?: number;
  /** retrying: attempt number, delay and the error that caused it. */
  attempt?: number;
  delayMs?: number;
  error?: ErrorDTO;
}

export interface ContactCheckDTO {
  phone: string;
  exists: boolean;
  jid: string;
}

export interface ChannelSettingsDTO {
  groups: boolean;
  readReceipts: boolean;
  deliveryReceipts: boolean;
}

export interface WebhookRegistrationDTO {
  mode: string;
  url: string;
}

/** One webhook registration made by this install (never a secret). */
export interface RegistrationEntryDTO {
  /** Credentials redacted. */
  url: string;
  /** ms epoch */
  at: number;
  /** The command or screen that registered it ("webhook set", "app: Tunnel → Register"). */
  source: string;
  /** What the URL was to this install then: its receiver, its public URL, or another address. */
  target: 'receiver' | 'exposure' | 'other';
}

/**
 * What this install knows of where the agent's deliveries go: here (its last registration is this
 * receiver's hook URL now), stale (it was this receiver's, which it no longer reaches: register
 * again), elsewhere (another URL), unknown (no registration by this install).
 */
export interface RegistrationStatusDTO {
  state: 'here' | 'stale' | 'elsewhere' | 'unknown';
  /** One sentence, as shown. */
  text: string;
  last: RegistrationEntryDTO | null;
  /** What the confirm step says after "Point … at <url>?": the URL that stops receiving, and the new signing secret. */
  takeover: string;
}

export interface WebhookHistoryDTO {
  /** Newest first. */
  entries: RegistrationEntryDTO[];
  /** The registration "Restore previous URL" goes back to, or null. */
  previous: RegistrationEntryDTO | null;
  /** The history file could not be read and was set aside (a new one started), or null. */
  problem: string | null;
}

export interface WebhookRestoreDTO {
  mode: string;
  url: string;
  /** The new signing secret's last characters. */
  secretHint: string;
  /** That the app behind the URL needs the new signing secret, in words. */
  words: string;
}

export interface TunnelAgentDTO {
  teamId: string;
  agentId: string;
  publicUrl: string | null;
  /** What this install knows of where the service sends this agent's deliveries. */
  registration: RegistrationStatusDTO;
  /** A signing secret is held (in the main process) for this agent. */
  hasSecret: boolean;
  /** ms epoch since when this agent's local app stopped answering forwards; null while it answers. */
  localAppDownSince: number | null;
  /** Deliveries of this agent waiting to be forwarded (retried in order). */
  pending: number;
  /** This agent's full hook URL on the local receiver (<listenUrl>/hooks/<agentId>); null while it does not listen. */
  receiverUrl: string | null;
  /** Its full hook URL at the public exposure while that is up; null otherwise. */
  exposedUrl: string | null;
}

export interface TunnelStatusDTO {
  running: boolean;
  /** Loopback URL the receiver listens on. */
  listenUrl: string | null;
  /** Local app URL deliveries are forwarded to. */
  forwardTo: string | null;
  agents: TunnelAgentDTO[];
  /** verified counts duplicates too (authentic, acknowledged, not passed on again); rejected never does. */
  counts: {
    received: number;
    verified: number;
    duplicates: number;
    rejected: number;
    forwarded: number;
    failed: number;
  };
  /** The receiver's public exposure (ngrok or a tunnel command). */
  exposure: ExposureDTO;
  /** Why the receiver cannot run now (another process writes the tunnel's data folder), or null. */
  receiverProblem?: string | null;
  /** The receiver's port is held by another process, or null. */
  portTaken?: PortTakenDTO | null;
  /** The webhook registration history could not be read and was set aside (a new one started), or null. */
  registrationHistoryProblem?: string | null;
}

/** The tunnel port is held by another process: who holds it, and a port free when this was found. */
interface PortTakenDTO {
  port: number;
  /** "another Channel Companion (process 42)", "another program (python3, process 42)" or "another program". */
  owner: string;
  /** Offered as "Use port N instead" (saved as the tunnel port); null when no free port was found. */
  alternative: number | null;
}

// ----- the receiver's public exposure (tunnel.expose / tunnel.unexpose / the tunnel.exposure event) -----

/** off: never started; starting; up (url set); failed (error set; url kept when it was up); stopped (url kept). */
type ExposureState = 'off' | 'starting' | 'up' | 'failed' | 'stopped';

export interface ExposureDTO {
  state: ExposureState;
  kind: 'ngrok' | 'command' | null;
  /** The public base URL while up; the last one once stopped or lost. */
  url: string | null;
  /** ms epoch of the last change. */
  since: number;
  /** Why it failed, and what to do. */
  error: { code: string; message: string; hint: string } | null;
  /** The agents tunnel.expose registered at this URL, each with its outcome. */
  registrations: ExposureRegistrationDTO[];
  /** Whether an ngrok authtoken is stored in the keychain (only a hint of it). */
  ngrokAuthtoken: { stored: boolean; hint: string | null };
}

interface ExposureRegistrationDTO {
  teamId: string;
  agentId: string;
  /** The hook URL registered (or tried). */
  url: string;
  state: 'registering' | 'registered' | 'failed';
  error: string | null;
}

/** Agents to register at the public URL once it is up (default: none). */
export type ExposeArgs =
  | { kind: 'ngrok'; domain?: string; register?: Array<{ teamId: string; agentId: string }> }
  /** `command` runs in the shell with {port} replaced by the receiver's port. */
  | { kind: 'command'; command: string; register?: Array<{ teamId: string; agentId: string }> };

export interface DeliveryFilterDTO {
  agentId?: string;
  verdict?: Verdict;
  event?: string;
  from?: string;
  text?: string;
  since?: number;
  until?: number;
  limit?: number;
}

export interface DeliverySummaryDTO {
  /** This app's record of the delivery: the id shown first everywhere, and the one every tunnel request takes. */
  id: string;
  /**
   * The service's own id of the delivery (its x-delivery-id header), or null when it gave none. Not unique: a
   * repeat of a delivery carries it again. tunnel.delivery, tunnel.replay and tunnel.export take it too.
   */
  serviceId: string | null;
  receivedAt: number;
  teamId: string | null;
  agentId: string | null;
  event: string;
  from: string | null;
  messageId: string | null;
  messageType: string | null;
  preview: string;
  /** verified-legacy-only: accepted on the legacy signature alone (allowed by the tunnel setting; replayable). */
  verdict: Verdict;
  forwardStatus: number | null;
}

export interface ForwardResultDTO {
  deliveryId: string;
  at: number;
  url: string;
  status: number | null;
  durationMs: number;
  error?: string;
  /** The start of the local app's answer (utf8, truncated as the tunnel keeps it), or null. */
  responseBody?: string | null;
  /** Set for a replay (asked for by a person): it never changes the delivery's forward state or counts. */
  replay?: 'as-received' | 're-signed';
}

export interface DeliveryDetailDTO extends DeliverySummaryDTO {
  /** Request headers as received (signature headers included; they are not secrets). */
  headers: Record<string, string>;
  /** The raw body text exactly as received. */
  rawBody: string;
  verificationDetail: string;
  forwards: ForwardResultDTO[];
  /** pending: waiting to be forwarded (queued, or between tries); the others are final. */
  forwardState: 'not-forwarded' | 'pending' | 'delivered' | 'rejected';
  /** While pending: when the agent's forward queue tries next (ms epoch), or null when no try is scheduled. */
  nextTryAt: number | null;
}

/** A request the receiver refused, or one to a path that is not a hook: metadata only, never the body. */
export interface RefusedRequestDTO {
  id: string;
  /** ms epoch */
  at: number;
  method: string;
  path: string;
  /** From /hooks/<agentId>; null when not a hook. */
  agentId: string | null;
  /** The remote address. */
  from: string;
  reason: RefusedReason;
  /** The verification steps / why, in words. */
  detail: string;
  /** What the receiver answered. */
  status: number;
  /** Body bytes received (may be cut at the body limit). */
  size: number;
  /** sha256 (hex) of the bytes received. */
  sha256: string;
  /** The first <= 256 bytes as UTF-8, invalid bytes replaced. */
  prefix: string;
  /** As received (signature headers are not secrets). */
  headers: Record<string, string>;
}

export interface SimulateArgs {
  teamId?: string;
  agentId: string;
  type: 'text' | 'image' | 'document';
  from: string;
  text?: string;
  caption?: string;
  mediaUrl?: string;
  filename?: string;
}

/** The file of an image/document delivery, downloaded by the main process (tunnel.media). */
export interface MediaDTO {
  filename: string;
  mimeType: string;
  bytes: number;
  dataBase64: string;
}

/**
 * A message's file, fetched by the main process through the service's media endpoint (messages.media).
 * `dataUrl`: an image drawn in the window (PNG, JPEG, GIF or WebP up to 5 MiB); null for other files, saved instead.
 */
export interface MessageMediaDTO {
  filename: string;
  mimeType: string;
  bytes: number;
  dataUrl: string | null;
}

/**
 * messages.saveMedia: written where the person chose (the desktop app's save dialog), cancelled
 * there, or (the browser host) the bytes for the window to download.
 */
export type SavedMediaDTO =
  { saved: 'file'; filename: string } | { saved: 'cancelled' } | { saved: 'download'; file: MediaDTO };

export interface ExportDTO {
  format: 'curl' | 'fixture';
  filename: string;
  content: string;
}

interface ChatActionDTO {
  name: string;
  [key: string]: unknown;
}

export interface ChatResultDTO {
  reply: string;
  conversationId: string | null;
  actions: ChatActionDTO[];
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
  /** ms from the turn's start to its first token, measured by the main process; null when none came. */
  firstTokenMs?: number | null;
  /** Output tokens per second of generation, measured by the main process; null when unknown. */
  tokensPerSec?: number | null;
}

export interface ChatMessageDTO {
  id: string;
  role: 'user' | 'agent';
  text: string;
  at: number;
  /** Set on agent messages that ended (done or error). */
  status?: 'streaming' | 'done' | 'stopped' | 'error';
  result?: ChatResultDTO;
  error?: ErrorDTO;
  /** The turn an agent message answers (chat.frames). */
  turnId?: string;
}

/** A turn's token stream frames as received (bounded: the first and the latest ones). */
export interface ChatFramesDTO {
  frames: RawFrameDTO[];
  /** Frames received but left out (the middle of a long stream). */
  omitted: number;
  /** The turn is still streaming. */
  live: boolean;
  /** False for a turn whose frames this run of the app did not see (an older transcript). */
  known: boolean;
}

/** One conversation with an agent in this install's transcripts: one per user id. */
export interface ChatConversationDTO {
  userId: string;
  turns: number;
  /** When its last turn ended (ms epoch). */
  lastAt: number | null;
  /** The service's conversation id, from its latest reply that carried one. */
  conversationId: string | null;
  /** The first message, cut short (the window may show a name of its own instead). */
  title: string;
  /** The last reply (or message), cut short, as written (line breaks and markdown kept). */
  preview: string;
  /** With a search text: the words around its first match; otherwise null. */
  match: string | null;
}

type ThemeDTO = 'system' | 'light' | 'dark';

export interface AlertRulesDTO {
  /** Seconds a reconnecting link may last before it alerts (0: at once). */
  reconnectGraceSec: number;
  /**
   * Seconds a drop within flapWindowMinutes of an earlier drop may last before it alerts (the larger
   * of this and reconnectGraceSec); shorter repeats count toward flapping.
   */
  repeatDropGraceSec: number;
  /** Minutes between reminders of a still-open incident (0: never). */
  realertMinutes: number;
  /** Drops within flapWindowMinutes that count as flapping. */
  flapCount: number;
  flapWindowMinutes: number;
}

export interface AppSettingsDTO {
  /** Read-only: this install's stable id, the default chat user_id. settings.update refuses it. */
  installId: string;
  startAtLogin: boolean;
  notifications: boolean;
  pollIntervalSec: number;
  /** Read-only here: the poll interval while pairing, reconnecting, after a drop, and of agents watched closely. */
  fastPollIntervalSec: number;
  /** Minutes a needs-scan/unreachable state lasts before it is urgent. */
  escalateAfterMin: number;
  /**
   * allowLegacySignature: accept deliveries signed only with the legacy header (no timestamp, so
   * replayable); always present in settings.get, optional in a patch (absent: unchanged).
   */
  tunnel: { port: number; forwardTo: string | null; allowLegacySignature?: boolean };
  alertRules: AlertRulesDTO;
  /** http(s) URL every alert is POSTed to as JSON; null sends none. */
  alertWebhookUrl: string | null;
  /** Alertmanager (base URL) that raised incidents are posted to, firing then resolved; null: none. */
  alertmanagerUrl: string | null;
  /** Port of the Prometheus /metrics endpoint on 127.0.0.1 (0: any free port); null: off. */
  metricsPort: number | null;
  theme: ThemeDTO;
  /** Notifications of new inbound messages (the agents muted are changed by messages.mute). */
  messageNotifications: MessageNotificationsDTO;
}

/** What settings.update accepts: every setting but the read-only ones; messageNotifications in part. */
export type AppSettingsPatchDTO = Partial<
  Omit<AppSettingsDTO, 'installId' | 'fastPollIntervalSec' | 'messageNotifications'> & {
    messageNotifications: Partial<Omit<MessageNotificationsDTO, 'muted'>>;
  }
>;

export interface DiagnosticsDTO {
  filename: string;
  /** JSON text, redacted: no keys, no secrets. */
  content: string;
}

interface DemoDTO {
  team: TeamDTO;
  /** The local emulator's base URL. */
  baseUrl: string;
}

// ---------------------------------------------------------------------------------------------
// Messages: the conversations on the agents' numbers (inbound deliveries and this install's sends)
// ---------------------------------------------------------------------------------------------

/** One message of a thread. `contact` is +digits for a person, the JID for a group. */
export interface MessageDTO {
  /** Unique in its agent: the service's message id, or this install's send id. */
  key: string;
  teamId: string | null;
  agentId: string;
  contact: string;
  /** The local receive order (what orders a thread, marks it read, pages it with beforeSeq); set on every stored message. */
  seq?: number;
  /** ms epoch: when it was received here (or when the send settled). */
  at: number;
  /** ms epoch: the event's own timestamp, as the sender's clock gave it (data only, never the order). */
  eventAt?: number;
  /** in: written by the contact; out: sent from this install, or from the phone (fromMe). */
  direction: 'in' | 'out';
  fromMe: boolean;
  /** text, image, document, or the service's own word. */
  type: string;
  /** The text, or the caption of the media. */
  text: string;
  media?: { url?: string; filename?: string; mimeType?: string; size?: number };
  messageId?: string;
  /** Sends: the service's status ('sent', …) or 'failed' (with error). */
  status?: string;
  error?: ErrorDTO;
  /** Sends: which part of this install made it. */
  via?: 'console' | 'messages' | 'cli';
  /** Sends made from a window: the clientRef it gave the send. */
  clientRef?: string;
  /** Inbound: the tunnel delivery it came in (media is fetched through it). */
  deliveryId?: string;
  /** Inbound: simulated on this machine, or a replay of a stored delivery: never from WhatsApp. */
  simulated?: boolean;
}

export interface MessageContactDTO {
  teamId: string | null;
  agentId: string;
  contact: string;
  /** The local name given in this install. */
  name?: string;
  lastAt: number;
  last: MessageDTO;
  unread: number;
  count: number;
  /** Every message of it is simulated or replayed (never from WhatsApp): shown marked, never replied to. */
  simulated?: boolean;
}

/**
 * Why an agent's inbox may be missing messages: this app is not where its webhook delivers
 * ('not-registered'), another process writes the data folder ('receiver-elsewhere': `listen` or a
 * second app stores the deliveries), or the receiver is not running ('receiver-stopped').
 */
export type InboxGap = 'not-registered' | 'receiver-elsewhere' | 'receiver-stopped';

export interface InboxAgentDTO {
  teamId: string;
  agentId: string;
  unread: number;
  /** null: this app receives the agent's deliveries. */
  gap: InboxGap | null;
  /** The gap in people's words. */
  reason: string | null;
}

/** @internal Exported for tests. */
export interface MessageContactsDTO {
  contacts: MessageContactDTO[];
  /** The agents asked for, with their unread counts and why their inbox may be incomplete. */
  agents: InboxAgentDTO[];
  unread: number;
  retentionDays: number;
}

/** [start, end) offsets of a match in the field a search hit names. */
export type MatchRangeDTO = [number, number];

/** messages.search: messages whose text, caption or file name match; contacts whose number or local name do. */
export interface MessageSearchDTO {
  messages: Array<{ message: MessageDTO; field: 'text' | 'filename'; ranges: MatchRangeDTO[] }>;
  /** `ranges` are in `contact.contact` (as shown, with its +) or `contact.name`. */
  contacts: Array<{ contact: MessageContactDTO; field: 'contact' | 'name'; ranges: MatchRangeDTO[] }>;
}

/** messages.export: a conversation as a file's content, for the window to save or download. */
interface MessageExportDTO {
  filename: string;
  mimeType: string;
  content: string;
  count: number;
}

/** When a new inbound message notifies (a native notification, or an in-app notice in the browser host). */
export interface MessageNotificationsDTO {
  enabled: boolean;
  /** Show the message's text (never while the screen is locked, when the platform tells). */
  showText: boolean;
  /** Local times; during them no notification (unread counts still change). */
  quietHours: QuietHoursDTO;
  /** Agents whose messages never notify. */
  muted: Array<{ teamId: string; agentId: string }>;
}

/** Unread inbound messages: every agent of every team, and the total (the sidebar, home rows, tray). */
export interface MessageUnreadDTO {
  total: number;
  agents: Array<{ teamId: string; agentId: string; unread: number }>;
}

/**
 * A notification of new inbound messages, one per conversation (group): a burst from one contact
 * replaces the one shown ("3 new messages from …"); `clear` closes it (the thread was read).
 */
export type MessageNoticeDTO =
  | {
      kind: 'show';
      group: string;
      teamId: string | null;
      agentId: string;
      contact: string;
      /** Unread messages of the conversation. */
      count: number;
      title: string;
      /** The text when the settings and the screen allow it, else words without it. */
      body: string;
      /** The body without the message's text (for a screen that locks while it shows). */
      privateBody: string;
      /** A repeat within a burst: replaces the one shown without a sound. */
      silent: boolean;
      /** The thread: #/messages?team=…&agent=…&with=… */
      route: string;
    }
  | { kind: 'clear'; group: string };

export interface MessageThreadDTO {
  messages: MessageDTO[];
  /** Older messages exist (ask again with before = the first one's at). */
  more: boolean;
  name?: string;
  /** Every message of the conversation is simulated or replayed: there is no one to reply to (messages.send refuses). */
  simulated?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Requests: name → { args, result }
// ---------------------------------------------------------------------------------------------

/** @internal Exported for tests. */
export interface Requests {
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
  'agents.add': { args: { teamId: string; agentId: string; label?: string }; result: AgentDTO };
  'agents.remove': { args: { teamId: string; agentId: string }; result: null };
  /** Polls the agent at the fast interval all the time (on), or at the poll interval (off). */
  'agents.watchClosely': { args: { teamId: string; agentId: string; on: boolean }; result: AgentDTO };

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
}

export type EventName = keyof Events;

/** @internal Exported for tests. */
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
