// The headers a delivery carries to the local app: its original content-type and both signature
// headers, plus the tunnel's own markers.
import { headerValue, LEGACY_HEADER, V1_HEADER, type HeaderBag } from '../signature';
import type { HeaderMap } from './types';

export const TUNNEL_HEADER = 'x-channel-companion-tunnel';
export const DELIVERY_HEADER = 'x-channel-companion-delivery';
export const REPLAY_HEADER = 'x-channel-companion-replay';
export const SIMULATED_HEADER = 'x-channel-companion-simulated';
export const RESIGNED_HEADER = 'x-channel-companion-resigned';
const TUNNEL_VERSION = '0.1.0';
export const DEFAULT_TUNNEL_NAME = `channel-companion-tunnel/${TUNNEL_VERSION}`;

const FORWARDED = ['content-type', LEGACY_HEADER, V1_HEADER] as const;

/**
 * One header's value; names are matched case-insensitively. Received headers are stored with
 * lower-case names, so the direct look-up almost always answers without a scan.
 */
export function headerOf(headers: HeaderBag, name: string): string | undefined {
  const v = Object.prototype.hasOwnProperty.call(headers, name) ? headers[name] : undefined;
  if (v !== undefined) return Array.isArray(v) ? v.join(',') : v;
  return headerValue(headers, name);
}

/** content-type and both signature headers as received (absent ones stay absent). */
export function originalHeaders(headers: HeaderMap, into: Record<string, string> = {}): Record<string, string> {
  for (const name of FORWARDED) {
    const v = headerOf(headers, name);
    if (v !== undefined) into[name] = v;
  }
  return into;
}

export function tunnelHeaders(name: string, deliveryId: string): Record<string, string> {
  return { [TUNNEL_HEADER]: name, [DELIVERY_HEADER]: deliveryId };
}

/** What a credential header's value is stored as (see redactHeaders). */
export const REDACTED = '(redacted)';

/** Names of headers that carry credentials (the sender's, never the service's signature). */
const CREDENTIAL_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const CREDENTIAL_RE = /(?:^|[-_])(?:auth|token|secret|password|passwd|api[-_]?key|session|credentials?)(?:[-_]|$)/;

/** Names already judged (the same few arrive with every delivery), up to KNOWN_NAMES of them. */
const known = new Map<string, boolean>();
const KNOWN_NAMES = 256;

/** Whether a header (its name lower-cased) carries a credential, so its value is not kept. */
export function isCredentialHeader(name: string): boolean {
  let is = known.get(name);
  if (is === undefined) {
    is = CREDENTIAL_NAMES.has(name) || CREDENTIAL_RE.test(name);
    if (known.size < KNOWN_NAMES) known.set(name, is);
  }
  return is;
}

/**
 * The headers with each credential header's value replaced by REDACTED; the same object when there
 * is none (the common case costs one test per name).
 */
export function redactHeaders<T extends string | string[] | undefined>(headers: Record<string, T>): Record<string, T> {
  let out: Record<string, T> | null = null;
  for (const name in headers) {
    if (headers[name] === undefined || !isCredentialHeader(name.toLowerCase())) continue;
    out ??= { ...headers };
    out[name] = REDACTED as T;
  }
  return out ?? headers;
}
