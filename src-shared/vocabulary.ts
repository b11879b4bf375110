// The product's words for service errors, verdicts and health: one list each, used by the core, the contract, the
// command line and the screens alike (plain data, importable by every runtime).

/**
 * A service error by meaning. The key the service refused is `key-rejected` (its code stays the
 * service's UNAUTHORIZED); a number a person must link again by a QR scan is `needs-scan` (code
 * CHANNEL_NOT_CONFIGURED).
 */
export const SERVICE_ERROR_KINDS = [
  'reconnecting',
  'needs-scan',
  'rate-limited',
  'quota-exceeded',
  'key-rejected',
  'not-found',
  'invalid-request',
  'server-error',
  'network-error',
  'timeout',
  'aborted',
] as const;
export type ServiceErrorKind = (typeof SERVICE_ERROR_KINDS)[number];

/** What a webhook signature check concludes (the first two accept the delivery). */
const SIGNATURE_REASONS = [
  'verified',
  'verified-legacy-only',
  'missing-signature',
  'signature-mismatch',
  'stale-timestamp',
  'future-timestamp',
  'malformed-header',
  'no-secret',
] as const;
export type SignatureReason = (typeof SIGNATURE_REASONS)[number];

/**
 * A stored delivery's verdict: the signature's, or what the tunnel adds: a repeat of a delivery
 * already received (`duplicate`), one signed only with the legacy header while that is not allowed
 * (`legacy-only`).
 */
export const TUNNEL_REASONS = [...SIGNATURE_REASONS, 'duplicate', 'legacy-only'] as const;
export type TunnelReason = (typeof TUNNEL_REASONS)[number];

/** A delivery's verdict as shown: the tunnel's reason, or `simulated` for one made up here. */
export const VERDICTS = [...TUNNEL_REASONS, 'simulated'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Why the receiver refused a request (or why it was not a hook at all): a failed verdict's reason,
 * or one of the receiver's own.
 */
export const REFUSED_REASONS = [
  'not-a-hook',
  'missing-signature',
  'signature-mismatch',
  'stale-timestamp',
  'future-timestamp',
  'malformed-header',
  'no-secret',
  'legacy-only',
  'rate-limited',
  'too-large',
  'bad-request',
  'storage-unavailable',
  /** Held while the agent's webhook registration was under way, then answered 503 (the service retries). */
  'registering',
  /** The hook of an agent the receiver does not take deliveries for (404). */
  'unknown-agent',
  /** The receiver held as many bytes of bodies as it may at once (503 with Retry-After). */
  'busy',
] as const;
export type RefusedReason = (typeof REFUSED_REASONS)[number];

/**
 * Health of one agent's channel link, ordered best → worst. The last three need a person (retrying
 * never helps): the agent is not in the team on the service (`not-found`), the service refused the
 * team's key (`key-rejected`), someone must scan a QR (`needs-scan`, worst).
 */
export const HEALTHS = [
  'connected',
  'unknown',
  'reconnecting',
  'unreachable',
  'not-found',
  'key-rejected',
  'needs-scan',
] as const;
export type Health = (typeof HEALTHS)[number];

/**
 * Said, where the alert webhook and Alertmanager are set (the Alerts screen, `serve`), by an app that
 * shares its data folder with another app that posts the alerts: only one of them posts them.
 */
export function alertsPostedElsewhereWords(pid: number): string {
  return `Another app on this data folder (process ${pid}) posts the alerts to the webhook and Alertmanager, so they are not posted twice; this app posts them once that app stops.`;
}
