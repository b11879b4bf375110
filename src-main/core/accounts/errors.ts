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
  constructor(code: AccountsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AccountsError';
    this.code = code;
  }
}

export function isAccountsError(e: unknown): e is AccountsError {
  return e instanceof AccountsError;
}
