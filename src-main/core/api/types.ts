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
  /** Set when the service accepted the change but its answer held no settings: these are the values sent. */
  unconfirmed?: true;
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

/** One frame of a token stream as it came off the wire, before its data was decoded. */
export interface RawFrame {
  /** ms from the response headers to the chunk that completed the frame (when the stream was timed). */
  ms?: number;
  /** The `event:` field; null when the frame had none (an unnamed `message`). */
  event: string | null;
  /** The `id:` field; null when none. */
  id: string | null;
  /** The `data:` lines joined with newlines, as sent. */
  data: string;
  /** A comment line (`: ping`), e.g. a heartbeat; `data` is '' then. */
  comment?: string;
  /** A `retry:` field (ms). */
  retry?: number;
}

/**
 * What the service actually answered, kept when the client could not read it (an unknown shape, an
 * empty reply), so a person can see it. Never holds the API key.
 */
export interface RawResponse {
  status: number;
  contentType: string | null;
  /** Body bytes read. */
  bytes: number;
  /** The first bytes of the body as UTF-8 text (at most RAW_PREFIX_BYTES). */
  prefix: string;
  /** A token stream's frames as received (the first and the last ones of a long stream). */
  frames?: RawFrame[];
  /** Frames left out of `frames`. */
  framesOmitted?: number;
}

/** One typed event of a chat token stream. */
export type ChatStreamEvent =
  | { type: 'token'; token: string }
  | { type: 'done'; result: ChatResult }
  | { type: 'error'; status?: number; code: string; message: string; raw?: RawResponse };

/** Rate-limit headers as read from a response. */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** unix seconds, from X-RateLimit-Reset given as a unix time or as seconds until the reset */
  reset?: number;
  /** seconds (> 0), from Retry-After as seconds or as an HTTP date */
  retryAfter?: number;
}
