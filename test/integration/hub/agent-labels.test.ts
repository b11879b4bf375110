// An agent's labels on a hub: they live in the shared config row (hub_config) like the rest of an agent, with no
// code of the hub's own. Two replicas' team stores on one real Postgres keep each other's label changes, a row
// written before labels loads, and a bad label writes nothing; through two hub processes, the command line
// labels an agent at one replica (an admin; a developer is refused) and finds it by label at the other.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresConfigStore } from '../../../src-main/app/hub/config';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { TeamStore } from '../../../src-main/core/teams';
import type { ConfigFile } from '../../../src-main/core/teams/schema';
import { fakeService } from '../../unit/core/teams/fakes';
import type { Emulator } from '../../../src-main/emulator';
import { runCli } from '../../helpers/cli';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { addMember, startHubReplica, stopAll, useHubDatabase, type HubReplica } from './support';

describe('agent labels in the hub config', () => {
  const hub = useHubDatabase('cc-hub-labels-');

  it('two replicas change one agent’s labels at once and both changes are kept; a row without labels loads; a bad label writes nothing', async () => {
    const config = postgresConfigStore(hub.db, hub.server.url);
    const svc = fakeService({ k1: ['a1', 'a2'] });
    const secrets = new MemorySecretStore();
    const open = (n: string) =>
      TeamStore.open({ configDir: path.join(hub.dir, n), secrets, clientFactory: svc.factory, configStore: config });
    const [a, b] = await Promise.all([open('a'), open('b')]);
    const team = await a.addTeam({
      label: 'Support',
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'k1',
      agents: [{ agentId: 'a1' }],
    });
    await b.addAgent(team.id, { agentId: 'a2', labels: ['EU', 'vip'] });

    // Each replica adds labels of its own to a1 at the same time: a compare-and-swap redoes the loser's change
    // on what the winner wrote.
    await Promise.all([
      ...['x1', 'x2', 'x3'].map((l) => a.setAgentLabels(team.id, 'a1', { add: [l] })),
      ...['y1', 'y2', 'y3'].map((l) => b.setAgentLabels(team.id, 'a1', { add: [l] })),
    ]);
    await a.refresh();
    expect(a.findTeam(team.id)!.agents.map((x) => [x.agentId, x.labels])).toEqual([
      ['a1', ['x1', 'x2', 'x3', 'y1', 'y2', 'y3']],
      ['a2', ['eu', 'vip']],
    ]);
    const row = await hub.db.selectFrom('hub_config').select('config').executeTakeFirstOrThrow();
    expect((row.config as ConfigFile).teams[0]!.agents.map((x) => x.labels)).toEqual([
      ['x1', 'x2', 'x3', 'y1', 'y2', 'y3'],
      ['eu', 'vip'],
    ]);

    // A bad label: refused, naming it; the row's version does not move.
    const before = (await config.read())!.version;
    await expect(b.setAgentLabels(team.id, 'a2', { add: ['ok', 'Not OK'] })).rejects.toThrow(/"Not OK"/);
    expect((await config.read())!.version).toBe(before);

    // A row written by a hub before labels: its agents load with none, and a change writes them.
    const stored = (await config.read())!;
    const old = structuredClone(stored.config) as unknown as { teams: Array<{ agents: Array<{ labels?: string[] }> }> };
    for (const t of old.teams) for (const x of t.agents) delete x.labels;
    expect(await config.write(old as unknown as ConfigFile, stored.version)).not.toBeNull();
    const c = await open('c');
    expect(c.findTeam(team.id)!.agents.map((x) => x.labels)).toEqual([[], []]);
    expect((await c.setAgentLabels(team.id, 'a2', { labels: ['back'] })).labels).toEqual(['back']);
    await b.refresh();
    expect(b.findTeam(team.id)!.agents[1]!.labels).toEqual(['back']);
    await Promise.all([a.close(), b.close(), c.close()]);
  }, 60_000);

  describe('through two replicas', () => {
    let emu: Emulator;
    let replicas: HubReplica[] = [];
    const tokens: Record<string, string> = {};
    const client = (origin: string, token: string, args: string[], env: Record<string, string> = {}) =>
      runCli(args, {
        configDir: path.join(hub.dir, 'laptop'),
        env: { CHANNEL_HUB_URL: origin, CHANNEL_HUB_TOKEN: token, ...env },
      });

    beforeAll(async () => {
      emu = await startTestEmulator();
      const secretKey = randomBytes(32).toString('base64');
      tokens.ada = await addMember(hub.server.url, 'ada', 'admin');
      tokens.dev = await addMember(hub.server.url, 'dev', 'developer');
      replicas = await Promise.all(
        ['r1', 'r2'].map((name) => startHubReplica({ databaseUrl: hub.server.url, secretKey, dir: hub.dir, name })),
      );
    }, 120_000);

    afterAll(async () => {
      await stopAll(
        replicas.map((r) => r.proc),
        'SIGTERM',
      );
      await emu?.close();
    }, 60_000);

    it('agent label at one replica, status --with-label at the other; a developer may not label', async () => {
      const [r1, r2] = replicas as [HubReplica, HubReplica];
      const add = await client(
        r1.origin,
        tokens.ada!,
        ['team', 'add', '--label', 'Desk', '--base-url', emu.baseUrl, '--agent', 'agent-connected', '--json'],
        { CHANNEL_API_KEY: DEMO_KEY },
      );
      expect(add.code, add.stderr).toBe(0);
      const more = await client(r2.origin, tokens.ada!, [
        'agent',
        'add',
        '--team',
        'Desk',
        '--agent',
        'agent-flaky',
        '--labels',
        'EU',
        '--json',
      ]);
      expect(more.code, more.stderr).toBe(0);
      expect(more.json()[0]).toMatchObject({ agentId: 'agent-flaky', labels: ['eu'] });

      const label = await client(r1.origin, tokens.ada!, [
        'agent',
        'label',
        '--team',
        'Desk',
        '--agent',
        'agent-connected',
        '--add',
        'eu,VIP',
        '--json',
      ]);
      expect(label.code, label.stderr).toBe(0);
      expect(label.json()[0]).toMatchObject({ agentId: 'agent-connected', labels: ['eu', 'vip'] });

      const found = await client(r2.origin, tokens.ada!, ['status', '--team', 'Desk', '--with-label', 'vip', '--json']);
      expect(found.code, found.stderr).toBe(0);
      expect(found.json()[0]).toMatchObject({
        withLabels: ['vip'],
        agents: [{ agentId: 'agent-connected', labels: ['eu', 'vip'] }],
      });
      const both = await client(r2.origin, tokens.dev!, ['agent', 'list', '--team', 'Desk', '--json']);
      expect(both.json().map((a) => [a.agentId, a.labels])).toEqual([
        ['agent-connected', ['eu', 'vip']],
        ['agent-flaky', ['eu']],
      ]);

      const refused = await client(r2.origin, tokens.dev!, [
        'agent',
        'label',
        '--team',
        'Desk',
        '--agent',
        'agent-flaky',
        '--add',
        'mine',
      ]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/admin/);
      const bad = await client(r1.origin, tokens.ada!, [
        'agent',
        'label',
        '--team',
        'Desk',
        '--agent',
        'agent-flaky',
        '--add',
        'no/slash',
      ]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('"no/slash"');
      const after = await client(r1.origin, tokens.ada!, ['agent', 'list', '--team', 'Desk', '--json']);
      expect(after.json().find((a) => a.agentId === 'agent-flaky')).toMatchObject({ labels: ['eu'] });
    }, 120_000);
  });
});
