// The keychain backend against a REAL Secret Service (gnome-keyring) in private D-Bus sessions.
// Needs Debian packages: dbus (dbus-run-session, dbus-send) and gnome-keyring. Missing tools fail
// the suite under CI and skip it (with the reason) elsewhere.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRef, signingSecretRef } from '../../src-main/core/teams/refs';
import {
  LOCK_ALL,
  child,
  filesUnder,
  makeHome,
  missingTools,
  runSession,
  startKeyring,
  type ChildResult,
  type Home,
  type SessionRun,
} from './keychain/session';

const missing = process.platform === 'linux' ? missingTools() : [];
const why =
  process.platform !== 'linux'
    ? 'the Secret Service backend is Linux-only'
    : missing.length
      ? `missing ${missing.join(', ')} — install with: apt-get install -y dbus gnome-keyring`
      : '';

if (why && !(process.env.CI && process.platform === 'linux'))
  console.warn(`keychain integration tests skipped: ${why}`);

if (why && process.env.CI && process.platform === 'linux') {
  describe('OS keychain integration prerequisites', () => {
    it('has dbus-run-session, dbus-send and gnome-keyring-daemon on PATH', () => {
      throw new Error(`Keychain integration tests cannot run under CI: ${why}`);
    });
  });
}

const API_KEY = 'sk_integration_5bd7c1e0a9f2c';
const PASSWORD = 'pass';

function only(run: SessionRun, op: string): ChildResult {
  const found = run.results.filter((r) => r.op === op);
  if (found.length !== 1)
    throw new Error(`expected one "${op}" result, got ${found.length}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return found[0] as ChildResult;
}

function expectFailure(r: ChildResult, name: string, message: RegExp): void {
  expect(r, JSON.stringify(r)).toMatchObject({ ok: false });
  expect(r.name === name || r.causeName === name, `${name} expected: ${JSON.stringify(r)}`).toBe(true);
  expect(r.message).toMatch(message);
  expect(r.message).not.toContain(API_KEY);
}

describe.skipIf(Boolean(why))(`OS keychain: Secret Service via gnome-keyring${why ? ` (skipped: ${why})` : ''}`, () => {
  let tmp: string;
  let home: Home;
  let teamId = '';

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'cc-keychain-'));
    home = await makeHome(path.join(tmp, 'home'));
  });

  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('stores in one process, reads back from a second process of the same session, deletes', async () => {
    const run = await runSession(
      home,
      [
        startKeyring({ unlockWith: PASSWORD }),
        child('probe'),
        child('add-team', 'Ops'),
        child('get-api-key', 'Ops'),
        child('set', 'scratch'),
        child('get', 'scratch'),
        child('delete', 'scratch'),
        child('get', 'scratch'),
      ],
      {
        extraEnv: {
          CC_SECRET: API_KEY,
          CC_CONFIG_DIR: path.join(home.env.XDG_CONFIG_HOME as string, 'channel-companion'),
        },
      },
    );
    const ops = run.results;
    expect(
      ops.map((r) => r.op),
      run.stderr,
    ).toEqual(['probe', 'add-team', 'get-api-key', 'set', 'get', 'delete', 'get']);
    expect(
      ops.every((r) => r.ok),
      JSON.stringify(ops),
    ).toBe(true);
    expect(only(run, 'get-api-key').value).toBe(API_KEY);
    expect(ops[4]?.value).toBe(API_KEY);
    expect(ops[5]?.value).toBe(true);
    expect(ops[6]?.value).toBeNull();

    // The key is in no file under the config dir, and not in plaintext in the keyring file either.
    const configFiles = await filesUnder(home.configDir);
    expect(configFiles.map((f) => path.basename(f))).toContain('config.json');
    for (const f of configFiles) expect(await fs.readFile(f, 'utf8'), f).not.toContain(API_KEY);
    const config = await fs.readFile(path.join(home.configDir, 'config.json'), 'utf8');
    teamId = (only(run, 'add-team').value as { id: string }).id;
    expect(config).toContain(apiKeyRef(teamId));
    const keyringFiles = await filesUnder(path.join(home.dataDir, 'keyrings'));
    expect(keyringFiles.length).toBeGreaterThan(0);
    for (const f of keyringFiles) expect((await fs.readFile(f)).includes(API_KEY), f).toBe(false);
  }, 60_000);

  it('the key survives a new session (persisted in the login keyring, not kernel keyutils)', async () => {
    const run = await runSession(home, [startKeyring({ unlockWith: PASSWORD }), child('get-api-key', 'Ops')], {
      extraEnv: { CC_CONFIG_DIR: home.configDir },
    });
    expect(only(run, 'get-api-key'), run.stderr).toEqual({ op: 'get-api-key', ok: true, value: API_KEY });
  }, 60_000);

  it('a process holding over 1,024 descriptors reads and writes the keychain, then exits', async () => {
    // The library waits for the bus with select(), which cannot take a descriptor past 1023: its
    // connection must not share the descriptors of a process that holds a thousand sockets.
    const run = await runSession(
      home,
      [startKeyring({ unlockWith: PASSWORD }), child('set', 'crowded'), child('get', 'crowded'), 'echo "@@EXIT $?"'],
      { extraEnv: { CC_SECRET: API_KEY, CC_OPEN_FDS: '1100' }, timeoutMs: 30_000 },
    );
    expect(run.results, run.stderr).toEqual([
      { op: 'set', ok: true, value: null },
      { op: 'get', ok: true, value: API_KEY },
    ]);
    expect(run.stdout).toContain('@@EXIT 0');
  }, 60_000);

  it('locked keyring (daemon started without unlocking): KeychainLocked, never "no key"', async () => {
    const run = await runSession(
      home,
      [
        startKeyring(),
        child('get-api-key', 'Ops'),
        child('get', 'never-stored'),
        child('set', 'new-entry'),
        child('probe'),
      ],
      {
        extraEnv: { CC_SECRET: API_KEY, CC_CONFIG_DIR: home.configDir },
      },
    );
    expect(
      run.results.map((r) => r.op),
      run.stderr,
    ).toEqual(['get-api-key', 'get', 'set', 'probe']);
    const apiKey = only(run, 'get-api-key');
    expectFailure(apiKey, 'KeychainLocked', /locked/);
    expect(apiKey.code).toBe('KEYCHAIN');
    expectFailure(
      only(run, 'get'),
      'KeychainLocked',
      /^The OS keychain \(Secret Service\) is locked and was not unlocked: the key could not be read/,
    );
    expectFailure(only(run, 'set'), 'KeychainLocked', /locked.*the key was not stored/);
    expectFailure(only(run, 'probe'), 'KeychainLocked', /locked/);
  }, 60_000);

  it('keyring locked through org.freedesktop.Secret.Service.Lock mid-session: KeychainLocked', async () => {
    const run = await runSession(
      home,
      [startKeyring({ unlockWith: PASSWORD }), child('get-api-key', 'Ops'), LOCK_ALL, child('get-api-key', 'Ops')],
      {
        extraEnv: { CC_CONFIG_DIR: home.configDir },
      },
    );
    expect(
      run.results.map((r) => r.ok),
      run.stderr,
    ).toEqual([true, false]);
    expectFailure(run.results[1] as ChildResult, 'KeychainLocked', /locked/);
  }, 60_000);

  it('no Secret Service on the bus: KeychainUnavailable, and nothing is stored anywhere', async () => {
    const other = await makeHome(path.join(tmp, 'no-service'));
    const run = await runSession(
      other,
      [child('set', 'x'), child('get', 'x'), child('add-team', 'Ops'), child('probe')],
      {
        extraEnv: { CC_SECRET: API_KEY, CC_CONFIG_DIR: other.configDir },
      },
    );
    expect(
      run.results.map((r) => r.op),
      run.stderr,
    ).toEqual(['set', 'get', 'add-team', 'probe']);
    expectFailure(
      only(run, 'set'),
      'KeychainUnavailable',
      /^No OS keychain is reachable \(Secret Service.*\): the key was not stored/,
    );
    expectFailure(only(run, 'get'), 'KeychainUnavailable', /^No OS keychain is reachable/);
    const add = only(run, 'add-team');
    expectFailure(add, 'KeychainUnavailable', /^No OS keychain is reachable/);
    expect(add.code).toBe('KEYCHAIN');
    expectFailure(only(run, 'probe'), 'KeychainUnavailable', /^No OS keychain is reachable/);
    // No fallback: no team was written, and the key is in no file.
    const config = JSON.parse(await fs.readFile(path.join(other.configDir, 'config.json'), 'utf8')) as {
      teams: unknown[];
    };
    expect(config.teams).toEqual([]);
    for (const f of await filesUnder(other.root)) expect((await fs.readFile(f)).includes(API_KEY), f).toBe(false);
    // And a later session that does have a keyring does not find it either (no silent store elsewhere).
    const later = await runSession(other, [startKeyring({ unlockWith: PASSWORD }), child('get', 'x')]);
    expect(only(later, 'get')).toEqual({ op: 'get', ok: true, value: null });
  }, 60_000);

  it('no session bus at all: KeychainUnavailable', async () => {
    const run = await runSession(home, [child('get', 'x'), child('set', 'x')], {
      noBus: true,
      extraEnv: { CC_SECRET: API_KEY },
    });
    expectFailure(only(run, 'get'), 'KeychainUnavailable', /^No OS keychain is reachable/);
    expectFailure(only(run, 'set'), 'KeychainUnavailable', /the key was not stored/);
  }, 60_000);

  it('removing the team deletes its keychain entries', async () => {
    expect(teamId).not.toBe('');
    const refs = [apiKeyRef(teamId), signingSecretRef(teamId, 'agent-1')];
    const run = await runSession(
      home,
      [
        startKeyring({ unlockWith: PASSWORD }),
        ...refs.map((r) => child('get', r)),
        child('remove-team', 'Ops'),
        ...refs.map((r) => child('get', r)),
      ],
      { extraEnv: { CC_CONFIG_DIR: home.configDir } },
    );
    expect(
      run.results.map((r) => r.op),
      run.stderr,
    ).toEqual(['get', 'get', 'remove-team', 'get', 'get']);
    expect(run.results[0]?.value).toBe(API_KEY);
    expect(run.results[1]?.value).toEqual(expect.stringContaining(`${API_KEY}-signing`));
    expect(only(run, 'remove-team')).toEqual({ op: 'remove-team', ok: true, value: null });
    expect(run.results.slice(3).map((r) => r.value)).toEqual([null, null]);
    const config = await fs.readFile(path.join(home.configDir, 'config.json'), 'utf8');
    expect(JSON.parse(config).teams).toEqual([]);
  }, 60_000);
});
