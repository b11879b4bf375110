// `team add|list|remove` and `--team` on service commands, in-process with a MemorySecretStore and
// a fake service client: the key goes only to the keychain, never to stdout/stderr or the config.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore, type SecretStore } from '../../../src-main/core/secrets';
import { runCli } from '../../helpers/cli';
import { CONNECTED, fakeClientFactory, saveTeam } from './fake-client';

const KEY = 'team-key-0123456789abcdef';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-team-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function addArgs(extra: string[] = []) {
  return [
    'team',
    'add',
    '--label',
    'Demo',
    '--base-url',
    'http://127.0.0.1:9',
    '--agent',
    'a1',
    '--agent',
    'a2',
    ...extra,
  ];
}

describe('team add: bad input', () => {
  const bad: Array<[string, string[], Record<string, string>]> = [
    ['no key in the environment', addArgs(), {}],
    ['no --agent', ['team', 'add', '--label', 'Demo', '--base-url', 'http://127.0.0.1:9'], { CHANNEL_API_KEY: KEY }],
    [
      'bad base URL',
      ['team', 'add', '--label', 'Demo', '--base-url', 'ftp://x', '--agent', 'a1'],
      { CHANNEL_API_KEY: KEY },
    ],
    ['missing --label', ['team', 'add', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], { CHANNEL_API_KEY: KEY }],
    [
      'bad agent id',
      ['team', 'add', '--label', 'D', '--base-url', 'http://127.0.0.1:9', '--agent', 'a/b'],
      { CHANNEL_API_KEY: KEY },
    ],
    ['the key as a flag', [...addArgs(), `--api-key=${KEY}`], {}],
    ['bad env var name', addArgs(['--api-key-env', 'NOT A NAME']), { CHANNEL_API_KEY: KEY }],
  ];
  for (const [name, args, env] of bad) {
    it(`usage error: ${name} → exit 2, nothing sent or stored`, async () => {
      const store = new MemorySecretStore();
      const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
      const r = await runCli(args, { env, createClient: factory, secretStore: store, configDir: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain(KEY);
      expect(log.created).toEqual([]);
      expect(store.snapshot()).toEqual({});
    });
  }
});

function withTeam(store: MemorySecretStore, label = 'Demo', agents = ['a1', 'a2']): Promise<string> {
  return saveTeam(dir, store, { label, agents, apiKey: KEY });
}

describe('team list / remove', () => {
  it('list: one JSON object per team, key hint only; human lines with agents', async () => {
    const store = new MemorySecretStore();
    const id = await withTeam(store);
    await withTeam(store, 'Other', ['b1']);
    const j = await runCli(['team', 'list', '--json'], { secretStore: store, configDir: dir });
    expect(j.code).toBe(0);
    // The contract's TeamDTO, as Settings reads it.
    expect(j.json()).toEqual([
      {
        teamId: id,
        label: 'Demo',
        baseUrl: 'http://127.0.0.1:9',
        keyHint: '…cdef',
        keyRejected: false,
        agentIds: ['a1', 'a2'],
        allowInsecureHttp: false,
      },
      expect.objectContaining({ label: 'Other', agentIds: ['b1'] }),
    ]);
    const h = await runCli(['team', 'list'], { secretStore: store, configDir: dir });
    expect(h.stdout).toContain(`Demo (${id})  http://127.0.0.1:9  key …cdef\n  - a1\n  - a2`);
    expect(h.stdout + j.stdout).not.toContain(KEY);
  });

  it('list with no teams: nothing on stdout, a note; --config-dir and CHANNEL_COMPANION_HOME pick the folder', async () => {
    const r = await runCli(['team', 'list', '--config-dir', join(dir, 'x')], { secretStore: new MemorySecretStore() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no saved teams/);
    const store = new MemorySecretStore();
    await withTeam(store);
    const viaEnv = await runCli(['team', 'list', '--json'], {
      secretStore: store,
      env: { CHANNEL_COMPANION_HOME: dir },
    });
    expect(viaEnv.json()).toHaveLength(1);
  });

  it('remove deletes the keychain entries and the config entry; by label or id', async () => {
    const store = new MemorySecretStore();
    await withTeam(store);
    const r = await runCli(['team', 'remove', 'demo', '--json'], { secretStore: store, configDir: dir });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ label: 'Demo' });
    expect(store.snapshot()).toEqual({});
    const l = await runCli(['team', 'list', '--json'], { secretStore: store, configDir: dir });
    expect(l.stdout).toBe('');
  });

  it('remove of an unknown team → exit 2 naming --team; missing argument → exit 2', async () => {
    const store = new MemorySecretStore();
    await withTeam(store);
    const r = await runCli(['team', 'remove', 'nope'], { secretStore: store, configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no saved team "nope"');
    expect(Object.keys(store.snapshot())).toHaveLength(1);
    const m = await runCli(['team', 'remove'], { secretStore: store, configDir: dir });
    expect(m.code).toBe(2);
  });
});

describe('--team on service commands', () => {
  it('a send to a team of several agents with no --agent, or an unknown team or agent → exit 2, nothing sent', async () => {
    const store = new MemorySecretStore();
    await withTeam(store, 'Duo', ['a1', 'a2']);
    const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
    const opts = { env: {}, createClient: factory, secretStore: store, configDir: dir };
    for (const args of [
      ['status', '--team', 'Duo', '--agent', 'zz'],
      ['status', '--team', 'Nope', '--agent', 'a1'],
      ['send', '--team', 'Duo', '--to', '+15550102000', '--text', 'hi'],
    ]) {
      const r = await runCli(args, opts);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
    // The companion a command started may poll the team's agents; nothing is sent, no session read for them.
    expect(log.calls.filter((c) => c.method !== 'getSession' || !['a1', 'a2'].includes(c.args[0] as string))).toEqual(
      [],
    );
    expect(log.calls.filter((c) => c.method === 'send')).toEqual([]);
  });

  it('commands without --team never touch the secret store', async () => {
    const touched: string[] = [];
    const spy: SecretStore = {
      get: async (a) => (touched.push(`get ${a}`), null),
      set: async (a) => void touched.push(`set ${a}`),
      delete: async (a) => (touched.push(`delete ${a}`), false),
      probe: async () => void touched.push('probe'),
    };
    const { factory } = fakeClientFactory({ getSession: async () => CONNECTED });
    const r = await runCli(['status', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
      secretStore: spy,
      configDir: dir,
    });
    expect(r.code).toBe(0);
    expect(touched).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a locked keychain on --team → exit 1 with the keychain message, nothing sent', async () => {
    const store = new MemorySecretStore();
    await withTeam(store);
    store.state = 'locked';
    const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
    const r = await runCli(['status', '--team', 'Demo', '--agent', 'a1'], {
      createClient: factory,
      secretStore: store,
      configDir: dir,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/keychain is locked/);
    expect(log.calls).toEqual([]);
  });

  it('webhook set without --team stores no signing secret', async () => {
    const store = new MemorySecretStore();
    await withTeam(store);
    const secret = 'whsec_0123456789abcdefXYZ';
    const { factory } = fakeClientFactory({ setWebhook: async (_a, url) => ({ mode: 'passthrough', url, secret }) });
    // Without --team nothing is stored.
    const before = store.snapshot();
    const plain = await runCli(
      [
        'webhook',
        'set',
        '--base-url',
        'http://127.0.0.1:9',
        '--agent',
        'a2',
        '--url',
        'https://example.test/h2',
        '--yes',
      ],
      {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
        secretStore: store,
        configDir: dir,
      },
    );
    expect(plain.code).toBe(0);
    expect(store.snapshot()).toEqual(before);
  });

  it('webhook set: a reply without a signing secret fails with one clear error, storing nothing', async () => {
    const store = new MemorySecretStore();
    await withTeam(store);
    const before = store.snapshot();
    const { factory } = fakeClientFactory({
      setWebhook: async (_a, url) => ({ mode: 'passthrough', url, secret: '' }),
    });
    const plain = await runCli(
      [
        'webhook',
        'set',
        '--base-url',
        'http://127.0.0.1:9',
        '--agent',
        'a2',
        '--url',
        'https://example.test/h2',
        '--secret-file',
        join(dir, 's.txt'),
        '--yes',
      ],
      {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
        secretStore: store,
        configDir: dir,
      },
    );
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/no usable signing secret/);
    expect(store.snapshot()).toEqual(before);
    expect(existsSync(join(dir, 's.txt'))).toBe(false);
  });
});
