// `agent add|list|remove` on a saved team through a companion started for each command, with a MemorySecretStore
// (adding an agent the service checks is in test/integration/cli-teams).
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { CONNECTED, fakeClientFactory, saveTeam, useSavedTeams } from './fake-client';

const KEY = 'team-key-0123456789abcdef';
const saved = useSavedTeams('cc-agent-', [{ agents: ['a1'], apiKey: KEY }]);

describe('agent add / list / remove', () => {
  it("list: the contract's AgentDTO per agent, human lines by team; remove drops one and its secrets", async () => {
    await saveTeam(saved.dir, saved.store, { label: 'Other', agents: ['b1', 'b2'], apiKey: KEY });
    const opts = { env: {}, secretStore: saved.store, configDir: saved.dir };
    const list = await runCli(['agent', 'list', '--json'], opts);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((a) => [a.agentId, a.label, a.watchClosely])).toEqual([
      ['a1', 'a1', false],
      ['b1', 'b1', false],
      ['b2', 'b2', false],
    ]);
    expect(list.json()[0]).toMatchObject({ teamId: expect.any(String), health: { agentId: 'a1' } });
    const human = await runCli(['agent', 'list', '--team', 'other'], opts);
    expect(human.stdout).toBe('Other/b1\nOther/b2\n');

    const rm1 = await runCli(['agent', 'remove', '--team', 'Other', '--agent', 'b2'], opts);
    expect(rm1.code, rm1.stderr).toBe(0);
    expect(rm1.stdout).toContain('removed agent b2 from team Other');
    const after = await runCli(['agent', 'list', '--json'], opts);
    expect(after.json().map((a) => a.agentId)).toEqual(['a1', 'b1']);
    expect([list, human, rm1].map((r) => r.stdout + r.stderr).join('')).not.toContain(KEY);
  });

  it('a duplicate agent → exit 2 (bad input); removing an agent the team lacks → exit 1', async () => {
    const { factory } = fakeClientFactory({ getSession: async () => CONNECTED });
    const dup = await runCli(['agent', 'add', '--team', 'Demo', '--agent', 'a1'], {
      createClient: factory,
      secretStore: saved.store,
      configDir: saved.dir,
    });
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/already/);
    const gone = await runCli(['agent', 'remove', '--team', 'Demo', '--agent', 'zz'], {
      secretStore: saved.store,
      configDir: saved.dir,
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
      const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
      const before = saved.store.snapshot();
      const r = await runCli(args, { createClient: factory, secretStore: saved.store, configDir: saved.dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // The companion the command started may poll the team's agents; a3 is never checked.
      expect(log.calls.filter((c) => c.args[0] === 'a3')).toEqual([]);
      expect(saved.store.snapshot()).toEqual(before);
      const list = await runCli(['agent', 'list', '--json'], { secretStore: saved.store, configDir: saved.dir });
      expect(list.json().map((a) => a.agentId)).toEqual(['a1']);
    });
  }
});
