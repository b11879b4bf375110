// The contract's errors: Errors and the result envelope: what every request answers.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { ServiceErrorKind } from '../vocabulary';

// ---------------------------------------------------------------------------------------------
// Errors and the result envelope
// ---------------------------------------------------------------------------------------------

/** A service error's kind, or one of the app's own. */
export type ErrorKind = ServiceErrorKind | 'validation' | 'keychain' | 'forbidden' | 'internal';

export interface ErrorDTO {
  kind: ErrorKind;
  code: string;
  message: string;
  /** HTTP status from the service, when the error came from it. */
  status?: number;
  retryAfterSec?: number;
  /** Dotted path of the argument that failed validation (kind 'validation'). */
  field?: string;
  /** X-RateLimit-Limit of the service's answer: the ceiling a rate-limited request ran into (sends: per minute). */
  limit?: number;
  /** What the service answered, when it could not be read (e.g. code UNREADABLE_REPLY). */
  raw?: RawResponseDTO;
}

/** One frame of a token stream as received, before its data was decoded. */
export interface RawFrameDTO {
  /** ms from the answer's headers to the frame. */
  ms?: number;
  event: string | null;
  id: string | null;
  data: string;
  /** A comment line (a heartbeat); data is '' then. */
  comment?: string;
  retry?: number;
}

/** A service answer the app could not read: status, content type, size, first bytes, the frames. Never a key. */
export interface RawResponseDTO {
  status: number;
  contentType: string | null;
  bytes: number;
  prefix: string;
  frames?: RawFrameDTO[];
  framesOmitted?: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorDTO };

/** Requests that take no arguments take an empty object. */
export type EmptyArgs = Record<string, never>;
