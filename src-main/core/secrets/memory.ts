// In-memory SecretStore for unit tests. It can be switched to 'locked' or 'unavailable' to exercise
// the same failures as the OS keychain.
import { KeychainLocked, KeychainUnavailable, type SecretStore } from './types';

export type MemoryStoreState = 'ok' | 'locked' | 'unavailable';

export class MemorySecretStore implements SecretStore {
  private readonly entries = new Map<string, string>();
  state: MemoryStoreState = 'ok';

  constructor(initial?: Record<string, string>) {
    for (const [k, v] of Object.entries(initial ?? {})) this.entries.set(k, v);
  }

  private check(action: string): void {
    if (this.state === 'locked')
      throw new KeychainLocked(`The OS keychain is locked: ${action}. Unlock it and try again.`);
    if (this.state === 'unavailable')
      throw new KeychainUnavailable(`No OS keychain is reachable (memory store set unavailable): ${action}.`);
  }

  async get(account: string): Promise<string | null> {
    this.check('the key could not be read');
    return this.entries.get(account) ?? null;
  }

  async set(account: string, secret: string): Promise<void> {
    this.check('the key was not stored');
    this.entries.set(account, secret);
  }

  async delete(account: string): Promise<boolean> {
    this.check('the key was not deleted');
    return this.entries.delete(account);
  }

  async probe(): Promise<void> {
    this.check('secrets can be neither stored nor read');
  }

  /** Test helper: a copy of every entry. */
  snapshot(): Record<string, string> {
    return Object.fromEntries(this.entries);
  }
}
