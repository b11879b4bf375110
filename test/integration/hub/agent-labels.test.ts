// An agent's labels on a hub: they live in the shared config row (hub_config) like the rest of an agent, with no
// code of the hub's own. Two replicas' team stores on one real Postgres keep each other's label changes, a row
// written before labels loads, and a bad label writes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { postgresConfigStore } from '../../../src-main/app/hub/config';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { TeamStore } from '../../../src-main/core/teams';
import type { ConfigFile } from '../../../src-main/core/teams/schema';
import { fakeService } from '../../unit/core/teams/fakes';
import { startPostgres, type TestPostgres } from './postgres';

describe('agent labels in the hub config', () => {
  let server: TestPostgres;
  let db: HubDatabase;
  let dir: string;

  beforeAll(async () => {
    server = await startPostgres();
    db = openHubDatabase(server.url);
    await migrateHub(db);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-labels-'));
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('two replicas change one agent’s labels at once and both changes are kept; a row without labels loads; a bad label writes nothing', async () => {
    const config = postgresConfigStore(db, server.url);
    const svc = fakeService({ k1: ['a1', 'a2'] });
    const secrets = new MemorySecretStore();
    const open = (n: string) =>
      TeamStore.open({ configDir: path.join(dir, n), secrets, clientFactory: svc.factory, configStore: config });
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
    const row = await db.selectFrom('hub_config').select('config').executeTakeFirstOrThrow();
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
});
