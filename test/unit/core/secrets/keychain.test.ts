// KeychainSecretStore over a fake native entry: store pinning, error mapping, and "locked is never 'no key'".
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { KeychainSecretStore, MemorySecretStore } from '../../../../src-main/core/secrets';
import { type KeyringEntry, type KeyringEntryOptions } from '../../../../src-main/core/secrets/keychain';
import { KeychainError, KeychainLocked, KeychainUnavailable } from '../../../../src-main/core/secrets/types';

/** Observed @napi-rs/keyring texts (Linux, gnome-keyring). */
function nativeError(message: string, inner?: string): Error {
  const cause = inner ? Object.assign(new Error(inner), { code: 'GenericFailure' }) : undefined;
  return Object.assign(new Error(message, cause ? { cause } : undefined), { code: 'GenericFailure' });
}
const LOCKED = () =>
  nativeError(
    "Couldn't access platform storage: Secret Service: unlock prompt was dismissed",
    'Secret Service: unlock prompt was dismissed',
  );
const NO_SERVICE = () =>
  nativeError('Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files');
const NO_BUS = () =>
  nativeError(
    'Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead',
  );
const NO_COLLECTION = () => nativeError("Couldn't access platform storage: Secret Service: no result found");

type Mode = 'ok' | 'locked' | 'no-service' | 'no-bus' | 'no-collection';

function fakeKeyring(mode: () => Mode) {
  const data = new Map<string, string>();
  const calls: Array<{ service: string; account: string; options: KeyringEntryOptions }> = [];
  const factory = (service: string, account: string, options: KeyringEntryOptions): KeyringEntry => {
    calls.push({ service, account, options });
    if (mode() === 'no-bus') throw NO_BUS();
    const key = `${service}/${account}`;
    const fail = (write: boolean) => {
      const m = mode();
      if (m === 'no-service') throw NO_SERVICE();
      // Like the Secret Service: attributes are searchable while locked; only secrets need unlocking.
      if (m === 'locked' && (write || data.has(key))) throw LOCKED();
      if (m === 'no-collection' && write) throw NO_COLLECTION();
    };
    return {
      async setPassword(p) {
        fail(true);
        data.set(key, p);
      },
      async getPassword() {
        fail(false);
        return data.get(key) ?? null;
      },
      async deleteCredential() {
        fail(false);
        return data.delete(key);
      },
    };
  };
  return { data, calls, factory };
}

describe('KeychainSecretStore', () => {
  it('pins the Secret Service store on Linux, service "channel-companion"; passes no options elsewhere', async () => {
    const k = fakeKeyring(() => 'ok');
    await new KeychainSecretStore({ platform: 'linux', entryFactory: k.factory }).set('team:a:api-key', 's3cret');
    expect(k.calls[0]).toEqual({
      service: 'channel-companion',
      account: 'team:a:api-key',
      options: { linux: { store: 'secret-service' } },
    });
    await new KeychainSecretStore({ platform: 'darwin', entryFactory: k.factory }).set('x', 'y');
    await new KeychainSecretStore({ platform: 'win32', entryFactory: k.factory }).set('x', 'y');
    expect(k.calls[1]?.options).toBeUndefined();
    expect(k.calls[2]?.options).toBeUndefined();
  });

  it('set / get / delete round trip; probe leaves nothing behind', async () => {
    const k = fakeKeyring(() => 'ok');
    const s = new KeychainSecretStore({ platform: 'linux', entryFactory: k.factory });
    await s.set('a', 'one');
    expect(await s.get('a')).toBe('one');
    expect(await s.get('b')).toBeNull();
    expect(await s.delete('a')).toBe(true);
    expect(await s.delete('a')).toBe(false);
    await s.probe();
    expect([...k.data.keys()]).toEqual([]);
    expect(k.calls.some((c) => c.account.startsWith('probe:write-check:'))).toBe(true);
  });

  it("write checks at once (two lookups of absent keys) never read each other's probe value", async () => {
    const k = fakeKeyring(() => 'ok');
    const s = new KeychainSecretStore({ platform: 'linux', entryFactory: k.factory });
    await expect(Promise.all([s.probe(), s.get('absent-1'), s.get('absent-2'), s.probe()])).resolves.toEqual([
      undefined,
      null,
      null,
      undefined,
    ]);
    expect([...k.data.keys()]).toEqual([]);
  });

  it('locked: get throws KeychainLocked, also for a key that is absent — never null', async () => {
    let mode: Mode = 'ok';
    const k = fakeKeyring(() => mode);
    const s = new KeychainSecretStore({ platform: 'linux', entryFactory: k.factory });
    await s.set('present', 'the-secret-value');
    mode = 'locked';
    await expect(s.get('present')).rejects.toBeInstanceOf(KeychainLocked);
    await expect(s.get('absent')).rejects.toBeInstanceOf(KeychainLocked);
    const err = await s.set('present', 'the-secret-value').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainLocked);
    expect((err as Error).message).toMatch(/locked.*the key was not stored/);
    expect((err as Error).message).not.toContain('the-secret-value');
    await expect(s.probe()).rejects.toBeInstanceOf(KeychainLocked);
  });

  it('no Secret Service / no session bus → KeychainUnavailable with a plain message', async () => {
    for (const m of ['no-service', 'no-bus'] as const) {
      const s = new KeychainSecretStore({ platform: 'linux', entryFactory: fakeKeyring(() => m).factory });
      const err = await s.set('a', 'sekrit-123').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeychainUnavailable);
      expect((err as Error).message).toMatch(/^No OS keychain is reachable \(Secret Service.*: the key was not stored/);
      expect((err as Error).message).not.toContain('sekrit-123');
      await expect(s.get('a')).rejects.toBeInstanceOf(KeychainUnavailable);
      await expect(s.delete('a')).rejects.toBeInstanceOf(KeychainUnavailable);
      await expect(s.probe()).rejects.toBeInstanceOf(KeychainUnavailable);
    }
  });

  it('no default collection → KeychainUnavailable, and get of an absent key throws instead of null', async () => {
    const s = new KeychainSecretStore({ platform: 'linux', entryFactory: fakeKeyring(() => 'no-collection').factory });
    await expect(s.set('a', 'b')).rejects.toThrow(/no default keyring/);
    await expect(s.get('a')).rejects.toBeInstanceOf(KeychainUnavailable);
  });

  it('unknown native failures become KeychainError with the secret redacted', async () => {
    const s = new KeychainSecretStore({
      platform: 'linux',
      entryFactory: () => ({
        setPassword: async (p: string) => {
          throw new Error(`weird failure around ${p}`);
        },
        getPassword: async () => null,
        deleteCredential: async () => false,
      }),
    });
    const err = await s.set('a', 'topsecret').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainError);
    expect(err).not.toBeInstanceOf(KeychainUnavailable);
    expect((err as Error).message).not.toContain('topsecret');
    expect((err as Error).message).toContain('[redacted]');
  });
});

describe('MemorySecretStore', () => {
  it('behaves like a store and can be switched to locked / unavailable', async () => {
    const m = new MemorySecretStore({ a: '1' });
    expect(await m.get('a')).toBe('1');
    m.state = 'locked';
    await expect(m.get('a')).rejects.toBeInstanceOf(KeychainLocked);
    m.state = 'unavailable';
    await expect(m.set('b', '2')).rejects.toBeInstanceOf(KeychainUnavailable);
    m.state = 'ok';
    expect(await m.delete('a')).toBe(true);
    expect(m.snapshot()).toEqual({});
  });
});

describe('KeychainSecretStore over the native module', () => {
  const module = fileURLToPath(new URL('./fixtures/helper-keyring.cjs', import.meta.url));
  /** The value read, and where it was built and read: `<pid>.<thread id>`. */
  const ranAt = (v: string | null, value: string) => {
    const m = /^(.*)@([\d.]+)\+([\d.]+)$/.exec(v ?? '');
    expect(m?.[1]).toBe(value);
    expect(m?.[2]).toBe(m?.[3]);
    const [pid = NaN, thread = NaN] = (m?.[2] ?? '').split('.').map(Number);
    return { pid, thread };
  };
  const inHelper = (v: string | null, value: string) => {
    const { pid } = ranAt(v, value);
    expect(pid).not.toBe(process.pid);
    return pid;
  };

  it('makes every keychain call in a helper process, never in this one, and maps its errors', async () => {
    const s = new KeychainSecretStore({ platform: 'linux', keyringModule: module });
    await s.set('team:a:api-key', 's3cret');
    const helper = inHelper(await s.get('team:a:api-key'), 's3cret');
    expect(await s.delete('team:a:api-key')).toBe(true);
    expect(await s.delete('team:a:api-key')).toBe(false);
    await expect(s.get('no-bus')).rejects.toBeInstanceOf(KeychainUnavailable);
    // Calls made together are answered each with its own result, all by the one helper.
    await Promise.all(['x', 'y', 'z'].map((a) => s.set(a, `v-${a}`)));
    const got = await Promise.all(['x', 'y', 'z'].map((a) => s.get(a)));
    expect(got.map((v, i) => inHelper(v, `v-${'xyz'[i]}`))).toEqual([helper, helper, helper]);
  });

  it('a helper that dies is replaced by a new one at the next call', async () => {
    const s = new KeychainSecretStore({ platform: 'linux', keyringModule: module });
    await s.set('a', '1');
    const first = inHelper(await s.get('a'), '1');
    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(() => process.kill(first, 0)).toThrow());
    await s.set('b', '2');
    expect(inHelper(await s.get('b'), '2')).not.toBe(first);
  });

  it('under Electron (helper: thread), makes every call on a worker thread of this process', async () => {
    const s = new KeychainSecretStore({ platform: 'linux', keyringModule: module, helper: 'thread' });
    await s.set('team:a:api-key', 's3cret');
    const at = ranAt(await s.get('team:a:api-key'), 's3cret');
    expect(at.pid).toBe(process.pid);
    expect(at.thread).not.toBe(threadId);
    await expect(s.get('no-bus')).rejects.toBeInstanceOf(KeychainUnavailable);
    expect(await s.delete('team:a:api-key')).toBe(true);
  });
});
