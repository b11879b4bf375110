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

function firstOf(headers: HeaderBag, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = headerValue(headers, n);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The leading number of a header value (`60`, `60, 60;w=60`, `1.5`), or undefined. */
function leadingNumber(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[,;]|$)/.exec(s);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : undefined;
}

const LIMIT = ['x-ratelimit-limit', 'ratelimit-limit', 'x-rate-limit-limit'];
const REMAINING = ['x-ratelimit-remaining', 'ratelimit-remaining', 'x-rate-limit-remaining'];
const RESET = ['x-ratelimit-reset', 'ratelimit-reset', 'x-rate-limit-reset'];

/** Values at or above this are unix times (seconds since 1970: September 2001 on); below, seconds until the reset. */
const UNIX_SECONDS_FROM = 1_000_000_000;
/** Values at or above this are unix times in milliseconds. */
const UNIX_MS_FROM = 100_000_000_000;

/** X-RateLimit-Reset as unix seconds, whichever form it came in. */
export function resetAt(value: number, nowMs: number): number {
  if (value >= UNIX_MS_FROM) return Math.ceil(value / 1000);
  if (value >= UNIX_SECONDS_FROM) return Math.ceil(value);
  return Math.ceil(nowMs / 1000 + value);
}

/** The rate-limit headers of one answer. A Retry-After that is not ahead of now is left out. */
export function parseRateLimit(headers: HeaderBag, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = leadingNumber(firstOf(headers, LIMIT));
  if (limit !== undefined) info.limit = Math.floor(limit);
  const remaining = leadingNumber(firstOf(headers, REMAINING));
  if (remaining !== undefined) info.remaining = Math.floor(remaining);
  const resetRaw = firstOf(headers, RESET);
  const reset = leadingNumber(resetRaw);
  const resetDate = reset === undefined && resetRaw !== undefined ? Date.parse(resetRaw) : Number.NaN;
  if (reset !== undefined) info.reset = resetAt(reset, nowMs);
  else if (Number.isFinite(resetDate)) info.reset = Math.ceil(resetDate / 1000);
  const ra = headerValue(headers, 'retry-after')?.trim();
  const raMs = leadingNumber(headerValue(headers, 'retry-after-ms'));
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
