// Errors the CLI raises itself, and any error as an exit code and a message: the CLI's own here, every
// other one through the app's one mapper (app/errors.ts).
import type { RawResponse } from '../app/service';
import { CompanionError, exitCodeOf, toErrorDTO } from '../app/errors';
import { EXIT } from './exit-codes';
import { cliHint } from '../../src-shared/error-advice';
import { ContractError } from '../app/client';

/** Bad command line (invalid flag value, missing key, …): usage goes to stderr, exit 2, nothing sent. */
export class UsageError extends CompanionError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the command already explains: message to stderr, the given exit code. */
export class CliFailure extends CompanionError {
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
export class Interrupted extends CompanionError {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'Interrupted';
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
  if (err instanceof UsageError) return { exitCode: EXIT.usage, code: 'USAGE', kind: 'usage', message: err.message };
  if (err instanceof CliFailure) {
    const d: DescribedError = { exitCode: err.exitCode, code: err.code, kind: 'failure', message: err.message };
    if (err.status !== undefined) d.status = err.status;
    if (err.raw !== undefined) d.raw = err.raw;
    return d;
  }
  if (err instanceof Interrupted)
    return { exitCode: EXIT.interrupted, code: 'INTERRUPTED', kind: 'interrupted', message: err.message };
  // Everything else through the app's one mapper: a companion's answer as it came, any other error as
  // the app maps it. A foreign error (not ours) keeps its own words here: they go to this user's terminal.
  const e = err instanceof ContractError ? err.dto : toErrorDTO(err);
  if (e.kind === 'internal' && e.code === 'INTERNAL' && !(err instanceof CompanionError))
    return {
      exitCode: EXIT.failure,
      code: 'ERROR',
      kind: 'error',
      message: err instanceof Error ? err.message : String(err),
    };
  // The hints are about the service's answers: a not-found the companion says itself (no such delivery) has none.
  const hint = e.kind === 'not-found' && e.status === undefined ? null : cliHint(e);
  const d: DescribedError = {
    exitCode: exitCodeOf(e),
    code: e.code,
    kind: e.kind,
    message: hint ? `${e.message} (${hint})` : e.message,
  };
  if (e.status !== undefined) d.status = e.status;
  if (e.limit !== undefined) d.limit = e.limit;
  if (e.retryAfterSec !== undefined) d.retryAfterSec = e.retryAfterSec;
  if (e.raw !== undefined) d.raw = e.raw;
  return d;
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
