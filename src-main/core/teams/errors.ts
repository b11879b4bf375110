// Errors of the team store. Messages are plain and never contain a key or signing secret.
import { CompanionError } from '../errors';

export type TeamStoreErrorCode =
  | 'KEY_REJECTED'
  | 'AGENT_NOT_FOUND'
  | 'DUPLICATE'
  | 'NOT_FOUND'
  | 'INVALID'
  | 'CONFIG_CORRUPT'
  /** A shared config changed under every attempt of a change (other processes kept writing it). */
  | 'CONFIG_BUSY'
  | 'KEYCHAIN';

export class TeamStoreError extends CompanionError {
  readonly code: TeamStoreErrorCode;
  /** For INVALID: the path of the field at fault ("label", "agents.0.agentId"). */
  readonly field: string | undefined;
  constructor(code: TeamStoreErrorCode, message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TeamStoreError';
    this.code = code;
    this.field = options?.field;
  }
}

export function isTeamStoreError(e: unknown): e is TeamStoreError {
  return e instanceof TeamStoreError;
}
