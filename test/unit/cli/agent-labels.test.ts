// `agent add --labels`, `agent label`, `status --with-label` and `status` naming nothing through a companion started for each command,
// with a MemorySecretStore and a fake service.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { CONNECTED, fakeClientFactory, useSavedTeams } from './fake-client';

const KEY = 'team-key-0123456789abcdef';
const saved = useSavedTeams('cc-agent-labels-', [
  { agents: ['a1', 'a2'], apiKey: KEY },
  { label: 'Other', agents: ['b1'], apiKey: KEY },
]);

const config = async (): Promise<string> => readFile(join(saved.dir, 'config.json'), 'utf8');

interface StatusAgent {
  teamId: string;
  agentId: string;
  labels: string[];
}
interface StatusJson {
  label?: string;
  withLabels: string[];
  agents: StatusAgent[];
}
const statusOf = (r: { json(): unknown[] }): StatusJson => r.json()[0] as StatusJson;

describe('agent labels on the command line', () => {
  it('agent add --labels (repeatable, comma lists) keeps them normalised; agent list shows them', async () => {
    const { factory } = fakeClientFactory({ getSession: async () => CONNECTED });
    const opts = { createClient: factory, secretStore: saved.store, configDir: saved.dir };
    const add = await runCli(
      ['agent', 'add', '--team', 'Demo', '--agent', 'a3', '--labels', 'Billing,eu', '--labels', 'vip', '--json'],
      opts,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.json()[0]).toMatchObject({ agentId: 'a3', labels: ['billing', 'eu', 'vip'] });
    const human = await runCli(['agent', 'list', '--team', 'Demo'], opts);
    expect(human.stdout).toBe('Demo/a1\nDemo/a2\nDemo/a3 [billing, eu, vip]\n');
    const json = await runCli(['agent', 'list', '--json'], opts);
    expect(json.json().map((a) => [a.agentId, a.labels])).toEqual([
      ['a1', []],
      ['a2', []],
      ['a3', ['billing', 'eu', 'vip']],
      ['b1', []],
    ]);
  });

  it('agent label --add / --remove / --set changes the labels; --json is the AgentDTO', async () => {
    const opts = { secretStore: saved.store, configDir: saved.dir };
    const add = await runCli(
      ['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--add', 'EU', '--add', 'x,y'],
      opts,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toBe('Demo/a1: eu, x, y\n');
    const rm1 = await runCli(
      ['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--remove', 'x', '--add', 'z', '--json'],
      opts,
    );
    expect(rm1.json()[0]).toMatchObject({ teamId: expect.any(String), agentId: 'a1', labels: ['eu', 'y', 'z'] });
    const set = await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--set', 'only'], opts);
    expect(set.stdout).toBe('Demo/a1: only\n');
    const clear = await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--set', ''], opts);
    expect(clear.stdout).toBe('Demo/a1: no labels\n');
    expect(JSON.parse(await config()).teams[0].agents[0].labels).toEqual([]);
  });

  it('a bad label → exit 2 naming it, nothing saved; no change asked → exit 2; an unknown agent → exit 1', async () => {
    const opts = { secretStore: saved.store, configDir: saved.dir };
    await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--add', 'keep'], opts);
    const before = await config();
    const bad = await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--add', 'ok,-bad'], opts);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"-bad"');
    expect(bad.stdout).toBe('');
    const nothing = await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1'], opts);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/--add, --remove or --set/);
    const gone = await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'zz', '--add', 'x'], opts);
    expect(gone.code).toBe(1);
    expect(await config()).toBe(before);
  });

  it('status --with-label: the agents with every label given, of one team or of every team; JSON carries labels', async () => {
    const opts = { secretStore: saved.store, configDir: saved.dir };
    await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a1', '--set', 'eu,billing'], opts);
    await runCli(['agent', 'label', '--team', 'Demo', '--agent', 'a2', '--set', 'eu'], opts);
    await runCli(['agent', 'label', '--team', 'Other', '--agent', 'b1', '--set', 'eu,billing'], opts);

    const all = await runCli(['status', '--with-label', 'EU', '--json'], opts);
    expect(all.code, all.stderr).toBe(0);
    const value = statusOf(all);
    expect(value.withLabels).toEqual(['eu']);
    expect(value.agents.map((a) => a.agentId).sort()).toEqual(['a1', 'a2', 'b1']);
    expect(value.agents.find((a) => a.agentId === 'a1')).toMatchObject({
      teamId: expect.any(String),
      labels: ['billing', 'eu'],
    });

    const both = await runCli(
      ['status', '--team', 'Demo', '--with-label', 'eu', '--with-label', 'billing', '--json'],
      opts,
    );
    expect(statusOf(both)).toMatchObject({ label: 'Demo', withLabels: ['billing', 'eu'] });
    expect(statusOf(both).agents.map((a) => a.agentId)).toEqual(['a1']);

    const human = await runCli(['status', '--with-label', 'billing'], opts);
    expect(human.stdout).toMatch(/^labelled billing: 2 agents/);
    expect(human.stdout).toContain('Demo/a1');
    expect(human.stdout).toContain('Other/b1');

    const team = await runCli(['status', '--team', 'Demo', '--json'], opts);
    expect(statusOf(team).agents.map((a) => a.labels)).toEqual([['billing', 'eu'], ['eu']]);

    const bad = await runCli(['status', '--with-label', 'no/way'], opts);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"no/way"');
  });

  it('status with nothing named: every agent of every saved team; with none saved, how to add one', async () => {
    const opts = { secretStore: saved.store, configDir: saved.dir };
    const all = await runCli(['status', '--json'], opts);
    expect(all.code, all.stderr).toBe(0);
    const value = statusOf(all);
    expect(value.agents.map((a) => a.agentId).sort()).toEqual(['a1', 'a2', 'b1']);
    expect(value).not.toHaveProperty('withLabels');
    const human = await runCli(['status'], opts);
    expect(human.stdout).toMatch(/^2 teams: 3 agents/);
    expect(human.stdout).toContain('Other/b1');

    const empty = await mkdtemp(join(tmpdir(), 'cc-status-none-'));
    try {
      const none = await runCli(['status'], { secretStore: saved.store, configDir: empty });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('no saved team');
      expect(none.stderr).toContain('team add');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
