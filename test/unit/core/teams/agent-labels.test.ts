// An agent's labels: the one normalisation (trimmed, lowercased, the rule, no repeats, sorted, at most 16), the
// team store's changes of them (a label that breaks the rule is named and nothing is saved), and the config file
// with and without them (a config written before labels loads, its agents without any).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normaliseAgentLabels, splitAgentLabels } from '../../../../src-shared/agent-labels';
import { MemorySecretStore } from '../../../../src-main/core/secrets';
import { TeamStore, TeamStoreError } from '../../../../src-main/core/teams';
import { configPath } from '../../../../src-main/core/teams/config-file';
import { fakeService, type FakeService } from './fakes';

const KEY = 'sk_live_0123456789abcdef9f2c';

let dir: string;
let secrets: MemorySecretStore;
let svc: FakeService;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cc-labels-'));
  secrets = new MemorySecretStore();
  svc = fakeService({ [KEY]: ['agent-1', 'agent-2'] });
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const open = (): Promise<TeamStore> => TeamStore.open({ configDir: dir, secrets, clientFactory: svc.factory });

async function withTeam(): Promise<TeamStore> {
  const store = await open();
  await store.addTeam({
    label: 'Ops',
    baseUrl: 'https://api.example.test',
    apiKey: KEY,
    agents: [{ agentId: 'agent-1' }],
  });
  return store;
}

async function refused(p: Promise<unknown>): Promise<TeamStoreError> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TeamStoreError);
  expect((err as TeamStoreError).code).toBe('INVALID');
  return err as TeamStoreError;
}

describe('normaliseAgentLabels', () => {
  it('trims, lowercases, drops repeats and sorts', () => {
    expect(normaliseAgentLabels([' EU-West ', 'billing', 'eu-west', 'tier.1', 'a_b'])).toEqual({
      ok: true,
      labels: ['a_b', 'billing', 'eu-west', 'tier.1'],
    });
    expect(normaliseAgentLabels([])).toEqual({ ok: true, labels: [] });
  });

  it.each([
    ['', 'empty'],
    ['has space', 'a space'],
    ['-lead', 'a leading dash'],
    ['.dot', 'a leading dot'],
    ['x'.repeat(33), '33 characters'],
    ['émoji', 'a letter beyond a-z'],
    ['a/b', 'a slash'],
  ])('refuses %j (%s), naming it', (label) => {
    const r = normaliseAgentLabels(['ok', label]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain(JSON.stringify(label));
  });

  it('takes 32 characters and at most 16 labels (after repeats are dropped)', () => {
    expect(normaliseAgentLabels(['x'.repeat(32)]).ok).toBe(true);
    const sixteen = Array.from({ length: 16 }, (_, i) => `l${i}`);
    expect(normaliseAgentLabels([...sixteen, 'L0', ' l1 ']).ok).toBe(true);
    const r = normaliseAgentLabels([...sixteen, 'l16']);
    expect(r).toEqual({ ok: false, problem: 'an agent has at most 16 labels (17 given)' });
  });

  it('splits what a person types at commas and spaces', () => {
    expect(splitAgentLabels(['a,b', ' c ', 'd, e', ''])).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('TeamStore: labels', () => {
  it('an agent added with labels keeps them normalised; set, add and remove change them; the file keeps them', async () => {
    const store = await withTeam();
    const added = await store.addAgent('Ops', { agentId: 'agent-2', labels: ['Billing', ' eu '] });
    expect(added.labels).toEqual(['billing', 'eu']);
    expect(store.findTeam('Ops')!.agents.map((a) => a.labels)).toEqual([[], ['billing', 'eu']]);

    expect((await store.setAgentLabels('Ops', 'agent-2', { add: ['VIP', 'billing'], remove: ['eu'] })).labels).toEqual([
      'billing',
      'vip',
    ]);
    expect(
      (await store.setAgentLabels('Ops', 'agent-2', { labels: ['x', 'y'], add: ['z'], remove: ['x'] })).labels,
    ).toEqual(['y', 'z']);
    const file = JSON.parse(await fs.readFile(configPath(dir), 'utf8'));
    expect(file.teams[0].agents[1].labels).toEqual(['y', 'z']);

    // Another store on the same folder reads them.
    const again = await open();
    expect(again.findTeam('Ops')!.agents[1]!.labels).toEqual(['y', 'z']);
    expect((await again.setAgentLabels('Ops', 'agent-2', { labels: [] })).labels).toEqual([]);
  });

  it('a bad label is refused naming it, and nothing is saved', async () => {
    const store = await withTeam();
    await store.setAgentLabels('Ops', 'agent-1', { labels: ['keep'] });
    const before = await fs.readFile(configPath(dir), 'utf8');
    const err = await refused(store.setAgentLabels('Ops', 'agent-1', { add: ['fine', 'Not Fine'] }));
    expect(err.message).toContain('"Not Fine"');
    const many = Array.from({ length: 16 }, (_, i) => `n${i}`);
    const tooMany = await refused(store.setAgentLabels('Ops', 'agent-1', { add: many }));
    expect(tooMany.message).toMatch(/at most 16 labels \(17 given\)/);
    await refused(store.addAgent('Ops', { agentId: 'agent-2', labels: ['ok', '#nope'] }));
    expect(await fs.readFile(configPath(dir), 'utf8')).toBe(before);
    expect(store.findTeam('Ops')!.agents.map((a) => a.agentId)).toEqual(['agent-1']);
  });

  it('an unknown agent is NOT_FOUND', async () => {
    const store = await withTeam();
    await expect(store.setAgentLabels('Ops', 'nobody', { add: ['x'] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a config written before labels loads (its agents have none) and is written with them', async () => {
    const store = await withTeam();
    const file = JSON.parse(await fs.readFile(configPath(dir), 'utf8'));
    for (const a of file.teams[0].agents) delete a.labels;
    await fs.writeFile(configPath(dir), JSON.stringify(file));
    const old = await open();
    expect(old.findTeam('Ops')!.agents).toEqual([{ agentId: 'agent-1', label: 'agent-1', labels: [] }]);
    await old.setAgentLabels('Ops', 'agent-1', { add: ['new'] });
    expect(JSON.parse(await fs.readFile(configPath(dir), 'utf8')).teams[0].agents[0].labels).toEqual(['new']);
    await store.close();
  });

  it('labels in a file edited by hand are normalised on load; a bad one makes the file invalid, naming it', async () => {
    await withTeam();
    const file = JSON.parse(await fs.readFile(configPath(dir), 'utf8'));
    file.teams[0].agents[0].labels = ['Zed', 'alpha', 'zed'];
    await fs.writeFile(configPath(dir), JSON.stringify(file));
    expect((await open()).findTeam('Ops')!.agents[0]!.labels).toEqual(['alpha', 'zed']);
    file.teams[0].agents[0].labels = ['good', 'bad label'];
    await fs.writeFile(configPath(dir), JSON.stringify(file));
    await expect(open()).rejects.toMatchObject({ code: 'CONFIG_CORRUPT' });
    await expect(open()).rejects.toThrow(/teams\.0\.agents\.0\.labels: label "bad label" must be/);
  });
});
