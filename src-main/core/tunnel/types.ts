// Records of the tunnel's durable event log and the verdict it gives each delivery.
import type { RefusedReason, TunnelReason } from '../../../src-shared/vocabulary';

export { REFUSED_REASONS, TUNNEL_REASONS, type RefusedReason, type TunnelReason } from '../../../src-shared/vocabulary';

/** Something odd about an authentic body; it is acknowledged and forwarded byte for byte all the same. */
type BodyNote = 'not-json' | 'utf8-bom';

export interface TunnelVerdict {
  ok: boolean;
  reason: TunnelReason;
  scheme: 'v1' | 'legacy' | 'none';
  /** The v1 timestamp (unix s) when one was parsed. */
  timestamp?: number;
  steps: string[];
  note?: BodyNote;
}

/** What the inspector shows without decoding the body. */
export interface DeliverySummary {
  event: string | null;
  from: string | null;
  messageId: string | null;
  type: string | null;
}

export type HeaderMap = Record<string, string | string[]>;

/** One received (or simulated) delivery, exactly as it arrived. */
export interface StoredDelivery {
  kind: 'delivery';
  id: string;
  agentId: string;
  /** ms since epoch */
  receivedAt: number;
  method: string;
  path: string;
  /** Header names lower-cased, values as received. */
  headers: HeaderMap;
  /** The raw body bytes, base64. */
  bodyBase64: string;
  verdict: TunnelVerdict;
  summary: DeliverySummary;
  /** Decided at receive time: this delivery goes to the local app. */
  forward: boolean;
  simulated?: boolean;
}

/** A delivery's body with what identifies it, without the rest of its record (the log's bodies()). */
export interface DeliveryBody {
  id: string;
  agentId: string;
  /** ms since epoch */
  receivedAt: number;
  simulated: boolean;
  /** The verdict said authentic. */
  ok: boolean;
  event: string | null;
  /** The raw body bytes. */
  body: Buffer;
}

export type ReplayMode = 'as-received' | 're-signed';

/** One POST of a delivery to the local app (forward or replay). */
export interface ForwardAttempt {
  kind: 'attempt';
  id: string;
  deliveryId: string;
  /** ms since epoch */
  at: number;
  url: string;
  /** HTTP status, or null when there was no answer. */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The first 4 KiB of the answer (utf8), or null. */
  responseBody: string | null;
  /** Set for replays; replays never change the pending state. */
  replay?: ReplayMode;
  /** True when a queued delivery was re-signed because its own signature had gone stale. */
  resigned?: boolean;
  /**
   * Set on a 2xx that went ahead of an earlier delivery of the same agent (this id): that one failed
   * while this one was already on its way in the pipeline (see forwarder.ts).
   */
  aheadOf?: string;
}

/**
 * A delivery already received, kept for duplicate detection after its delivery record left the log
 * (seen.ts: the seen file).
 */
export interface SeenRecord {
  agentId: string;
  /** message.id, or for a delivery without one a hash of its signature and body (seen.ts). */
  key: string;
  /** ms since epoch, when first received */
  at: number;
}

export type LogRecord = StoredDelivery | ForwardAttempt;

/** A request the receiver refused, or one to a path that is not a hook: metadata only, never the body. */
export interface RefusedRequest {
  id: string;
  /** ms since epoch */
  at: number;
  method: string;
  path: string;
  /** From /hooks/<agentId>; null when not a hook. */
  agentId: string | null;
  /** The remote address (the last X-Forwarded-For hop when it came through a local proxy). */
  from: string;
  reason: RefusedReason;
  /** The verification steps, or why, in words. */
  detail: string;
  /** What the receiver answered. */
  status: number;
  /** Body bytes received (cut at the body limit). */
  size: number;
  /** sha256 (hex) of the bytes received. */
  sha256: string;
  /** The first <= 256 bytes as UTF-8, invalid bytes replaced. */
  prefix: string;
  /** As received (capped in size); signature headers are not secrets. */
  headers: Record<string, string>;
}

/** not-forwarded: never meant for the local app; pending: waits in the queue; delivered: 2xx; rejected: final 4xx. */
export type ForwardState = 'not-forwarded' | 'pending' | 'delivered' | 'rejected';

export interface DeliveryListItem {
  id: string;
  agentId: string;
  receivedAt: number;
  verdict: { ok: boolean; reason: TunnelReason; scheme: TunnelVerdict['scheme'] };
  summary: DeliverySummary;
  bytes: number;
  simulated: boolean;
  forwardState: ForwardState;
  attempts: number;
  lastStatus: number | null;
}

export interface DeliveryDetail extends StoredDelivery {
  attempts: ForwardAttempt[];
  forwardState: ForwardState;
}

export const RESPONSE_BODY_LIMIT = 4096;
