import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TeamStore, TeamStoreError } from '../../../../src-main/core/teams';
import { configPath } from '../../../../src-main/core/teams/config-file';
import { apiKeyRef, signingSecretRef } from '../../../../src-main/core/teams/refs';
import { MemorySecretStore } from '../../../../src-main/core/secrets';
import type { ServiceClient } from '../../../../src-main/core/api/service';
import { fakeService, type FakeService } from './fakes';

/** The hint every refusal of the config file ends with. */
const CONFIG_FIX_HINT =
  'It was left untouched: fix it by hand, or run `channel-companion config reset` to set it aside (kept as config.json.corrupt-<time>) and start afresh.';

const KEY = 'sk_live_0123456789abcdef9f2c';
const OTHER_KEY = 'sk_live_fedcba9876543210aaaa';

let dir: string;
let secrets: MemorySecretStore;
let svc: FakeService;
let n = 0;

async function open(): Promise<TeamStore> {
  return TeamStore.open({ configDir: dir, secrets, clientFactory: svc.factory, randomId: () => `id${++n}abcdef` });
}

async function readFile(): Promise<string> {
  return fs.readFile(configPath(dir), 'utf8');
}

async function expectCode(p: Promise<unknown>, code: string): Promise<TeamStoreError> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TeamStoreError);
  expect((err as TeamStoreError).code).toBe(code);
  return err as TeamStoreError;
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cc-teamStore-'));
  secrets = new MemorySecretStore();
  svc = fakeService({ [KEY]: ['agent-1', 'agent-2'], [OTHER_KEY]: ['agent-9'] });
  n = 0;
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('TeamStore.open', () => {
  it('creates a versioned config with defaults, mode 0600, and a stable installId', async () => {
    const a = await open();
    const s = a.settings();
    expect(s).toMatchObject({
      pollIntervalSec: 15,
      fastPollIntervalSec: 2,
      tunnelPort: 47615,
      startAtLogin: false,
      theme: 'system',
      alertWebhookUrl: null,
    });
    expect(s.alertRules).toEqual({
      reconnectGraceSec: 0,
      repeatDropGraceSec: 60,
      realertMinutes: 15,
      flapCount: 3,
      flapWindowMinutes: 10,
      quietHours: null,
    });
    expect(JSON.parse(await readFile()).schemaVersion).toBe(1);
    if (process.platform !== 'win32') expect((await fs.stat(configPath(dir))).mode & 0o777).toBe(0o600);
    const again = await open();
    expect(again.settings().installId).toBe(s.installId);
  });
  it('a tunnel port of 0 (the old default, any free port) is read as the fixed default; a chosen port stays', async () => {
    await open();
    const file = JSON.parse(await readFile());
    await fs.writeFile(configPath(dir), JSON.stringify({ ...file, settings: { ...file.settings, tunnelPort: 0 } }));
    expect((await open()).settings().tunnelPort).toBe(47615);
    await fs.writeFile(configPath(dir), JSON.stringify({ ...file, settings: { ...file.settings, tunnelPort: 8787 } }));
    expect((await open()).settings().tunnelPort).toBe(8787);
  });
});

describe('teams', () => {
  it('a new team is named t_ and a ULID unless ids are given', async () => {
    const a = await TeamStore.open({ configDir: dir, secrets, clientFactory: svc.factory });
    const first = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://api.example.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    const second = await a.addTeam({
      label: 'Lab',
      baseUrl: 'https://api.example.test/two',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    for (const t of [first, second]) expect(t.id).toMatch(/^t_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(first.id).not.toBe(second.id);
  });

  it('addTeam checks the key, stores it only in the secret store, and strips the trailing slash', async () => {
    const a = await open();
    const team = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://api.example.test/base/',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1', label: 'Support' }],
    });
    expect(team).toEqual({
      id: expect.stringMatching(/^t_/),
      label: 'Ops',
      baseUrl: 'https://api.example.test/base',
      keyHint: '…9f2c',
      allowInsecureHttp: false,
      agents: [{ agentId: 'agent-1', label: 'Support', labels: [] }],
    });
    expect(svc.created[0]?.client.getSession).toHaveBeenCalledWith('agent-1');
    expect(secrets.snapshot()).toEqual({ [apiKeyRef(team.id)]: KEY });
    const text = await readFile();
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(KEY.slice(0, 12));
    expect(text).toContain(apiKeyRef(team.id));
    expect(await a.getApiKey(team.id)).toBe(KEY);
    // survives a reopen
    const b = await open();
    expect(b.findTeam('ops')).toEqual(team);
  });

  it('a rejected key stores nothing: config unchanged, secret store empty, client closed', async () => {
    const a = await open();
    const before = await readFile();
    const err = await expectCode(
      a.addTeam({
        label: 'Ops',
        baseUrl: 'https://x.test',
        apiKey: 'sk_wrong_key_000000',
        agents: [{ agentId: 'agent-1' }],
      }),
      'KEY_REJECTED',
    );
    expect(err.message).not.toContain('sk_wrong_key_000000');
    expect(await readFile()).toBe(before);
    expect(secrets.snapshot()).toEqual({});
    expect(a.listTeams()).toEqual([]);
    expect(svc.created[0]?.client.close).toHaveBeenCalled();
  });

  it('an unknown agent is AGENT_NOT_FOUND and stores nothing', async () => {
    const a = await open();
    await expectCode(
      a.addTeam({
        label: 'Ops',
        baseUrl: 'https://x.test',
        apiKey: KEY,
        agents: [{ agentId: 'agent-1' }, { agentId: 'nope' }],
      }),
      'AGENT_NOT_FOUND',
    );
    expect(secrets.snapshot()).toEqual({});
    expect(a.listTeams()).toEqual([]);
  });

  it('requires at least one agent, a http(s) base URL without credentials, and unique labels', async () => {
    const a = await open();
    const none = await expectCode(a.addTeam({ label: 'Ops', baseUrl: 'https://x.test', apiKey: KEY }), 'INVALID');
    expect([none.field, none.message]).toEqual(['agents', 'At least one agent is needed to check the key against.']);
    const named = await expectCode(
      a.addTeam({ label: 'x'.repeat(65), baseUrl: 'https://x.test', apiKey: KEY, agents: [{ agentId: 'agent-1' }] }),
      'INVALID',
    );
    expect([named.field, named.message]).toEqual(['label', 'Team name must be at most 64 characters.']);
    await expectCode(
      a.addTeam({ label: 'Ops', baseUrl: 'ftp://x.test', apiKey: KEY, agents: [{ agentId: 'agent-1' }] }),
      'INVALID',
    );
    await expectCode(
      a.addTeam({ label: 'Ops', baseUrl: 'https://u:p@x.test', apiKey: KEY, agents: [{ agentId: 'agent-1' }] }),
      'INVALID',
    );
    const bad = await expectCode(
      a.addTeam({ label: 'Ops', baseUrl: 'https://x.test', apiKey: `${KEY} x`, agents: [{ agentId: 'agent-1' }] }),
      'INVALID',
    );
    expect(bad.message).not.toContain(KEY);
    await a.addTeam({ label: 'Ops', baseUrl: 'https://x.test', apiKey: KEY, agents: [{ agentId: 'agent-1' }] });
    await expectCode(
      a.addTeam({ label: ' ops ', baseUrl: 'https://y.test', apiKey: OTHER_KEY, agents: [{ agentId: 'agent-9' }] }),
      'DUPLICATE',
    );
    expect(svc.created).toHaveLength(1);
  });

  it('removeTeam deletes the key and every signing secret, closes the client, and drops the config entry', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }, { agentId: 'agent-2' }],
    });
    const keep = await a.addTeam({
      label: 'Other',
      baseUrl: 'https://y.test',
      apiKey: OTHER_KEY,
      agents: [{ agentId: 'agent-9' }],
    });
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_one');
    await a.setSigningSecret(t.id, 'agent-2', 'whsec_two');
    const client = await a.clientFor(t.id);
    await a.removeTeam('Ops');
    expect(secrets.snapshot()).toEqual({ [apiKeyRef(keep.id)]: OTHER_KEY });
    expect((client as unknown as { close: { mock: { calls: unknown[] } } }).close.mock.calls.length).toBe(1);
    expect(a.listTeams().map((x) => x.label)).toEqual(['Other']);
    expect(await readFile()).not.toContain(t.id);
    await expectCode(a.removeTeam(t.id), 'NOT_FOUND');
  });

  it('a locked keychain blocks removal and keeps the config (no orphaned secrets)', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    secrets.state = 'locked';
    const err = await expectCode(a.removeTeam(t.id), 'KEYCHAIN');
    expect(err.message).toMatch(/locked/);
    expect(a.findTeam(t.id)).toBeDefined();
    await expectCode(a.getApiKey(t.id), 'KEYCHAIN');
  });

  it('an unavailable keychain when adding stores nothing in the config', async () => {
    const a = await open();
    const before = await readFile();
    secrets.state = 'unavailable';
    const err = await expectCode(
      a.addTeam({ label: 'Ops', baseUrl: 'https://x.test', apiKey: KEY, agents: [{ agentId: 'agent-1' }] }),
      'KEYCHAIN',
    );
    expect(err.message).not.toContain(KEY);
    expect(await readFile()).toBe(before);
  });

  it('clientFor caches one client per team, built from the stored key', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    const b = await open();
    const c1 = await b.clientFor(t.id);
    const c2 = await b.clientFor('Ops');
    expect(c1).toBe(c2);
    expect(svc.created.at(-1)).toMatchObject({ baseUrl: 'https://x.test', apiKey: KEY });
    await b.close();
    expect(svc.created.at(-1)?.client.close).toHaveBeenCalledTimes(1);
    await expectCode(b.clientFor('nope'), 'NOT_FOUND');
  });
});

describe('agents', () => {
  it('addAgent verifies with getSession; unknown agent → AGENT_NOT_FOUND; duplicates refused', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    expect(await a.addAgent('Ops', { agentId: 'agent-2', label: 'Sales' })).toEqual({
      agentId: 'agent-2',
      label: 'Sales',
      labels: [],
    });
    const err = await expectCode(a.addAgent(t.id, { agentId: 'ghost' }), 'AGENT_NOT_FOUND');
    expect(err.message).toContain('ghost');
    await expectCode(a.addAgent(t.id, { agentId: 'agent-2' }), 'DUPLICATE');
    const refused = await expectCode(a.addAgent(t.id, { agentId: 'agent/../x' }), 'INVALID');
    expect([refused.field, refused.message]).toEqual([
      'agentId',
      'Agent ID must be letters, digits or . _ ~ : @ - (no slashes or spaces).',
    ]);
    const long = await expectCode(a.addAgent(t.id, { agentId: 'agent-3', label: 'x'.repeat(65) }), 'INVALID');
    expect([long.field, long.message]).toEqual(['label', 'Label must be at most 64 characters.']);
    expect(a.findTeam(t.id)?.agents.map((x) => x.agentId)).toEqual(['agent-1', 'agent-2']);
  });

  it("teamOfAgent names the first team that has the agent (listTeams' order), and follows adds and removals", async () => {
    const a = await open();
    expect(a.teamOfAgent('agent-1')).toBeUndefined();
    const ops = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    const lab = await a.addTeam({
      label: 'Lab',
      baseUrl: 'https://y.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    await a.addAgent(lab.id, { agentId: 'agent-2' });
    const firstHolding = (agentId: string) =>
      a.listTeams().find((t) => t.agents.some((x) => x.agentId === agentId))?.id;
    expect([a.teamOfAgent('agent-1'), a.teamOfAgent('agent-2')]).toEqual([ops.id, lab.id]);
    expect([a.teamOfAgent('agent-1'), a.teamOfAgent('agent-2')]).toEqual([
      firstHolding('agent-1'),
      firstHolding('agent-2'),
    ]);
    await a.removeTeam(ops.id);
    expect(a.teamOfAgent('agent-1')).toBe(lab.id);
    expect(a.teamOfAgent('ghost')).toBeUndefined();
  });

  it('a revoked key surfaces as KEY_REJECTED on addAgent', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    svc.keys.delete(KEY);
    await expectCode(a.addAgent(t.id, { agentId: 'agent-2' }), 'KEY_REJECTED');
  });

  it('removeAgent deletes its signing secrets', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }, { agentId: 'agent-2' }],
    });
    await a.setSigningSecret(t.id, 'agent-2', 'whsec_two');
    await a.removeAgent(t.id, 'agent-2');
    expect(Object.keys(secrets.snapshot())).toEqual([apiKeyRef(t.id)]);
    expect(a.findTeam(t.id)?.agents).toEqual([{ agentId: 'agent-1', label: 'agent-1', labels: [] }]);
    await expectCode(a.removeAgent(t.id, 'agent-2'), 'NOT_FOUND');
  });
});

describe('two stores on one config (the app and a command)', () => {
  it("each change is made on the file as it is: neither loses the other's", async () => {
    const app = await open();
    const cli = await open();
    const ops = await cli.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    await cli.setSigningSecret(ops.id, 'agent-1', 'whsec_cli');
    // The app read the file before both: its next changes keep them.
    await app.updateSettings({ pollIntervalSec: 30 });
    const dev = await app.addTeam({
      label: 'Dev',
      baseUrl: 'https://y.test',
      apiKey: KEY,
      agents: [{ agentId: 'agent-1' }],
    });
    const fresh = await open();
    expect(fresh.listTeams().map((t) => t.label)).toEqual(['Ops', 'Dev']);
    expect(fresh.settings().pollIntervalSec).toBe(30);
    expect(await fresh.getSigningSecrets(ops.id, 'agent-1')).toEqual(['whsec_cli']);
    expect(app.findTeam('Ops')?.id).toBe(ops.id);
    expect(
      JSON.parse(await readFile()).teams.find((t: { id: string }) => t.id === ops.id).agents[0].signingSecretRef,
    ).toBe(signingSecretRef(ops.id, 'agent-1'));
    expect(dev.label).toBe('Dev');
  });

  /** Holds the client's answers to agent checks until the returned function is called. */
  function holdChecks(client: ServiceClient): () => void {
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const getSession = client.getSession.bind(client);
    client.getSession = async (agentId: string) => {
      await held;
      return getSession(agentId);
    };
    return letGo;
  }

  /** A store on the same config whose agent checks wait until `letGo` is called. */
  async function heldStore(id: string): Promise<{ store: TeamStore; letGo: () => void }> {
    const lets: Array<() => void> = [];
    const store = await TeamStore.open({
      configDir: dir,
      secrets,
      clientFactory: (o) => {
        const client = svc.factory(o);
        lets.push(holdChecks(client));
        return client;
      },
      randomId: () => id,
    });
    return { store, letGo: () => lets.forEach((f) => f()) };
  }

  const teamInput = (label: string, agentId = 'agent-1') => ({
    label,
    baseUrl: `https://${label.toLowerCase()}.test`,
    apiKey: KEY,
    agents: [{ agentId }],
  });

  it('a change that waits on the service is made on the file as it is when the check ends', async () => {
    const app = await open();
    const cli = await open();
    const first = await heldStore('slowabcdef');
    const adding = first.store.addTeam(teamInput('Dev'));
    const ops = await cli.addTeam(teamInput('Ops'));
    await cli.updateSettings({ pollIntervalSec: 45 });
    first.letGo();
    await adding;
    const fresh = await open();
    expect(fresh.listTeams().map((t) => t.label)).toEqual(['Ops', 'Dev']);
    expect(fresh.settings().pollIntervalSec).toBe(45);
    expect(fresh.findTeam(ops.id)?.label).toBe('Ops');

    // The same label added meanwhile elsewhere: refused when the check ends, its key not left behind.
    const second = await heldStore('twinabcdef');
    const twin = second.store.addTeam(teamInput('Staging', 'agent-2'));
    await app.addTeam(teamInput('staging'));
    second.letGo();
    await expectCode(twin, 'DUPLICATE');
    expect((await open()).listTeams().map((t) => t.label)).toEqual(['Ops', 'Dev', 'staging']);
    expect(await secrets.get(apiKeyRef('twinabcdef'))).toBeNull();
  });

  it('an agent added to a team that another process removed meanwhile is refused, and nothing is written', async () => {
    const cli = await open();
    const ops = await cli.addTeam(teamInput('Ops'));
    const app = await open();
    const letGo = holdChecks(await app.clientFor(ops.id));
    const adding = app.addAgent(ops.id, { agentId: 'agent-2' });
    await cli.removeTeam(ops.id);
    const before = await readFile();
    letGo();
    await expectCode(adding, 'NOT_FOUND');
    expect(await readFile()).toBe(before);
    expect(app.listTeams()).toEqual([]);
  });

  it('a file broken meanwhile refuses the change and is left as it is', async () => {
    const app = await open();
    await fs.writeFile(configPath(dir), '{"teams": [', 'utf8');
    await expectCode(app.updateSettings({ pollIntervalSec: 30 }), 'CONFIG_CORRUPT');
    expect(await readFile()).toBe('{"teams": [');
  });
});

describe('signing secrets', () => {
  /** The team 'Ops' with these agents, added through the store. */
  const addOps = (store: TeamStore, agentIds = ['agent-1']) =>
    store.addTeam({
      label: 'Ops',
      baseUrl: 'https://x.test',
      apiKey: KEY,
      agents: agentIds.map((agentId) => ({ agentId })),
    });

  it('rotation keeps the current and the previous secret, never in the config file', async () => {
    const a = await open();
    const t = await addOps(a);
    expect(await a.getSigningSecrets(t.id, 'agent-1')).toEqual([]);
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_first');
    expect(await a.getSigningSecrets(t.id, 'agent-1')).toEqual(['whsec_first']);
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_second');
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_second');
    expect(await a.getSigningSecrets(t.id, 'agent-1')).toEqual(['whsec_second', 'whsec_first']);
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_third');
    expect(await a.getSigningSecrets(t.id, 'agent-1')).toEqual(['whsec_third', 'whsec_second']);
    const text = await readFile();
    expect(text).not.toMatch(/whsec_/);
    expect(text).toContain(signingSecretRef(t.id, 'agent-1'));
    await expect((await open()).getSigningSecrets(t.id, 'agent-1')).resolves.toEqual(['whsec_third', 'whsec_second']);
    expect((await expectCode(a.setSigningSecret(t.id, 'agent-1', ''), 'INVALID')).message).toBe(
      'Signing secret must not be empty.',
    );
    await expectCode(a.setSigningSecret(t.id, 'nobody', 'x'), 'NOT_FOUND');
  });

  it('a secret stored by another store on the same config (another process) is read without reopening', async () => {
    const app = await open();
    const t = await addOps(app);
    expect(await app.getSigningSecrets(t.id, 'agent-1')).toEqual([]);
    const cli = await open();
    await cli.setSigningSecret(t.id, 'agent-1', 'whsec_from_the_cli');
    expect(await app.getSigningSecrets(t.id, 'agent-1')).toEqual(['whsec_from_the_cli']);
  });

  /** A keychain whose next `set` of `ref` waits until the returned function is called. */
  function holdSet(ref: string): { stored: Promise<void>; letGo: () => void } {
    let letGo!: () => void;
    let reached!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const stored = new Promise<void>((resolve) => (reached = resolve));
    const set = secrets.set.bind(secrets);
    secrets.set = async (account: string, secret: string) => {
      if (account === ref) {
        reached();
        await held;
        secrets.set = set;
      }
      return set(account, secret);
    };
    return { stored, letGo };
  }

  it('a secret stored while another process removes its team or agent is not left in the keychain', async () => {
    const app = await open();
    const t = await addOps(app, ['agent-1', 'agent-2']);
    const cli = await open();

    // The agent removed while the app stores its secret (the removal's own deletion ran before the set).
    const one = holdSet(signingSecretRef(t.id, 'agent-2'));
    const storing = app.setSigningSecret(t.id, 'agent-2', 'whsec_late');
    await one.stored;
    await cli.removeAgent(t.id, 'agent-2');
    one.letGo();
    expect((await expectCode(storing, 'NOT_FOUND')).message).toBe('Team "Ops" has no agent "agent-2".');
    expect(await secrets.get(signingSecretRef(t.id, 'agent-2'))).toBeNull();

    // The team removed the same way.
    const two = holdSet(signingSecretRef(t.id, 'agent-1'));
    const again = app.setSigningSecret(t.id, 'agent-1', 'whsec_late');
    await two.stored;
    await cli.removeTeam(t.id);
    two.letGo();
    expect((await expectCode(again, 'NOT_FOUND')).message).toBe('No team "Ops".');
    expect(secrets.snapshot()).toEqual({});
  });

  it('a removal deletes again, once its file is written, a secret stored meanwhile', async () => {
    const app = await open();
    const t = await addOps(app);
    const cli = await open();
    // Another process stores the secret just after the removal's first deletion, before its file is written.
    const del = secrets.delete.bind(secrets);
    let once = false;
    secrets.delete = async (account: string) => {
      const r = await del(account);
      if (!once && account === signingSecretRef(t.id, 'agent-1')) {
        once = true;
        await secrets.set(account, 'whsec_between');
      }
      return r;
    };
    await cli.removeTeam(t.id);
    expect(secrets.snapshot()).toEqual({});
  });

  it('reads a bare secret set by hand as the current one', async () => {
    const a = await open();
    const t = await addOps(a);
    await a.setSigningSecret(t.id, 'agent-1', 'whsec_a');
    await secrets.set(signingSecretRef(t.id, 'agent-1'), 'plain-secret');
    expect(await a.getSigningSecrets(t.id, 'agent-1')).toEqual(['plain-secret']);
  });
});

describe('settings', () => {
  it('updateSettings deep-merges, validates and persists', async () => {
    const a = await open();
    const s = await a.updateSettings({
      pollIntervalSec: 30,
      alertRules: { quietHours: { start: '22:00', end: '07:00' } },
      alertWebhookUrl: 'https://hooks.example.test/x',
    });
    expect(s.pollIntervalSec).toBe(30);
    expect(s.alertRules).toEqual({
      reconnectGraceSec: 0,
      repeatDropGraceSec: 60,
      realertMinutes: 15,
      flapCount: 3,
      flapWindowMinutes: 10,
      quietHours: { start: '22:00', end: '07:00' },
    });
    expect((await open()).settings()).toEqual(s);
    const cleared = await a.updateSettings({ alertRules: { quietHours: null } });
    expect(cleared.alertRules.quietHours).toBeNull();
  });

  it("rejects bad values and unknown keys in people's words, with the field's path, changing nothing", async () => {
    const a = await open();
    const before = await readFile();
    const cases: Array<[unknown, string | undefined, string]> = [
      [{ pollIntervalSec: 0 }, 'pollIntervalSec', 'Poll interval must be at least 5.'],
      [{ pollIntervalSec: 'fast' }, 'pollIntervalSec', 'Poll interval must be a number.'],
      [{ theme: 'neon' }, 'theme', 'Theme must be one of system, light, dark.'],
      [{ tunnelPort: 70000 }, 'tunnelPort', 'Tunnel port must be at most 65535.'],
      [{ tunnelPort: 0 }, 'tunnelPort', 'Tunnel port must be at least 1.'],
      [
        { alertRules: { quietHours: { start: '25:00', end: '07:00' } } },
        'alertRules.quietHours.start',
        'Start time must be a 24-hour time HH:MM.',
      ],
      [{ alertRules: { quietHours: { start: '22:00' } } }, 'alertRules.quietHours.end', 'End time is missing.'],
      [{ alertRules: { flapCount: 1 } }, 'alertRules.flapCount', 'Drops that count as flapping must be at least 2.'],
      [
        { alertWebhookUrl: 'javascript:alert(1)' },
        'alertWebhookUrl',
        'Alert webhook URL must be an http(s) URL, not javascript:.',
      ],
      [{ fastPollIntervalSec: 60 }, 'fastPollIntervalSec', 'Fast poll interval must not exceed the poll interval.'],
      [{ bogus: true }, undefined, 'Not accepted here: bogus.'],
      [{ installId: 'something-else-entirely' }, undefined, 'installId cannot be changed.'],
      [null, undefined, 'Settings patch must be an object.'],
    ];
    for (const [patch, field, message] of cases) {
      const err = await expectCode(a.updateSettings(patch as never), 'INVALID');
      expect({ field: err.field, message: err.message }, JSON.stringify(patch)).toEqual({ field, message });
    }
    expect(await readFile()).toBe(before);
    expect(a.settings().pollIntervalSec).toBe(15);
  });

  it('a bad poll interval is said like every other refused input; a secret in the patch never shows', async () => {
    const a = await open();
    const token = 'xoxb-5f2c9a81d4e7b3a6c0d9';
    const err = await expectCode(
      a.updateSettings({ pollIntervalSec: 2, alertWebhookUrl: `https://hooks.example.test/services/${token}` }),
      'INVALID',
    );
    expect(err.message).toBe('Poll interval must be at least 5.');
    expect(err.field).toBe('pollIntervalSec');
    const creds = await expectCode(
      a.updateSettings({ alertWebhookUrl: `https://bot:${token}@hooks.example.test/a` }),
      'INVALID',
    );
    expect(creds.message).toBe('Alert webhook URL must not contain a user or password.');
    for (const e of [err, creds]) {
      expect(e.message).not.toContain(token);
      expect(e.message).not.toMatch(/Too small|expected number|Invalid settings/);
    }
    expect(a.settings().alertWebhookUrl).toBeNull();
  });
});

describe('corrupt config', () => {
  it('invalid JSON → CONFIG_CORRUPT naming the file; the file is left untouched', async () => {
    await fs.writeFile(configPath(dir), '{"schemaVersion":1, teams: [', 'utf8');
    const err = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(err.message).toContain(configPath(dir));
    expect(err.message).toContain('is not valid JSON (at line 1, column 21)');
    expect(await readFile()).toBe('{"schemaVersion":1, teams: [');
  });

  it('invalid JSON is located by line and column, never quoted: a key pasted into the file stays out of the message', async () => {
    const text = '{\n  "schemaVersion": 1,\n  "apiKey": sk_live_0123456789abcdef\n}';
    await fs.writeFile(configPath(dir), text, 'utf8');
    const err = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(err.message).toContain('is not valid JSON (at line 3, column 13)');
    expect(err.message).not.toMatch(/sk_live|apiKey|0123/);
    expect(err.cause).toBeUndefined();
    expect(await readFile()).toBe(text);
  });

  it('where JSON.parse stopped, from its position or its excerpt; "ends too early" and a plain fallback', async () => {
    const fault = async (text: string) => {
      await fs.writeFile(configPath(dir), text, 'utf8');
      const err = await expectCode(open(), 'CONFIG_CORRUPT');
      return /is not valid JSON \((.*?)\)\. /.exec(err.message)?.[1];
    };
    expect(await fault('{"a": 1')).toBe('at line 1, column 8');
    expect(await fault('{"a":1}x')).toBe('at line 1, column 8');
    expect(await fault('{"a": [1, 2, 3], "key": value_here_long_long_long, "z": 1}')).toBe('at line 1, column 25');
    expect(await fault('secretvalue_secretvalue_secretvalue')).toBe('at line 1, column 1');
    expect(await fault('{"a": ')).toBe('it ends too early');
    expect(await fault('{"b": tru}')).toBe('an unexpected character');
    // A parser whose message tells neither a position nor an excerpt.
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, ...rest) => {
      if (text === '{"a": 1') throw new SyntaxError('something else');
      return parse(text, ...rest);
    });
    try {
      expect(await fault('{"a": 1')).toBe('an unexpected character');
    } finally {
      spy.mockRestore();
    }
  });

  it("schema violations name their JSON path and the rule in people's words", async () => {
    const bad = {
      schemaVersion: 1,
      settings: { installId: 'abcdefgh1234', pollIntervalSec: -5 },
      teams: [
        { id: 't_1', label: 'A', baseUrl: 'gopher://x', keyHint: '…', apiKeyRef: 'team:t_1:api-key', agents: [] },
      ],
    };
    await fs.writeFile(configPath(dir), JSON.stringify(bad), 'utf8');
    const err = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(err.message).toContain(
      `The config file ${configPath(dir)} is invalid: settings.pollIntervalSec: must be at least 5; settings.fastPollIntervalSec: must not exceed the poll interval; teams.0.baseUrl: must be an http(s) URL, not gopher:. It was left untouched`,
    );
    expect(err.message).not.toMatch(/Too small|expected number|\(root\)/);
    expect(await readFile()).toBe(JSON.stringify(bad));
  });

  it('a bad baseUrl in the file is named by its path, never with the password in it; a few issues at most', async () => {
    const secret = 's3cr3t-9a7f1c2e5b';
    const team = (i: number, baseUrl: string) => ({
      id: `t_${i}`,
      label: `T${i}`,
      baseUrl,
      keyHint: '…',
      apiKeyRef: `team:t_${i}:api-key`,
      agents: [],
    });
    const bad = {
      schemaVersion: 1,
      settings: { installId: 'abcdefgh1234' },
      teams: [
        team(1, `https://ops:${secret}@x.test`),
        team(2, 'ftp://x.test'),
        team(3, 'x'),
        team(4, 'gopher://x'),
        team(5, 'mailto:a@x.test'),
      ],
    };
    await fs.writeFile(configPath(dir), JSON.stringify(bad), 'utf8');
    const err = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(err.message).toContain(
      'teams.0.baseUrl: must not contain a user or password; teams.1.baseUrl: must be an http(s) URL, not ftp:; teams.2.baseUrl: is not a valid URL',
    );
    expect(err.message).toContain('(and 2 more)');
    expect(err.message).not.toContain('teams.3');
    expect(err.message).not.toContain(secret);
  });

  it('a newer schemaVersion is refused with a clear reason', async () => {
    await fs.writeFile(configPath(dir), JSON.stringify({ schemaVersion: 99 }), 'utf8');
    const err = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(err.message).toMatch(/newer/);
  });

  it('every refusal ends in the same hint: fix it by hand or `channel-companion config reset`', async () => {
    const files = [
      'garbage',
      JSON.stringify({ schemaVersion: 1, settings: { pollIntervalSec: 'x' }, teams: [] }),
      JSON.stringify({ schemaVersion: 99 }),
    ];
    for (const text of files) {
      await fs.writeFile(configPath(dir), text, 'utf8');
      expect((await expectCode(open(), 'CONFIG_CORRUPT')).message.endsWith(` ${CONFIG_FIX_HINT}`)).toBe(true);
    }
    await fs.rm(configPath(dir));
    await fs.mkdir(configPath(dir));
    const unreadable = await expectCode(open(), 'CONFIG_CORRUPT');
    expect(unreadable.message).toMatch(/cannot be read/);
    expect(unreadable.message.endsWith(` ${CONFIG_FIX_HINT}`)).toBe(true);
    expect(unreadable.message).not.toMatch(/moveCorruptConfigAside/);
  });

  it('moveAsideIfUnreadable moves only a config that does not load', async () => {
    const clock = { now: () => Date.UTC(2025, 0, 2, 3, 4, 5), setTimeout: () => 0, clearTimeout: () => undefined };
    expect(await TeamStore.moveAsideIfUnreadable(dir, clock)).toEqual({
      outcome: 'missing',
      configFile: configPath(dir),
    });
    await open();
    const good = await readFile();
    expect(await TeamStore.moveAsideIfUnreadable(dir, clock)).toEqual({
      outcome: 'readable',
      configFile: configPath(dir),
    });
    expect(await readFile()).toBe(good);
    expect(await fs.readdir(dir)).toEqual(['config.json']);
    await fs.writeFile(configPath(dir), '{', 'utf8');
    const moved = await TeamStore.moveAsideIfUnreadable(dir, clock);
    expect(moved).toEqual({
      outcome: 'moved',
      configFile: configPath(dir),
      movedTo: `${configPath(dir)}.corrupt-2025-01-02T03-04-05-000Z`,
    });
    expect(await fs.readdir(dir)).toEqual(['config.json.corrupt-2025-01-02T03-04-05-000Z']);
  });

  it('a config set aside keeps its text; then a fresh config can be created', async () => {
    await fs.writeFile(configPath(dir), 'garbage', 'utf8');
    const r = await TeamStore.moveAsideIfUnreadable(dir, {
      now: () => Date.UTC(2025, 0, 2, 3, 4, 5),
      setTimeout: () => 0,
      clearTimeout: () => undefined,
    });
    expect(r.outcome).toBe('moved');
    const movedTo = r.outcome === 'moved' ? r.movedTo : '';
    expect(movedTo).toBe(`${configPath(dir)}.corrupt-2025-01-02T03-04-05-000Z`);
    expect(await fs.readFile(movedTo, 'utf8')).toBe('garbage');
    const a = await open();
    expect(a.listTeams()).toEqual([]);
  });
});

describe('the key over plain http (allowInsecureHttp, off by default)', () => {
  it('refuses an http:// base URL on another machine, naming baseUrl; nothing is stored or asked', async () => {
    const a = await open();
    const err = await expectCode(
      a.addTeam({ label: 'Lab', baseUrl: 'http://lab.example:8787', apiKey: KEY, agents: [{ agentId: 'agent-1' }] }),
      'INVALID',
    );
    expect(err.message).toMatch(/^The API key would travel unencrypted to lab\.example:8787/);
    expect(err.field).toBe('baseUrl');
    expect(err.message).not.toContain(KEY);
    expect(svc.created).toHaveLength(0);
    expect(a.listTeams()).toEqual([]);
  });

  it('keeps the choice when the person allows it, and every client of the team gets it', async () => {
    const a = await open();
    const t = await a.addTeam({
      label: 'Lab',
      baseUrl: 'http://lab.example:8787',
      apiKey: KEY,
      allowInsecureHttp: true,
      agents: [{ agentId: 'agent-1' }],
    });
    expect(t.allowInsecureHttp).toBe(true);
    expect(svc.created[0]).toMatchObject({ baseUrl: 'http://lab.example:8787', allowInsecureHttp: true });
    expect(JSON.parse(await readFile()).teams[0].allowInsecureHttp).toBe(true);
    const again = await open();
    expect(again.findTeam('Lab')?.allowInsecureHttp).toBe(true);
    await again.clientFor('Lab');
    expect(svc.created.at(-1)).toMatchObject({ allowInsecureHttp: true });
  });

  it('loopback http needs no permission; a config written before the setting reads as off', async () => {
    const a = await open();
    expect(
      (
        await a.addTeam({
          label: 'Local',
          baseUrl: 'http://127.0.0.1:8787',
          apiKey: KEY,
          agents: [{ agentId: 'agent-1' }],
        })
      ).allowInsecureHttp,
    ).toBe(false);
    const file = JSON.parse(await readFile());
    delete file.teams[0].allowInsecureHttp;
    await fs.writeFile(configPath(dir), JSON.stringify(file));
    expect((await open()).findTeam('Local')?.allowInsecureHttp).toBe(false);
  });
});
