// Errors of the accounts store. Messages are plain and never contain a key or signing secret.

export type AccountsErrorCode =
  | 'KEY_REJECTED'
  | 'AGENT_NOT_FOUND'
  | 'DUPLICATE'
  | 'NOT_FOUND'
  | 'INVALID'
  | 'CONFIG_CORRUPT'
  | 'KEYCHAIN';

export class AccountsError extends Error {
  readonly code: AccountsErrorCode;
  /** For INVALID: the path of the field at fault ("label", "agents.0.agentId"). */
  readonly field: string | undefined;
  constructor(code: AccountsErrorCode, message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AccountsError';
    this.code = code;
    this.field = options?.field;
  }
}

export function isAccountsError(e: unknown): e is AccountsError {
  return e instanceof AccountsError;
}
