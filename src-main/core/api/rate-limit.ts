// Rate-limit headers, read from every response (ASSUMPTION A-RATE).
import type { RateLimitInfo } from './types';

export type HeaderBag = Record<string, string | string[] | undefined>;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  if (Array.isArray(v)) return v[0];
  return v;
}

function nonNegativeInt(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  const n = Math.floor(Number(t));
  return Number.isFinite(n) ? n : undefined;
}

/** X-RateLimit-Limit / -Remaining / -Reset (unix s) and Retry-After (seconds or an HTTP date). */
export function parseRateLimit(headers: HeaderBag, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = nonNegativeInt(headerValue(headers, 'x-ratelimit-limit'));
  if (limit !== undefined) info.limit = limit;
  const remaining = nonNegativeInt(headerValue(headers, 'x-ratelimit-remaining'));
  if (remaining !== undefined) info.remaining = remaining;
  const reset = nonNegativeInt(headerValue(headers, 'x-ratelimit-reset'));
  if (reset !== undefined) info.reset = reset;
  const ra = headerValue(headers, 'retry-after');
  if (ra !== undefined) {
    const secs = nonNegativeInt(ra);
    if (secs !== undefined) info.retryAfter = secs;
    else {
      const at = Date.parse(ra);
      if (Number.isFinite(at)) info.retryAfter = Math.max(0, Math.ceil((at - nowMs) / 1000));
    }
  }
  return info;
}

export function hasRateLimit(info: RateLimitInfo): boolean {
  return Object.keys(info).length > 0;
}
