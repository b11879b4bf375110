// `agent add|list|remove` on a saved team, in-process with a MemorySecretStore and a fake client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFound } from '../../../src-main/core/api/errors';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { runCli } from '../../helpers/cli';
import { fakeClientFactory } from './fake-client';

const KEY = 'team-key-0123456789abcdef';
const connected = {
  state: 'connected',
  connected: true,
  linked: true,
  needsScan: false,
  phone: '15550100001',
  qr: null,
};
let dir: string;
let store: MemorySecretStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-agent-'));
  store = new MemorySecretStore();
  const { factory } = fakeClientFactory({ getSession: async () => connected });
  const r = await runCli(['team', 'add', '--label', 'Demo', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], {
    env: { CHANNEL_API_KEY: KEY },
    createClient: factory,
    secretStore: store,
    configDir: dir,
  });
  expect(r.code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agent add / list / remove', () => {
  it('add checks the agent with the team key from the keychain; list shows it; remove drops it', async () => {
    const { factory, log } = fakeClientFactory({ getSession: async () => connected });
    const opts = { env: {}, createClient: factory, secretStore: store, configDir: dir };
    const add = await runCli(
      ['agent', 'add', '--team', 'Demo', '--agent', 'a2', '--label', 'Sales bot', '--json'],
      opts,
    );
    expect(add.code).toBe(0);
    expect(add.json()[0]).toMatchObject({ team: 'Demo', agentId: 'a2', label: 'Sales bot' });
    expect(log.created[0]).toMatchObject({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9' });
    expect(log.calls.map((c) => c.args[0])).toEqual(['a2']);

    const list = await runCli(['agent', 'list', '--json'], opts);
    expect(list.json().map((a) => [a.team, a.agentId, a.label])).toEqual([
      ['Demo', 'a1', 'a1'],
      ['Demo', 'a2', 'Sales bot'],
    ]);
    const human = await runCli(['agent', 'list', '--team', 'Demo'], opts);
    expect(human.stdout).toBe('Demo/a1\nDemo/a2 (Sales bot)\n');

    const rm1 = await runCli(['agent', 'remove', '--team', 'Demo', '--agent', 'a2'], opts);
    expect(rm1.code).toBe(0);
    expect(rm1.stdout).toContain('removed agent a2 from team Demo');
    const after = await runCli(['agent', 'list', '--json'], opts);
    expect(after.json().map((a) => a.agentId)).toEqual(['a1']);
    expect([add, list, human, rm1].map((r) => r.stdout + r.stderr).join('')).not.toContain(KEY);
  });

  it('an agent unknown to the service → exit 3, not added', async () => {
    const { factory } = fakeClientFactory({
      getSession: async () => {
        throw new NotFound();
      },
    });
    const r = await runCli(['agent', 'add', '--team', 'Demo', '--agent', 'ghost'], {
      createClient: factory,
      secretStore: store,
      configDir: dir,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/not found/);
    const list = await runCli(['agent', 'list', '--json'], { secretStore: store, configDir: dir });
    expect(list.json().map((a) => a.agentId)).toEqual(['a1']);
  });

  it('a duplicate agent → exit 1; removing an agent the team lacks → exit 1', async () => {
    const { factory } = fakeClientFactory({ getSession: async () => connected });
    const dup = await runCli(['agent', 'add', '--team', 'Demo', '--agent', 'a1'], {
      createClient: factory,
      secretStore: store,
      configDir: dir,
    });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already/);
    const gone = await runCli(['agent', 'remove', '--team', 'Demo', '--agent', 'zz'], {
      secretStore: store,
      configDir: dir,
    });
    expect(gone.code).toBe(1);
  });

  const bad: Array<[string, string[]]> = [
    ['add without --team', ['agent', 'add', '--agent', 'a3']],
    ['add without --agent', ['agent', 'add', '--team', 'Demo']],
    ['add with a bad agent id', ['agent', 'add', '--team', 'Demo', '--agent', 'a b']],
    ['add to an unknown team', ['agent', 'add', '--team', 'Nope', '--agent', 'a3']],
    ['list of an unknown team', ['agent', 'list', '--team', 'Nope']],
    ['remove without --agent', ['agent', 'remove', '--team', 'Demo']],
    ['unknown option', ['agent', 'add', '--team', 'Demo', '--agent', 'a3', '--bogus']],
  ];
  for (const [name, args] of bad) {
    it(`usage error: ${name} → exit 2, nothing sent or changed`, async () => {
      const { factory, log } = fakeClientFactory({ getSession: async () => connected });
      const before = store.snapshot();
      const r = await runCli(args, { createClient: factory, secretStore: store, configDir: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(log.calls).toEqual([]);
      expect(store.snapshot()).toEqual(before);
      const list = await runCli(['agent', 'list', '--json'], { secretStore: store, configDir: dir });
      expect(list.json().map((a) => a.agentId)).toEqual(['a1']);
    });
  }
});
