// The service client's public shape: one typed method per endpoint of docs/service-api.md §4.
// Implemented by createServiceClient() in ./client.ts; everything else codes against this.
import type { Dispatcher } from 'undici';
import type { Clock, Random } from '../ports';
import type { FrameSnapshot } from './raw';
import type {
  ChannelSettings,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ContactCheck,
  RateLimitInfo,
  SendRequest,
  SendResult,
  SessionStatus,
  WebhookConfig,
} from './types';

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout; default from the client options. */
  timeoutMs?: number;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: { kind: string; code: string; message: string };
}

export interface SendOptions extends CallOptions {
  /** Retries on 503 CHANNEL_RECONNECTING (or any 503; with backoff and jitter). Default 4. */
  maxRetries?: number;
  /**
   * Asked each time the 503 retries are used up (e.g. "is the monitor still seeing the number
   * reconnecting?"): true retries once more at the longest backoff, false gives up with the 503.
   */
  shouldKeepRetrying?: (info: RetryInfo) => boolean | Promise<boolean>;
  /** Called before each retry wait, so the UI can show "reconnecting — retrying (2/4)". */
  onRetry?: (info: RetryInfo) => void;
  /** Called when the send waits in the client-side budget queue; `id` is what cancelQueued takes. */
  onQueued?: (info: { id: string; position: number; waitMs: number }) => void;
}

export interface MediaDownloadResult {
  path: string;
  contentType: string | null;
  filename: string | null;
  bytes: number;
}

export interface MediaDownloadOptions extends CallOptions {
  onProgress?: (received: number, total: number | null) => void;
  /**
   * Called once the answer's headers are in, before any byte of the body is written, with its
   * announced length (null: not announced): answers the most bytes the body may have (a longer
   * body fails with MEDIA_TOO_LARGE, nothing beyond the limit written), or undefined for no limit.
   * A throw ends the download with that error.
   */
  beforeBody?: (total: number | null) => Promise<number | undefined> | number | undefined;
}

/** A chat token stream: an async iterable of typed events that can be stopped mid-stream. */
export interface ChatStream extends AsyncIterable<ChatStreamEvent> {
  abort(): void;
  /**
   * The frames received so far as they came (event, id, data; bounded: the first `head` and the
   * latest `tail`), for a person to look at. Empty before the answer arrives.
   */
  frames(head?: number, tail?: number): FrameSnapshot;
}

/** One queued send as the UI shows it. */
export interface QueuedSend {
  id: string;
  agentId: string;
  to: string;
  enqueuedAt: number;
  /** Estimated ms until it goes out. */
  etaMs: number;
}

export interface SendBudgetSnapshot {
  /** Sends allowed per window (60 by default, or what X-RateLimit-Limit reports). */
  limit: number;
  windowMs: number;
  /** Sends made in the current window. */
  used: number;
  queued: QueuedSend[];
}

export interface ServiceClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Injected undici dispatcher (keep-alive Agent by default; MockAgent in tests). */
  dispatcher?: Dispatcher;
  /** Default per-call timeout (ms). */
  timeoutMs?: number;
  clock?: Clock;
  random?: Random;
  /** Client-side send budget per team; default 60 per 60 s. */
  sendBudget?: { limit?: number; windowMs?: number; marginMs?: number };
  /**
   * Send the key over plain http:// to a host other than this machine. Off by default: such a base
   * URL is refused, because anyone on the way could read the key.
   */
  allowInsecureHttp?: boolean;
  /** Which form of the number the contacts path takes, per base URL (shared by default). */
  contactPathForms?: Map<string, ContactPathForm>;
}

/** `+` percent-encoded (`%2B15550102000`), as `to` is sent, or bare digits (`15550102000`). */
export type ContactPathForm = 'plus' | 'digits';

export interface ServiceClient {
  readonly baseUrl: string;
  /** POST .../whatsapp/session — starts pairing. The reply body is not relied on (A-SESSION-POST). */
  startPairing(agentId: string, opts?: CallOptions): Promise<SessionStatus | null>;
  /** GET .../whatsapp/session */
  getSession(agentId: string, opts?: CallOptions): Promise<SessionStatus>;
  /** POST .../whatsapp/messages — `to` is normalised first; garbage is rejected before any request. */
  send(agentId: string, req: SendRequest, opts?: SendOptions): Promise<SendResult>;
  /** PUT .../whatsapp/webhook */
  setWebhook(agentId: string, url: string, opts?: CallOptions): Promise<WebhookConfig>;
  /** GET .../whatsapp/media/{messageId}, streamed to destPath (a file, or a folder to name it in). */
  downloadMedia(
    agentId: string,
    messageId: string,
    destPath: string,
    opts?: MediaDownloadOptions,
  ): Promise<MediaDownloadResult>;
  /** GET .../whatsapp/contacts/{phone} */
  checkContact(agentId: string, phone: string, opts?: CallOptions): Promise<ContactCheck>;
  /** PATCH .../whatsapp/settings */
  updateSettings(agentId: string, patch: Partial<ChannelSettings>, opts?: CallOptions): Promise<ChannelSettings>;
  /** POST .../chat (single response) */
  chat(agentId: string, req: ChatRequest, opts?: CallOptions): Promise<ChatResult>;
  /** POST .../chat with stream:true and Accept: text/event-stream */
  chatStream(agentId: string, req: ChatRequest, opts?: CallOptions): ChatStream;
  /** Rate-limit headers from the latest response (X-RateLimit-Limit is on every response). */
  readonly rateLimit: RateLimitInfo;
  /** The client-side send budget and its queue. */
  sendBudget(): SendBudgetSnapshot;
  /** Cancels a queued send (it rejects with Aborted). Returns false when it is no longer queued. */
  cancelQueued(id: string): boolean;
  close(): Promise<void>;
}
