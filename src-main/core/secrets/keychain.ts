// SecretStore over the OS keychain via @napi-rs/keyring: Secret Service on Linux (pinned — the
// library's default would silently fall back to the kernel keyring, which forgets keys at reboot),
// Keychain on macOS, Credential Manager on Windows. No plaintext fallback, ever.
// The library's calls run on a worker thread of their own, one at a time, never on the main thread:
// making an entry connects to the session bus synchronously (and its wait for the bus is a select(),
// which cannot take a descriptor past 1024), so a busy process must not do that where it serves
// requests. Should the worker not start (the module cannot be loaded there), the calls run on the
// main thread as the library's AsyncEntry makes them.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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
  /** The module the worker thread loads instead of @napi-rs/keyring (tests): it exports a sync `Entry`. */
  keyringModule?: string;
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

async function mainThreadFactory(): Promise<KeyringEntryFactory> {
  const { AsyncEntry } = await import('@napi-rs/keyring');
  return (service, account, options) => new AsyncEntry(service, account, options);
}

/** The worker: loads the module, then runs each call it is sent with the library's sync Entry, in order. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let Entry = null;
try {
  Entry = require(workerData.module).Entry;
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ ready: false, message: String((err && err.message) || err) });
}
if (Entry) parentPort.on('message', ({ id, op, service, account, options, password }) => {
  try {
    const entry = new Entry(service, account, options);
    const value =
      op === 'get' ? entry.getPassword() : op === 'set' ? (entry.setPassword(password), null) : entry.deleteCredential();
    parentPort.postMessage({ id, ok: true, value });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort.postMessage({ id, ok: false, message: e.message, code: e.code });
  }
});
`;

type Op = 'get' | 'set' | 'delete';
type Reply =
  { id: number; ok: true; value: string | boolean | null } | { id: number; ok: false; message: string; code?: string };

/** Entries whose calls run on a worker thread (see above); null when the worker cannot load the module. */
async function workerFactory(module: string): Promise<KeyringEntryFactory | null> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module } });
  const ready = await new Promise<boolean>((resolve) => {
    worker.once('message', (m: { ready: boolean }) => resolve(m.ready));
    worker.once('error', () => resolve(false));
  });
  if (!ready) {
    await worker.terminate();
    return null;
  }
  // The worker keeps the process alive only while a call waits on it.
  worker.unref();
  let next = 0;
  const waiting = new Map<number, (r: Reply) => void>();
  const settle = (id: number) => {
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
  };
  worker.on('message', (r: Reply) => {
    const done = waiting.get(r.id);
    settle(r.id);
    done?.(r);
  });
  worker.on('error', (err) => {
    for (const done of waiting.values()) done({ id: -1, ok: false, message: err.message });
    waiting.clear();
    worker.unref();
  });
  const call = <T>(op: Op, msg: object, signal?: AbortSignal | null): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const id = ++next;
      const onAbort = () => {
        settle(id);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (waiting.size === 0) worker.ref();
      waiting.set(id, (r) => {
        signal?.removeEventListener('abort', onAbort);
        if (r.ok) resolve(r.value as T);
        else reject(Object.assign(new Error(r.message), r.code !== undefined ? { code: r.code } : {}));
      });
      worker.postMessage({ id, op, ...msg });
    });
  return (service, account, options) => ({
    getPassword: (signal) => call<string | null>('get', { service, account, options }, signal),
    setPassword: (password, signal) => call<void>('set', { service, account, options, password }, signal),
    deleteCredential: (signal) => call<boolean>('delete', { service, account, options }, signal),
  });
}

async function nativeFactory(module?: string): Promise<KeyringEntryFactory> {
  const resolved = module ?? createRequire(import.meta.url).resolve('@napi-rs/keyring');
  return (await workerFactory(resolved).catch(() => null)) ?? mainThreadFactory();
}

export class KeychainSecretStore implements SecretStore {
  private readonly service: string;
  private readonly platform: NodeJS.Platform;
  private readonly backend: string;
  private readonly timeoutMs: number;
  private readonly confirmAbsence: boolean;
  private readonly keyringModule: string | undefined;
  /** Made at the first call (the worker is started then, not when the store is made). */
  private factory: Promise<KeyringEntryFactory> | null;

  constructor(opts: KeychainSecretStoreOptions = {}) {
    this.service = opts.service ?? KEYCHAIN_SERVICE;
    this.platform = opts.platform ?? process.platform;
    this.backend = backendName(this.platform);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.confirmAbsence = opts.confirmAbsence ?? true;
    this.keyringModule = opts.keyringModule;
    this.factory = opts.entryFactory ? Promise.resolve(opts.entryFactory) : null;
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
      const factory = await (this.factory ??= nativeFactory(this.keyringModule));
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
