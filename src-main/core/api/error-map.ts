// HTTP status + body (+ headers) → an error class by meaning (errors.ts). Messages never carry the key.
import {
  Aborted,
  ChannelNotConfigured,
  ChannelReconnecting,
  InvalidRequest,
  NetworkError,
  NotFound,
  QuotaExceeded,
  RateLimited,
  ServerError,
  ServiceError,
  Timeout,
  Unauthorized,
  type ServiceErrorInit,
} from './errors';
import type { RateLimitInfo } from './types';

const REDACTED = '[redacted]';

/** Removes every occurrence of the secret (and its bearer form) from text. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(REDACTED);
}

export interface ErrorBody {
  code?: string;
  message?: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * Code and message from an error body, in any of the shapes the client accepts (ASSUMPTION A-ERROR-BODY):
 * code from error.code | code | error (string); message from error.message | message.
 */
export function readErrorBody(body: unknown): ErrorBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  const nested = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : undefined;
  const out: ErrorBody = {};
  const code = str(nested?.code) ?? str(b.code) ?? str(b.error);
  if (code !== undefined) out.code = code;
  const message = str(nested?.message) ?? str(b.message);
  if (message !== undefined) out.message = message;
  return out;
}

/** Parses body text as JSON when it is JSON; anything else (HTML, empty) gives undefined. */
export function tryJson(text: string): unknown {
  const t = text.trim();
  if (t === '' || (t[0] !== '{' && t[0] !== '[' && t[0] !== '"')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

const MAX_MESSAGE = 300;

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s;
}

function isQuotaCode(code: string | undefined): boolean {
  return code !== undefined && /quota/i.test(code);
}

/** Maps a non-2xx answer to its error class. `bodyText` may be empty, HTML, or JSON in any accepted shape. */
export function mapErrorResponse(
  status: number,
  bodyText: string,
  rateLimit: RateLimitInfo,
  secret?: string,
): ServiceError {
  const { code, message } = readErrorBody(tryJson(bodyText));
  const init: ServiceErrorInit = { status, rateLimit };
  if (code !== undefined) init.code = clip(redact(code, secret));
  if (message !== undefined) init.message = clip(redact(message, secret));
  const upper = code?.toUpperCase();

  if (status === 401 || status === 403) return new Unauthorized(init);
  if (status === 402 || (status === 429 && isQuotaCode(code))) return new QuotaExceeded(init);
  if (status === 429) return new RateLimited(init);
  if (status === 404) return new NotFound(init);
  if (status === 409) return new ChannelNotConfigured(init);
  if (status === 503 && upper === 'CHANNEL_RECONNECTING') return new ChannelReconnecting(init);
  if (status >= 500) {
    if (init.message === undefined) init.message = `The service failed to answer (HTTP ${status}).`;
    return new ServerError(init);
  }
  // 400, 422 and any other 4xx: the request was not accepted as sent (ASSUMPTION A-BAD-INPUT).
  if (init.message === undefined) init.message = `The request was rejected (HTTP ${status}).`;
  return new InvalidRequest(init);
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export type AbortCause = 'timeout' | 'aborted' | null;

/**
 * A failure without an HTTP answer: caller abort, the client's timeout, or a connection problem.
 * The cause is reduced to plain {name, code} so nothing of the request (headers, key) rides along.
 */
export function mapTransportError(err: unknown, abortCause: AbortCause, secret?: string, rateLimit: RateLimitInfo = {}): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const cause = { name, code };
  if (abortCause === 'timeout') return new Timeout({ rateLimit, cause });
  if (abortCause === 'aborted') return new Aborted({ rateLimit, cause });
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new Timeout({ rateLimit, cause });
  if (name === 'AbortError') return new Aborted({ rateLimit, cause });
  const detail = typeof e?.message === 'string' && e.message ? `: ${clip(redact(e.message, secret))}` : '';
  return new NetworkError({ rateLimit, cause, message: `The service could not be reached${code ? ` (${code})` : ''}${detail}` });
}
