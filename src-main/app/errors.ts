// The one error mapper. Every failure becomes an ErrorDTO: ServiceError → its own DTO; ZodError →
// validation with the field; the core's team store, keychain, tunnel, replay, lock and exposure errors →
// their contract kind; errors that name themselves by a `kind` → that kind; any other of ours (the
// CompanionError root) → internal, in its own words (they are plain and secret-free); anything else →
// internal, with a generic message (stack traces and secrets never cross to a window). And an ErrorDTO
// becomes the exit code a command ends with (exitCodeOf).
import { ZodError } from 'zod';
import { isTeamStoreError, type TeamStoreErrorCode } from '../core/teams';
import { isServiceError, type ServiceErrorDTO } from '../core/api/errors';
import { inputProblem, type FieldNames } from '../core/input-words';
import { isKeychainError } from '../core/secrets';
import { ReplayError, TunnelError } from '../core/tunnel';
import { ExposeError } from '../core/expose/errors';
import { LockedError } from '../core/lock-file';
import type { ErrorDTO, ErrorKind } from '../../src-shared/contract';
import { SERVICE_ERROR_KINDS } from '../../src-shared/vocabulary';
import { CompanionError } from '../core/errors';
import { EXIT } from './exit-codes';

/** The root of every error the app raises itself; the shells' own errors extend it too. */
export { CompanionError };

/** An error the app raises itself with a contract kind (e.g. 'validation', 'not-found', 'keychain'). */
export class AppError extends CompanionError {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

const APP_KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'validation',
  'keychain',
  'forbidden',
  'not-found',
  'invalid-request',
]);

/**
 * Refused arguments as a validation ErrorDTO: the message in people's words (core/input-words.ts:
 * the field's name as its form shows it, `names` where it differs by request), the field's path
 * for the form to mark.
 */
export function zodToDTO(e: ZodError, names?: FieldNames): ErrorDTO {
  const problem = inputProblem(e, names);
  const dto: ErrorDTO = { kind: 'validation', code: 'INVALID_ARGUMENTS', message: problem.message };
  if (problem.field !== undefined) dto.field = problem.field;
  return dto;
}

const SERVICE_KINDS: ReadonlySet<string> = new Set<string>(SERVICE_ERROR_KINDS);

/** A service error kind as the contract names it; anything unknown is 'internal'. */
export function serviceKind(kind: string): ErrorKind {
  return SERVICE_KINDS.has(kind) ? (kind as ErrorKind) : 'internal';
}

/** The core's plain service error (e.g. from a chat stream) as the contract's ErrorDTO. */
export function serviceErrorDTO(s: ServiceErrorDTO): ErrorDTO {
  const dto: ErrorDTO = { kind: serviceKind(s.kind), code: s.code, message: s.message };
  if (s.status !== undefined) dto.status = s.status;
  if (s.retryAfterSec !== undefined) dto.retryAfterSec = s.retryAfterSec;
  if (s.rateLimit?.limit !== undefined) dto.limit = s.rateLimit.limit;
  if (s.raw !== undefined) dto.raw = structuredClone(s.raw);
  return dto;
}

const ACCOUNTS_KINDS: Record<TeamStoreErrorCode, ErrorKind> = {
  KEY_REJECTED: 'key-rejected',
  AGENT_NOT_FOUND: 'not-found',
  DUPLICATE: 'validation',
  NOT_FOUND: 'not-found',
  INVALID: 'validation',
  CONFIG_CORRUPT: 'internal',
  CONFIG_BUSY: 'internal',
  KEYCHAIN: 'keychain',
};

const upperCode = (code: string): string => code.toUpperCase().replace(/-/g, '_');

/** A core error that carries no contract kind, as the AppError it stands for; anything else unchanged. */
function fromCore(e: unknown): unknown {
  if (isTeamStoreError(e)) {
    const kind = ACCOUNTS_KINDS[e.code];
    return new AppError(kind, e.code, e.message, kind === 'validation' ? e.field : undefined);
  }
  if (isKeychainError(e)) return new AppError('keychain', 'KEYCHAIN', e.message);
  if (e instanceof TunnelError) {
    const kind: ErrorKind =
      e.code === 'not-found'
        ? 'not-found'
        : e.code === 'not-loopback'
          ? 'validation'
          : e.code === 'storage-failed'
            ? 'internal'
            : 'invalid-request';
    return new AppError(kind, `TUNNEL_${upperCode(e.code)}`, e.message);
  }
  if (e instanceof ReplayError)
    return new AppError(
      e.code === 'not-found' ? 'not-found' : 'invalid-request',
      `REPLAY_${upperCode(e.code)}`,
      e.message,
    );
  if (e instanceof LockedError) return new AppError('invalid-request', 'DATA_FOLDER_IN_USE', e.message);
  if (e instanceof ExposeError)
    return new AppError(
      e.code === 'keychain' ? 'keychain' : e.code === 'bad-command' ? 'validation' : 'invalid-request',
      `EXPOSE_${upperCode(e.code)}`,
      e.hint ? `${e.message} ${e.hint}` : e.message,
    );
  return e;
}

/**
 * A service 404 in a request about one agent, said with the agent and its team instead of the
 * service's own words (ASSUMPTION A-NOT-FOUND: a 404 there means the agent is unknown). Anything
 * else is returned unchanged.
 */
export function agentNotFound(error: unknown, agentId: string, teamLabel: string): unknown {
  if (!isServiceError(error) || error.kind !== 'not-found') return error;
  return new AppError('not-found', error.code, `Agent ${agentId} is not in team ${teamLabel} on the service.`);
}

export function toErrorDTO(error: unknown): ErrorDTO {
  const e = fromCore(error);
  if (isServiceError(e)) return serviceErrorDTO(e.toDTO());
  if (e instanceof ZodError) return zodToDTO(e);
  if (e instanceof AppError) {
    const dto: ErrorDTO = { kind: e.kind, code: e.code, message: e.message };
    if (e.field !== undefined) dto.field = e.field;
    return dto;
  }
  // Errors from other core modules that carry a contract kind (duck-typed so the app layer does
  // not depend on every core error class).
  if (e instanceof Error) {
    const named = e as Error & { kind?: unknown; code?: unknown; field?: unknown };
    if (typeof named.kind === 'string' && APP_KINDS.has(named.kind)) {
      const kind = named.kind as ErrorKind;
      const code = typeof named.code === 'string' ? named.code : kind.toUpperCase();
      const dto: ErrorDTO = { kind, code, message: e.message };
      if (typeof named.field === 'string') dto.field = named.field;
      return dto;
    }
  }
  if (e instanceof CompanionError) {
    const code = (e as { code?: unknown }).code;
    return { kind: 'internal', code: typeof code === 'string' ? upperCode(code) : 'INTERNAL', message: e.message };
  }
  return {
    kind: 'internal',
    code: 'INTERNAL',
    message: 'Something went wrong inside the app; see the diagnostics export.',
  };
}

/**
 * The exit code a command ends with for an error: bad input 2, a rejected key 4, the service's own
 * classes 3 (a not-found the companion says itself — no such delivery, team or agent — is 1, the
 * service's 404 is 3), an interruption 130, anything else 1.
 */
export function exitCodeOf(e: Pick<ErrorDTO, 'kind' | 'status' | 'code'>): number {
  switch (e.kind) {
    case 'validation':
      return EXIT.usage;
    case 'key-rejected':
      return EXIT.auth;
    case 'aborted':
      return EXIT.interrupted;
    case 'not-found':
      return e.status !== undefined || e.code === 'AGENT_NOT_FOUND' ? EXIT.service : EXIT.failure;
    case 'reconnecting':
    case 'needs-scan':
    case 'rate-limited':
    case 'quota-exceeded':
    case 'server-error':
    case 'network-error':
      return EXIT.service;
    default:
      return EXIT.failure;
  }
}
