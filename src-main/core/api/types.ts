// The service's resources as the client sees them (docs/service-api.md §2), normalised from the
// tolerant shapes in docs/service-assumptions.md. Plain data only: these cross into the contract.

/** Session status of an agent's channel link. Decisions use needsScan/linked/connected, never `state`. */
export interface SessionStatus {
  connected: boolean;
  linked: boolean;
  /** As reported; unknown values are kept verbatim (ASSUMPTION A-STATE). */
  state: string;
  needsScan: boolean;
  /** E.164 without plus, or null when not linked. */
  phone: string | null;
  /** PNG data URL while pairing, else null. */
  qr: string | null;
  /** Optional: the service holds a connection right now (ASSUMPTION A-LIVE). */
  live?: boolean;
}

/** Outbound message request (body of POST .../whatsapp/messages). */
export interface SendRequest {
  to: string;
  text?: string;
  imageUrl?: string;
  documentUrl?: string;
  documentFilename?: string;
}

export interface SendResult {
  status: string;
  messageId: string;
  to: string;
  /** Extra fields the emulator returns; not relied on (ASSUMPTION A-SEND-EXTRA). */
  type?: string;
  timestamp?: string;
}

export interface WebhookConfig {
  mode: string;
  url: string;
  secret: string;
  events?: string[];
  updatedAt?: string;
}

export interface ContactCheck {
  phone: string;
  exists: boolean;
  jid: string;
}

/** Channel switches (ASSUMPTION A-SETTINGS: these field names). */
export interface ChannelSettings {
  groups: boolean;
  readReceipts: boolean;
  deliveryReceipts: boolean;
}

export interface ChatAction {
  name: string;
  [key: string]: unknown;
}

export interface ChatUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

export interface ChatRequest {
  message: string;
  user_id: string;
}

export interface ChatResult {
  reply: string;
  conversationId: string | null;
  actions: ChatAction[];
  usage: ChatUsage;
  /** The raw response body, for the "raw" view. */
  raw?: unknown;
}

/** One typed event of a chat token stream. */
export type ChatStreamEvent =
  | { type: 'token'; token: string }
  | { type: 'done'; result: ChatResult }
  | { type: 'error'; status?: number; code: string; message: string };

/** Rate-limit headers as read from a response. */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** unix seconds */
  reset?: number;
  /** seconds, from Retry-After */
  retryAfter?: number;
}
