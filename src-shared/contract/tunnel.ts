// The contract's tunnel: Webhooks and the receiver: registrations, the tunnel, its exposure, deliveries, refused requests, media.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { RefusedReason, Verdict } from '../vocabulary';

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
  /** The team hub's member who registered it (a registration through a hub). */
  registeredBy?: string;
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
  /**
   * On a team hub's `tunnel.delivery` event only, for a body of at most 4 KiB: the delivery's headers and body as
   * `tunnel.delivery` answers them, so a listener forwards it without asking the hub for it.
   */
  request?: { headers: Record<string, string>; rawBody: string };
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
