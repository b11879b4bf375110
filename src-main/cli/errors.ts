// Errors the CLI raises itself, and the mapping from any error to an exit code and a message.
import { isServiceError, type ServiceError } from '../core/api/errors';
import type { RawResponse } from '../core/api/types';
import { EXIT } from './exit-codes';
import { cliHint } from '../../src-shared/error-advice';

/** Bad command line (invalid flag value, missing key, …): usage goes to stderr, exit 2, nothing sent. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the command already explains: message to stderr, the given exit code. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly code = 'FAILED',
    /** What the service answered, when it could not be read (shown with the error). */
    readonly raw?: RawResponse,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** Interrupted while waiting (Ctrl-C). */
export class Interrupted extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'Interrupted';
  }
}

function exitCodeForServiceError(err: ServiceError): number {
  switch (err.kind) {
    case 'key-rejected':
      return EXIT.auth;
    case 'invalid-request':
    case 'timeout':
      return EXIT.failure;
    case 'aborted':
      return EXIT.interrupted;
    default:
      return EXIT.service;
  }
}

export interface DescribedError {
  exitCode: number;
  code: string;
  kind: string;
  message: string;
  status?: number;
  /** X-RateLimit-Limit of the answer (the ceiling a 429 refers to). */
  limit?: number;
  retryAfterSec?: number;
  /** What the service answered, when the client could not read it. */
  raw?: RawResponse;
}

export function describeError(err: unknown): DescribedError {
  if (isServiceError(err)) {
    const hint = cliHint({
      kind: err.kind,
      code: err.code,
      message: err.message,
      ...(err.rateLimit.limit !== undefined ? { limit: err.rateLimit.limit } : {}),
      ...(err.rateLimit.retryAfter !== undefined ? { retryAfterSec: err.rateLimit.retryAfter } : {}),
    });
    const d: DescribedError = {
      exitCode: exitCodeForServiceError(err),
      code: err.code,
      kind: err.kind,
      message: hint ? `${err.message} (${hint})` : err.message,
    };
    if (err.status !== undefined) d.status = err.status;
    if (err.rateLimit.limit !== undefined) d.limit = err.rateLimit.limit;
    if (err.rateLimit.retryAfter !== undefined) d.retryAfterSec = err.rateLimit.retryAfter;
    if (err.raw !== undefined) d.raw = err.raw;
    return d;
  }
  if (err instanceof UsageError) return { exitCode: EXIT.usage, code: 'USAGE', kind: 'usage', message: err.message };
  if (err instanceof CliFailure) {
    const d: DescribedError = { exitCode: err.exitCode, code: err.code, kind: 'failure', message: err.message };
    if (err.status !== undefined) d.status = err.status;
    if (err.raw !== undefined) d.raw = err.raw;
    return d;
  }
  if (err instanceof Interrupted)
    return { exitCode: EXIT.interrupted, code: 'INTERRUPTED', kind: 'interrupted', message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.failure, code: 'ERROR', kind: 'error', message };
}

/** A raw answer as lines for a person: what came, then its first bytes or its frames as received. */
export function rawLines(raw: RawResponse): string[] {
  const size = `${raw.bytes} byte${raw.bytes === 1 ? '' : 's'}`;
  const lines = [`the service answered: HTTP ${raw.status}, ${raw.contentType ?? 'no content type'}, ${size}`];
  if (raw.frames !== undefined) {
    lines.push(
      raw.frames.length === 0
        ? '  (no frames)'
        : `  frames as received${raw.framesOmitted ? ` (${raw.framesOmitted} in the middle left out)` : ''}:`,
    );
    for (const f of raw.frames) {
      if (f.comment !== undefined) lines.push(`    : ${f.comment}`);
      else if (f.retry !== undefined) lines.push(`    retry: ${f.retry}`);
      else
        lines.push(
          `    ${f.event !== null ? `event: ${f.event}  ` : ''}${f.id !== null ? `id: ${f.id}  ` : ''}data: ${JSON.stringify(f.data)}`,
        );
    }
  } else if (raw.prefix !== '') {
    lines.push(`  first bytes: ${JSON.stringify(raw.prefix)}`);
  } else {
    lines.push('  (empty body)');
  }
  return lines;
}
