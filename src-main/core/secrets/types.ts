// The secret store port: where API keys and webhook signing secrets live (the OS keychain in the
// app, memory in unit tests). Nothing else in the core ever holds a secret at rest.
import { CompanionError } from '../errors';

export interface SecretStore {
  /** The secret stored under `account`, or null when there is none. Throws KeychainError when the store cannot answer (locked, unreachable) — never null for that. */
  get(account: string): Promise<string | null>;
  /** Stores (or replaces) the secret. Throws KeychainError; never falls back to anything weaker. */
  set(account: string, secret: string): Promise<void>;
  /** True when a secret was deleted, false when there was none. Throws KeychainError when it could not be deleted. */
  delete(account: string): Promise<boolean>;
  /** Resolves when the store can both store and read secrets; throws KeychainUnavailable / KeychainLocked otherwise. */
  probe(): Promise<void>;
}

export type KeychainErrorKind = 'unavailable' | 'locked' | 'failed';

/** A keychain failure. Its message is plain and never contains a secret. */
export class KeychainError extends CompanionError {
  readonly kind: KeychainErrorKind = 'failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No OS keychain can be reached (no Secret Service on the session bus, no session bus, no default collection). */
export class KeychainUnavailable extends KeychainError {
  override readonly kind = 'unavailable' as const;
}

/** The keychain is there but locked, and it was not unlocked (prompt dismissed or impossible). */
export class KeychainLocked extends KeychainError {
  override readonly kind = 'locked' as const;
}

export function isKeychainError(e: unknown): e is KeychainError {
  return e instanceof KeychainError;
}
