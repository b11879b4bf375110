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
  KeyRejected,
  type ServiceErrorInit,
} from './errors';
import { rawResponse, redact } from './raw';
import { IT, socketWords } from '../socket-words';
import type { RateLimitInfo } from './types';

export interface ErrorBody {
  code?: string;
  message?: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A word that names an error (`CHANNEL_RECONNECTING`, `rate_limit_error`), not a sentence. */
function codeLike(s: string | undefined): string | undefined {
  return s !== undefined && /^[A-Za-z][\w.-]{0,99}$/.test(s.trim()) ? s.trim() : undefined;
}

/**
 * Code and message from an error body, in any of the shapes the client accepts (ASSUMPTION
 * A-ERROR-BODY): `{"error":{"code","message"}}` (or `type` for the code), `{"code","message"}`,
 * `{"error":"CODE"}` (a sentence there is the message), `{"errors":[{"code","message"}]}`, and the
 * problem-details words `detail` / `title`.
 */
export function readErrorBody(body: unknown): ErrorBody {
  const b = rec(body);
  if (!b) return {};
  const nested = rec(b.error);
  const first = Array.isArray(b.errors) ? rec(b.errors[0]) : undefined;
  const errorText = str(b.error);
  const out: ErrorBody = {};
  const code =
    str(nested?.code) ??
    str(b.code) ??
    codeLike(errorText) ??
    str(first?.code) ??
    codeLike(str(nested?.type)) ??
    codeLike(str(nested?.status)) ??
    codeLike(str(first?.type)) ??
    codeLike(str(b.type));
  if (code !== undefined) out.code = code;
  const sentence = errorText !== undefined && codeLike(errorText) === undefined ? errorText : undefined;
  const message =
    str(nested?.message) ??
    str(b.message) ??
    str(first?.message) ??
    sentence ??
    str(b.detail) ??
    str(first?.detail) ??
    str(b.error_description) ??
    str(b.title);
  if (message !== undefined) out.message = message;
  return out;
}

/**
 * Code and message from a body that is not JSON: `CODE`, `CODE: message`, or a line of text (the
 * message). HTML pages and empty bodies give nothing.
 */
function readErrorText(text: string): ErrorBody {
  const t = text.trim();
  if (t === '' || t.startsWith('<')) return {};
  const line = t.split(/\r?\n/, 1)[0]!.trim();
  const m = /^([A-Z][A-Z0-9_]{2,99})(?:\s*[:\-–—]\s*(.*))?$/.exec(line);
  if (m) return m[2] ? { code: m[1]!, message: m[2] } : { code: m[1]! };
  return { message: line };
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

/** `channel-reconnecting`, `Channel_Reconnecting` → `CHANNEL_RECONNECTING`. */
function normalCode(code: string | undefined): string | undefined {
  return code?.toUpperCase().replace(/[-.\s]/g, '_');
}

/**
 * Maps a non-2xx answer to its error class. `bodyText` may be empty, text, HTML, or JSON in any
 * accepted shape. When no code can be read the status keeps its meaning (docs/service-api.md §7):
 * a 503 is CHANNEL_RECONNECTING, a 409 CHANNEL_NOT_CONFIGURED; a body that said nothing readable
 * is kept as `raw` to show.
 */
export function mapErrorResponse(
  status: number,
  bodyText: string,
  rateLimit: RateLimitInfo,
  secret?: string,
  contentType: string | null = null,
): ServiceError {
  const json = tryJson(bodyText);
  const { code, message } = json !== undefined ? readErrorBody(json) : readErrorText(bodyText);
  const init: ServiceErrorInit = { status, rateLimit };
  if (code !== undefined) init.code = clip(redact(code, secret));
  if (message !== undefined) init.message = clip(redact(message, secret));
  if (code === undefined && message === undefined && bodyText.trim() !== '')
    init.raw = rawResponse(status, contentType, bodyText, secret);
  const upper = normalCode(code);

  if (status === 401 || status === 403) return new KeyRejected(init);
  if (status === 402 || (status === 429 && isQuotaCode(code))) return new QuotaExceeded(init);
  if (status === 429) return new RateLimited(init);
  if (status === 404) return new NotFound(init);
  if (status === 409) return new ChannelNotConfigured(init);
  // ASSUMPTION A-ERROR-BODY: a 503 whose code is unreadable means what the document gives it.
  if (status === 503 && (upper === undefined || upper === 'CHANNEL_RECONNECTING')) return new ChannelReconnecting(init);
  if (status >= 500) {
    if (init.message === undefined) init.message = `The service failed to answer (HTTP ${status}).`;
    return new ServerError(init);
  }
  // 400, 422 and any other 4xx: the request was not accepted as sent (ASSUMPTION A-BAD-INPUT).
  if (init.message === undefined) init.message = `The request was rejected (HTTP ${status}).`;
  return new InvalidRequest(init);
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** "The service could not be reached: <what the code means>." — the code itself stays on the cause. */
function unreachableMessage(code: string | undefined): string {
  const said = socketWords(code, IT);
  return said ? `The service could not be reached: ${said.words}.` : 'The service could not be reached.';
}

export type AbortCause = 'timeout' | 'aborted' | null;

/**
 * A failure without an HTTP answer: caller abort, the client's timeout, or a connection problem.
 * The cause is reduced to plain {name, code, detail} (the transport's code and its redacted words,
 * for diagnostics) so nothing of the request (headers, key) rides along; the message is for people
 * and carries neither.
 */
export function mapTransportError(
  err: unknown,
  abortCause: AbortCause,
  secret?: string,
  rateLimit: RateLimitInfo = {},
): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const cause = { name, code };
  if (abortCause === 'timeout') return new Timeout({ rateLimit, cause });
  if (abortCause === 'aborted') return new Aborted({ rateLimit, cause });
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new Timeout({ rateLimit, cause });
  if (name === 'AbortError') return new Aborted({ rateLimit, cause });
  const detail = typeof e?.message === 'string' && e.message ? clip(redact(e.message, secret)) : undefined;
  return new NetworkError({
    rateLimit,
    cause: { ...cause, ...(detail !== undefined ? { detail } : {}) },
    message: unreachableMessage(code),
  });
}
