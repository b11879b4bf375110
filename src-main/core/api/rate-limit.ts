// Rate-limit headers, read from every response (ASSUMPTION A-RATE), in the forms a service may use:
// names in any case, with or without the `X-` prefix; X-RateLimit-Reset as a unix time or as
// seconds until the reset (told apart by size) or a date; Retry-After as seconds or as an HTTP
// date (or Retry-After-Ms).
import type { RateLimitInfo } from './types';

export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header's first value, its name matched in any case. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const lower = name.toLowerCase();
  let v = headers[lower];
  if (v === undefined) {
    for (const k of Object.keys(headers)) {
      if (k.toLowerCase() === lower) {
        v = headers[k];
        break;
      }
    }
  }
  if (Array.isArray(v)) return v[0];
  return v;
}

/** The leading number of a header value (`60`, `60, 60;w=60`, `1.5`), or undefined. */
function leadingNumber(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[,;]|$)/.exec(s);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : undefined;
}

/** The headers read here, by slot; within a slot the earlier name wins when several are present. */
const SLOTS = {
  limit: ['x-ratelimit-limit', 'ratelimit-limit', 'x-rate-limit-limit'],
  remaining: ['x-ratelimit-remaining', 'ratelimit-remaining', 'x-rate-limit-remaining'],
  reset: ['x-ratelimit-reset', 'ratelimit-reset', 'x-rate-limit-reset'],
  retryAfter: ['retry-after'],
  retryAfterMs: ['retry-after-ms'],
} as const;
type Slot = keyof typeof SLOTS;
const SLOT_OF = new Map<string, { slot: Slot; rank: number }>(
  (Object.keys(SLOTS) as Slot[]).flatMap((slot) => SLOTS[slot].map((name, rank) => [name, { slot, rank }] as const)),
);

/** The rate-limit header values of one answer, in one pass over its headers (names in any case). */
function rateHeaders(headers: HeaderBag): Partial<Record<Slot, string>> {
  const out: Partial<Record<Slot, string>> = {};
  const ranks: Partial<Record<Slot, number>> = {};
  for (const k in headers) {
    const hit = SLOT_OF.get(k) ?? SLOT_OF.get(k.toLowerCase());
    if (hit === undefined) continue;
    const raw = headers[k];
    const v = Array.isArray(raw) ? raw[0] : raw;
    if (v === undefined) continue;
    const had = ranks[hit.slot];
    // Among names of one slot the earlier wins; for one name, its lower-case spelling.
    if (had !== undefined && (had < hit.rank || (had === hit.rank && k !== k.toLowerCase()))) continue;
    ranks[hit.slot] = hit.rank;
    out[hit.slot] = v;
  }
  return out;
}

/** Values at or above this are unix times (seconds since 1970: September 2001 on); below, seconds until the reset. */
const UNIX_SECONDS_FROM = 1_000_000_000;
/** Values at or above this are unix times in milliseconds. */
const UNIX_MS_FROM = 100_000_000_000;

/** X-RateLimit-Reset as unix seconds, whichever form it came in. */
function resetAt(value: number, nowMs: number): number {
  if (value >= UNIX_MS_FROM) return Math.ceil(value / 1000);
  if (value >= UNIX_SECONDS_FROM) return Math.ceil(value);
  return Math.ceil(nowMs / 1000 + value);
}

/** The rate-limit headers of one answer. A Retry-After that is not ahead of now is left out. */
export function parseRateLimit(headers: HeaderBag, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const h = rateHeaders(headers);
  const limit = leadingNumber(h.limit);
  if (limit !== undefined) info.limit = Math.floor(limit);
  const remaining = leadingNumber(h.remaining);
  if (remaining !== undefined) info.remaining = Math.floor(remaining);
  const resetRaw = h.reset;
  const reset = leadingNumber(resetRaw);
  const resetDate = reset === undefined && resetRaw !== undefined ? Date.parse(resetRaw) : Number.NaN;
  if (reset !== undefined) info.reset = resetAt(reset, nowMs);
  else if (Number.isFinite(resetDate)) info.reset = Math.ceil(resetDate / 1000);
  const ra = h.retryAfter?.trim();
  const raMs = leadingNumber(h.retryAfterMs);
  if (ra !== undefined && ra !== '') {
    const secs = leadingNumber(ra);
    const at = secs === undefined ? Date.parse(ra) : Number.NaN;
    const wait = secs !== undefined ? Math.ceil(secs) : Number.isFinite(at) ? Math.ceil((at - nowMs) / 1000) : 0;
    if (wait > 0) info.retryAfter = wait;
  } else if (raMs !== undefined && raMs > 0) {
    info.retryAfter = Math.ceil(raMs / 1000);
  }
  return info;
}

export function hasRateLimit(info: RateLimitInfo): boolean {
  return Object.keys(info).length > 0;
}
