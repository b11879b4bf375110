// SecretStore over the OS keychain via @napi-rs/keyring: Secret Service on Linux (pinned — the
// library's default would silently fall back to the kernel keyring, which forgets keys at reboot),
// Keychain on macOS, Credential Manager on Windows. No plaintext fallback, ever.
import { randomUUID } from 'node:crypto';
import { classifyKeyringError } from './classify';
import { KeychainError, type SecretStore } from './types';

const KEYCHAIN_SERVICE = 'channel-companion';
/** Accounts used by the write check (one per check, so checks at once never read each other's value); each holds a
 * random non-secret value for a moment. */
const PROBE_ACCOUNT = 'probe:write-check';

/** The subset of @napi-rs/keyring's AsyncEntry this store uses. */
export interface KeyringEntry {
  setPassword(password: string, signal?: AbortSignal | null): Promise<void>;
  getPassword(signal?: AbortSignal | null): Promise<string | null>;
  deleteCredential(signal?: AbortSignal | null): Promise<boolean>;
}

export type KeyringEntryOptions = { linux?: { store?: 'secret-service' | 'keyutils' } } | undefined;
export type KeyringEntryFactory = (service: string, account: string, options: KeyringEntryOptions) => KeyringEntry;

export interface KeychainSecretStoreOptions {
  /** Keychain service name; default `channel-companion`. */
  service?: string;
  platform?: NodeJS.Platform;
  /** Replaces the native binding (tests). */
  entryFactory?: KeyringEntryFactory;
  /** Bound on one keychain call, including an unlock prompt the user must answer. Default 120 s. */
  timeoutMs?: number;
  /**
   * When get() finds nothing, check with a write probe that the store is really usable, so a
   * locked keyring is reported as locked rather than as "no key". Default true.
   */
  confirmAbsence?: boolean;
}

function backendName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

async function nativeFactory(): Promise<KeyringEntryFactory> {
  const { AsyncEntry } = await import('@napi-rs/keyring');
  return (service, account, options) => new AsyncEntry(service, account, options);
}

export class KeychainSecretStore implements SecretStore {
  private readonly service: string;
  private readonly platform: NodeJS.Platform;
  private readonly backend: string;
  private readonly timeoutMs: number;
  private readonly confirmAbsence: boolean;
  private factory: Promise<KeyringEntryFactory>;

  constructor(opts: KeychainSecretStoreOptions = {}) {
    this.service = opts.service ?? KEYCHAIN_SERVICE;
    this.platform = opts.platform ?? process.platform;
    this.backend = backendName(this.platform);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.confirmAbsence = opts.confirmAbsence ?? true;
    this.factory = opts.entryFactory ? Promise.resolve(opts.entryFactory) : nativeFactory();
    // A failed import is reported by the first call, not as an unhandled rejection.
    this.factory.catch(() => undefined);
  }

  /** Linux only: pin the Secret Service store. Other platforms get no options (their one store). */
  private entryOptions(): KeyringEntryOptions {
    return this.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined;
  }

  private async run<T>(
    account: string,
    action: string,
    secret: string | undefined,
    op: (e: KeyringEntry, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      const factory = await this.factory;
      // The constructor itself throws when no session bus can be reached.
      const entry = factory(this.service, account, this.entryOptions());
      return await op(entry, AbortSignal.timeout(this.timeoutMs));
    } catch (err) {
      throw classifyKeyringError(err, { action, backend: this.backend, secret });
    }
  }

  async get(account: string): Promise<string | null> {
    const action = 'the key could not be read';
    const value = await this.run(account, action, undefined, (e, s) => e.getPassword(s));
    if (value === null && this.confirmAbsence) await this.writeCheck(action);
    return value;
  }

  async set(account: string, secret: string): Promise<void> {
    await this.run(account, 'the key was not stored', secret, (e, s) => e.setPassword(secret, s));
  }

  async delete(account: string): Promise<boolean> {
    return this.run(account, 'the key was not deleted', undefined, (e, s) => e.deleteCredential(s));
  }

  async probe(): Promise<void> {
    await this.writeCheck('keys can be neither stored nor read');
  }

  /** Writes, reads back and deletes a random non-secret value. */
  private async writeCheck(action: string): Promise<void> {
    const token = `probe-${randomUUID()}`;
    await this.run(`${PROBE_ACCOUNT}:${token}`, action, undefined, async (e, s) => {
      await e.setPassword(token, s);
      const back = await e.getPassword(s);
      await e.deleteCredential(s);
      if (back !== token)
        throw new KeychainError(`The OS keychain (${this.backend}) did not return what was stored: ${action}.`);
    });
  }
}
