// The contract's service: One agent on the service: its session and pairing, sends and their budget, contact checks, channel settings.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { ErrorDTO } from './errors';

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
  /** Present only when a team's hub answers: who asks, and where the service reaches the hub. */
  hub?: {
    /** The member whose token asked, and their role (viewer, developer, on-call, admin). */
    member: string;
    role: string;
    /** The URL the hub is reached at through its proxy (`hub --public-url`): hook URLs live under it; null without one. */
    publicUrl: string | null;
  };
}

/** The team's hub this window works through (hub.status, hub.connect, hub.disconnect). */
export interface HubConnectionDTO {
  /** The hub's URL while connected (or saved, when `problem` says why it is not in use); null: this machine's companion. */
  url: string | null;
  /** The member the token belongs to, and their role, while connected. */
  member: string | null;
  role: string | null;
  /** Where the hub receives deliveries while connected (its `--public-url`: hook URLs live under it); null without one. */
  publicUrl: string | null;
  /** Why the saved hub is not in use (its token refused, it did not answer), or null. */
  problem: string | null;
}

/** One thing a member did on a team hub (its hub_audit row): never a message's text or a contact's number. */
export interface HubActivityEntryDTO {
  /** The entry's id: `before` of the next page. */
  id: number;
  /** ms epoch */
  at: number;
  /** The member; null: the hub's operator (a `hub member …` command on the server). */
  member: string | null;
  /** The request or action ('messages.deleteConversation', 'member.add', …); HUB_ACTIVITY_WORDS says it in words. */
  action: string;
  /** What it was done to, in words ("agent sales: 1 conversation, 12 messages"), or null. */
  subject: string | null;
}

export interface HubActivityDTO {
  /** Newest first. */
  entries: HubActivityEntryDTO[];
  /** `before` for the next (older) page, or null when this is the last. */
  next: number | null;
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
