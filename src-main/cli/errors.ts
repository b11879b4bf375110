// Errors the CLI raises itself, and the mapping from any error to an exit code and a message.
import { isServiceError, type ServiceError } from '../core/api/errors';
import { EXIT } from './exit-codes';

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
    case 'unauthorized':
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

/** A hint after the service's own message, in the words a person acts on. */
function hintForServiceError(err: ServiceError): string | null {
  switch (err.kind) {
    case 'not-configured':
      return 'the number needs a QR scan: run `channel-companion pair`';
    case 'reconnecting':
      return 'the number is reconnecting; it recovers on its own, try again shortly';
    case 'rate-limited': {
      const { limit, retryAfter } = err.rateLimit;
      const wait = retryAfter !== undefined ? `wait ${retryAfter} s` : 'slow down';
      return limit !== undefined ? `the rate limit is ${limit} sends per minute; ${wait}` : `send rate limit reached; ${wait}`;
    }
    case 'quota-exceeded':
      return 'the monthly quota is exhausted';
    case 'unauthorized':
      return 'the API key was rejected; check the key in the environment variable';
    case 'not-found':
      return 'unknown agent (or resource); check --agent';
    default:
      return null;
  }
}

export interface DescribedError {
  exitCode: number;
  code: string;
  kind: string;
  message: string;
  status?: number;
}

export function describeError(err: unknown): DescribedError {
  if (isServiceError(err)) {
    const hint = hintForServiceError(err);
    const d: DescribedError = {
      exitCode: exitCodeForServiceError(err),
      code: err.code,
      kind: err.kind,
      message: hint ? `${err.message} (${hint})` : err.message,
    };
    if (err.status !== undefined) d.status = err.status;
    return d;
  }
  if (err instanceof UsageError) return { exitCode: EXIT.usage, code: 'USAGE', kind: 'usage', message: err.message };
  if (err instanceof CliFailure) return { exitCode: err.exitCode, code: err.code, kind: 'failure', message: err.message };
  if (err instanceof Interrupted) return { exitCode: EXIT.interrupted, code: 'INTERRUPTED', kind: 'interrupted', message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.failure, code: 'ERROR', kind: 'error', message };
}
