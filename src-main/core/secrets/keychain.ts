// SecretStore over the OS keychain via @napi-rs/keyring: Secret Service on Linux (pinned — the
// library's default would silently fall back to the kernel keyring, which forgets keys at reboot),
// Keychain on macOS, Credential Manager on Windows. No plaintext fallback, ever.
// The library's calls run in a helper process of their own, one at a time, never in this process:
// making an entry connects to the session bus synchronously, and its wait for the bus is a select(),
// which cannot take a descriptor past 1023 (past it, the wait never ends, or the stack is
// overwritten). A process serving a thousand agents holds more descriptors than that, and a thread
// shares them; the helper holds a handful. The helper also never keeps this process from exiting:
// a thread stuck in a native call would (the exit waits for it), a process is killed at exit.
// Under Electron, whose packaged binary does not run as plain Node, the helper is a worker thread.
// Should the helper not start (the module cannot be loaded there), the calls run on the main
// thread as the library's AsyncEntry makes them.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { spawn, type ChildProcess } from 'node:child_process';
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
  /** The module the helper process loads instead of @napi-rs/keyring (tests): it exports a sync `Entry`. */
  keyringModule?: string;
  /** Where the library's calls run: a helper process (default), or a worker thread (default under Electron). */
  helper?: 'process' | 'thread';
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

/**
 * The helper (a process, or a worker thread): loads the module, then runs each call it is sent with the library's
 * sync Entry, in order.
 */
const HELPER_SOURCE = `
const wt = require('node:worker_threads');
const send = wt.isMainThread ? (m) => process.send(m) : (m) => wt.parentPort.postMessage(m);
const onCall = (f) => (wt.isMainThread ? process : wt.parentPort).on('message', f);
let Entry = null;
try {
  Entry = require(wt.isMainThread ? process.argv[1] : wt.workerData.module).Entry;
  send({ ready: true });
} catch (err) {
  send({ ready: false, message: String((err && err.message) || err) });
}
if (wt.isMainThread) process.on('disconnect', () => process.exit(0));
if (Entry) onCall(({ id, op, service, account, options, password }) => {
  try {
    const entry = new Entry(service, account, options);
    const value =
      op === 'get' ? entry.getPassword() : op === 'set' ? (entry.setPassword(password), null) : entry.deleteCredential();
    send({ id, ok: true, value });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    send({ id, ok: false, message: e.message, code: e.code });
  }
});
`;

type Op = 'get' | 'set' | 'delete';
type Reply =
  { id: number; ok: true; value: string | boolean | null } | { id: number; ok: false; message: string; code?: string };

/** A started helper, as the calls see it. */
interface Link {
  send(msg: object, failed: (err: Error) => void): void;
  /** Whether the helper keeps this process alive (only while a call waits on it). */
  hold(on: boolean): void;
}

/** Calls sent to a helper, each answered by its id; the link is asked for at each call (a lost helper is replaced). */
function callsOver(link: () => Promise<Link>) {
  let next = 0;
  const waiting = new Map<number, { done: (r: Reply) => void; link: Link }>();
  const settle = (id: number) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (w && ![...waiting.values()].some((o) => o.link === w.link)) w.link.hold(false);
  };
  const call = async <T>(op: Op, msg: object, signal?: AbortSignal | null): Promise<T> => {
    const l = await link();
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const id = ++next;
      const onAbort = () => {
        settle(id);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      l.hold(true);
      waiting.set(id, {
        link: l,
        done: (r) => {
          signal?.removeEventListener('abort', onAbort);
          if (r.ok) resolve(r.value as T);
          else reject(Object.assign(new Error(r.message), r.code !== undefined ? { code: r.code } : {}));
        },
      });
      l.send({ id, op, ...msg }, (err) => {
        signal?.removeEventListener('abort', onAbort);
        settle(id);
        reject(err);
      });
    });
  };
  return {
    answer(r: Reply): void {
      const w = waiting.get(r.id);
      settle(r.id);
      w?.done(r);
    },
    /** The helper behind `l` is gone: the calls waiting on it fail. */
    lost(l: Link, message: string): void {
      for (const [id, w] of [...waiting]) {
        if (w.link !== l) continue;
        settle(id);
        w.done({ id, ok: false, message });
      }
    },
    factory: (): KeyringEntryFactory => (service, account, options) => ({
      getPassword: (signal) => call<string | null>('get', { service, account, options }, signal),
      setPassword: (password, signal) => call<void>('set', { service, account, options, password }, signal),
      deleteCredential: (signal) => call<boolean>('delete', { service, account, options }, signal),
    }),
  };
}

/** The helper processes alive; killed when this process exits (one blocked in a call would not see its channel close). */
const running = new Set<ChildProcess>();
let killAtExit = false;

/** A helper process that has loaded the module, or null when it could not. */
async function startHelper(module: string): Promise<ChildProcess | null> {
  const helper = spawn(process.execPath, ['-e', HELPER_SOURCE, module], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const ready = await new Promise<boolean>((resolve) => {
    helper.once('message', (m: { ready?: boolean }) => resolve(m.ready === true));
    helper.once('error', () => resolve(false));
    helper.once('exit', () => resolve(false));
  });
  if (!ready) {
    helper.kill();
    return null;
  }
  running.add(helper);
  helper.once('exit', () => running.delete(helper));
  if (!killAtExit) {
    killAtExit = true;
    process.once('exit', () => {
      for (const h of running) h.kill();
    });
  }
  return helper;
}

/** Entries whose calls run in a helper process (see above); null when the helper cannot load the module. */
async function processFactory(module: string): Promise<KeyringEntryFactory | null> {
  const first = await startHelper(module);
  if (!first) return null;
  let current: Promise<Link> | null = null;
  const linkTo = (h: ChildProcess): Link => {
    const l: Link = {
      send: (msg, failed) => h.send(msg, (err) => err && failed(err)),
      hold: (on) => {
        if (on) h.ref();
        else h.unref();
        if (on) h.channel?.ref();
        else h.channel?.unref();
      },
    };
    // A failed send is answered through its callback; a failed kill needs no answer.
    h.on('error', () => undefined);
    h.on('message', (r: Reply) => calls.answer(r));
    h.once('exit', (code, signal) => {
      current = null;
      calls.lost(l, `the keychain helper process stopped (${signal ?? `exit code ${code}`})`);
    });
    l.hold(false);
    return l;
  };
  const calls = callsOver(
    () =>
      (current ??= startHelper(module).then((h) => {
        if (h) return linkTo(h);
        current = null;
        throw new Error('the keychain helper process could not be started again');
      })),
  );
  current = Promise.resolve(linkTo(first));
  return calls.factory();
}

/** Entries whose calls run on a worker thread; null when the worker cannot load the module. */
async function threadFactory(module: string): Promise<KeyringEntryFactory | null> {
  const worker = new Worker(HELPER_SOURCE, { eval: true, workerData: { module } });
  const ready = await new Promise<boolean>((resolve) => {
    worker.once('message', (m: { ready: boolean }) => resolve(m.ready));
    worker.once('error', () => resolve(false));
  });
  if (!ready) {
    await worker.terminate();
    return null;
  }
  const link: Link = {
    send: (msg) => worker.postMessage(msg),
    hold: (on) => (on ? worker.ref() : worker.unref()),
  };
  const calls = callsOver(() => Promise.resolve(link));
  worker.on('message', (r: Reply) => calls.answer(r));
  worker.on('error', (err) => calls.lost(link, err.message));
  link.hold(false);
  return calls.factory();
}

async function nativeFactory(module: string | undefined, where: 'process' | 'thread'): Promise<KeyringEntryFactory> {
  const resolved = module ?? createRequire(import.meta.url).resolve('@napi-rs/keyring');
  const helper = where === 'process' ? processFactory : threadFactory;
  return (await helper(resolved).catch(() => null)) ?? mainThreadFactory();
}

export class KeychainSecretStore implements SecretStore {
  private readonly service: string;
  private readonly platform: NodeJS.Platform;
  private readonly backend: string;
  private readonly timeoutMs: number;
  private readonly confirmAbsence: boolean;
  private readonly keyringModule: string | undefined;
  private readonly helper: 'process' | 'thread';
  /** Made at the first call (the helper is started then, not when the store is made). */
  private factory: Promise<KeyringEntryFactory> | null;

  constructor(opts: KeychainSecretStoreOptions = {}) {
    this.service = opts.service ?? KEYCHAIN_SERVICE;
    this.platform = opts.platform ?? process.platform;
    this.backend = backendName(this.platform);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.confirmAbsence = opts.confirmAbsence ?? true;
    this.keyringModule = opts.keyringModule;
    // Electron's packaged binary does not run as plain Node (its RunAsNode fuse is off).
    this.helper = opts.helper ?? (process.versions.electron === undefined ? 'process' : 'thread');
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
      const factory = await (this.factory ??= nativeFactory(this.keyringModule, this.helper));
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
