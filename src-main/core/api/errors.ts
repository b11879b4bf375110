// Errors by meaning (docs/service-api.md §7, docs/service-assumptions.md A-ERROR-BODY…A-QUOTA).
// Every error carries status, code, message and the response's rate-limit headers — never the key.
import type { ServiceErrorKind } from '../../../src-shared/vocabulary';
import type { RateLimitInfo, RawResponse } from './types';
import { CompanionError } from '../errors';

export type { ServiceErrorKind } from '../../../src-shared/vocabulary';

/** Plain-data form of a service error: what crosses IPC / HTTP to the renderer. */
export interface ServiceErrorDTO {
  kind: ServiceErrorKind;
  status?: number;
  code: string;
  message: string;
  rateLimit: RateLimitInfo;
  /** Seconds to wait before a retry makes sense, when known. */
  retryAfterSec?: number;
  /** What the service answered, when the client could not read it. */
  raw?: RawResponse;
}

export interface ServiceErrorInit {
  status?: number;
  code?: string;
  message?: string;
  rateLimit?: RateLimitInfo;
  /** The answer as received, when its body could not be read (never holds the key). */
  raw?: RawResponse;
  cause?: unknown;
}

export abstract class ServiceError extends CompanionError {
  abstract readonly kind: ServiceErrorKind;
  readonly status: number | undefined;
  readonly code: string;
  readonly rateLimit: RateLimitInfo;
  readonly raw: RawResponse | undefined;

  constructor(defaultCode: string, defaultMessage: string, init: ServiceErrorInit = {}) {
    super(init.message || defaultMessage, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code || defaultCode;
    this.rateLimit = init.rateLimit ?? {};
    this.raw = init.raw;
  }

  /** Whether retrying the same request later can help. */
  get retryable(): boolean {
    return false;
  }

  toDTO(): ServiceErrorDTO {
    const dto: ServiceErrorDTO = {
      kind: this.kind,
      code: this.code,
      message: this.message,
      rateLimit: { ...this.rateLimit },
    };
    if (this.status !== undefined) dto.status = this.status;
    if (this.rateLimit.retryAfter !== undefined) dto.retryAfterSec = this.rateLimit.retryAfter;
    if (this.raw !== undefined) dto.raw = this.raw;
    return dto;
  }
}

/** 503 CHANNEL_RECONNECTING: the number is still linked; retry later. */
export class ChannelReconnecting extends ServiceError {
  readonly kind = 'reconnecting' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('CHANNEL_RECONNECTING', 'The number is reconnecting; it recovers on its own.', { status: 503, ...init });
  }
  override get retryable() {
    return true;
  }
}

/** 409 CHANNEL_NOT_CONFIGURED: a QR scan is needed; retrying never helps. */
export class ChannelNotConfigured extends ServiceError {
  readonly kind = 'needs-scan' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('CHANNEL_NOT_CONFIGURED', 'The number is not linked; a QR scan is needed.', { status: 409, ...init });
  }
}

/** 429: send rate limit exceeded. */
export class RateLimited extends ServiceError {
  readonly kind = 'rate-limited' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('RATE_LIMITED', 'Send rate limit exceeded; slow down.', { status: 429, ...init });
  }
  override get retryable() {
    return true;
  }
  /**
   * Seconds until a retry, from Retry-After or X-RateLimit-Reset (relative to nowSec); undefined when
   * neither gives a wait still ahead (a reset in the past says nothing: the caller backs off instead).
   */
  retryAfterSeconds(nowSec: number): number | undefined {
    if (this.rateLimit.retryAfter !== undefined && this.rateLimit.retryAfter > 0) return this.rateLimit.retryAfter;
    if (this.rateLimit.reset !== undefined && this.rateLimit.reset > nowSec) return this.rateLimit.reset - nowSec;
    return undefined;
  }
}

/** 402 (or 429 with a quota code): monthly quota exhausted; not retried. */
export class QuotaExceeded extends ServiceError {
  readonly kind = 'quota-exceeded' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('QUOTA_EXCEEDED', 'The monthly quota is exhausted.', { status: 402, ...init });
  }
}

/** 401/403: the service refused the API key (its code: UNAUTHORIZED). */
export class KeyRejected extends ServiceError {
  readonly kind = 'key-rejected' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('UNAUTHORIZED', 'The API key was rejected.', { status: 401, ...init });
  }
}

/** 404: unknown agent (or resource). */
export class NotFound extends ServiceError {
  readonly kind = 'not-found' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('AGENT_NOT_FOUND', 'Not found.', { status: 404, ...init });
  }
}

/** 400/422, or input rejected before any request was made (e.g. a bad phone number). */
export class InvalidRequest extends ServiceError {
  readonly kind = 'invalid-request' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('INVALID_REQUEST', 'The request was invalid.', init);
  }
}

/** Other 5xx. */
export class ServerError extends ServiceError {
  readonly kind = 'server-error' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('SERVER_ERROR', 'The service failed to answer.', init);
  }
  override get retryable() {
    return true;
  }
}

/**
 * A 2xx answer the client could not read: an unknown shape, a body that is not JSON, or a chat reply
 * without any reply text. Never a silent empty success: `raw` holds what came, to show a person.
 */
export class UnreadableResponse extends ServiceError {
  readonly kind = 'server-error' as const;
  declare readonly raw: RawResponse;
  constructor(init: ServiceErrorInit & { raw: RawResponse }) {
    super('UNREADABLE_RESPONSE', 'The service answered in a shape the client could not read.', init);
  }
}

/** Connection refused, reset, DNS failure… */
export class NetworkError extends ServiceError {
  readonly kind = 'network-error' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('NETWORK_ERROR', 'The service could not be reached.', init);
  }
  override get retryable() {
    return true;
  }
}

export class Timeout extends ServiceError {
  readonly kind = 'timeout' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('TIMEOUT', 'The service did not answer in time.', init);
  }
  override get retryable() {
    return true;
  }
}

export class Aborted extends ServiceError {
  readonly kind = 'aborted' as const;
  constructor(init: ServiceErrorInit = {}) {
    super('ABORTED', 'The request was cancelled.', init);
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}
