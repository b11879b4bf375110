// Rotating the key that encrypts the hub's secrets at rest, on a real Postgres with replicas as real processes:
// each row records the id of the key that sealed it; a replica given the new key as current and the old one as
// previous reads everything; `hub rotate-key` re-seals every secret and the check value under the current key in
// one transaction while that replica runs; afterwards the old key alone is refused at start in words that name the
// key id it lacks, and the new key alone serves. No key, API key or signing secret appears in any output.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateHub, openHubDatabase, type HubDatabase } from '../../../src-main/app/hub/database';
import { PostgresSecretStore, secretKeyId } from '../../../src-main/app/hub/secrets';
import type { Emulator } from '../../../src-main/emulator';
import { runCli } from '../../helpers/cli';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, hubCall, startHubReplica, stopAll, type HubReplica } from './support';

const SIGNING_SECRET = 'whsec_rotation-signing-secret-0123456789';
const AGENT = 'agent-connected';

describe('hub secret key rotation', () => {
  let server: TestPostgres;
  let db: HubDatabase;
  let emu: Emulator;
  let dir: string;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldId = secretKeyId(oldKey);
  const newId = secretKeyId(newKey);
  /** Every output of every command and replica, checked at the end for key material and secrets. */
  const outputs: string[] = [];
  const replicas: HubReplica[] = [];
  let admin: string;
  let teamId: string;

  const keyIds = async (): Promise<Array<{ account: string; key_id: string | null }>> =>
    db.selectFrom('hub_secrets').select(['account', 'key_id']).orderBy('account').execute();
  const replica = async (name: string, key: Buffer, env: Record<string, string> = {}, args: string[] = []) => {
    const r = await startHubReplica({
      databaseUrl: server.url,
      secretKey: key.toString('base64'),
      dir,
      name,
      pollSec: 60,
      env,
      args,
    });
    replicas.push(r);
    return r;
  };
  const reveal = async (r: HubReplica): Promise<string> =>
    (await hubCall<{ secret: string }>(r.origin, admin, 'webhook.revealSecret', { teamId, agentId: AGENT })).secret;
  const hubCli = async (args: string[], env: Record<string, string>) => {
    const run = await runCli(['hub', ...args], { env: { DATABASE_URL: server.url, ...env } });
    outputs.push(run.stdout, run.stderr);
    return run;
  };

  beforeAll(async () => {
    [server, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    db = openHubDatabase(server.url);
    await migrateHub(db);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-rotate-'));
    admin = await addMember(server.url, 'ada', 'admin');
  }, 60_000);

  afterAll(async () => {
    await stopAll(replicas.map((r) => r.proc));
    await db?.destroy();
    await emu?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('every secret records the id of the key that sealed it (a fingerprint, not the key)', async () => {
    const first = await replica('first', oldKey);
    const added = await hubCall<{ teamId: string }>(first.origin, admin, 'teams.add', {
      label: 'Support',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: AGENT }],
    });
    teamId = added.teamId;
    await new PostgresSecretStore(db, oldKey).set(`team:${teamId}:agent:${AGENT}:signing-secret`, SIGNING_SECRET);
    expect(await reveal(first)).toBe(SIGNING_SECRET);
    await stopAll([first.proc], 'SIGTERM');
    outputs.push(first.proc.stdout(), first.proc.stderr());

    const rows = await keyIds();
    expect(rows.length).toBeGreaterThanOrEqual(3); // the check value, the API key, the signing secret
    expect(rows.every((r) => r.key_id === oldId)).toBe(true);
    expect(oldId).toMatch(/^[0-9a-f]{16}$/);
    expect(newId).not.toBe(oldId);
    for (const k of [oldKey.toString('hex'), oldKey.toString('base64')]) expect(k).not.toContain(oldId);

    // A row sealed before key ids were kept: the next start names it by the key that opens it.
    await db
      .updateTable('hub_secrets')
      .set({ key_id: null })
      .where('account', '=', `team:${teamId}:agent:${AGENT}:signing-secret`)
      .execute();
  }, 90_000);

  it('a replica with the new key as current and the old one as previous reads everything and seals with the new one', async () => {
    const both = await replica('both', newKey, { CHANNEL_HUB_PREVIOUS_SECRET_KEYS: oldKey.toString('base64') });
    expect((await keyIds()).every((r) => r.key_id === oldId)).toBe(true);
    expect(await reveal(both)).toBe(SIGNING_SECRET);
    // The team's API key, read under the old key: the replica reaches the service with it.
    const agents = await hubCall<Array<{ agentId: string }>>(both.origin, admin, 'agents.list', { teamId });
    expect(agents.map((a) => a.agentId)).toContain(AGENT);
    // A secret written now is sealed with the current key.
    await new PostgresSecretStore(db, newKey, [oldKey]).set('team:x:api-key', 'written-during-the-rollout-0001');
    expect((await keyIds()).find((r) => r.account === 'team:x:api-key')?.key_id).toBe(newId);
  }, 90_000);

  it('rotate-key refuses without a key some row needs, naming its id, and changes nothing', async () => {
    const before = await db.selectFrom('hub_secrets').selectAll().orderBy('account').execute();
    const run = await hubCli(['rotate-key', '--json'], { CHANNEL_HUB_SECRET_KEY: newKey.toString('base64') });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(oldId);
    expect(run.stderr).toContain('encrypted with another key');
    expect(await db.selectFrom('hub_secrets').selectAll().orderBy('account').execute()).toEqual(before);
  }, 30_000);

  it('rotate-key re-seals every secret and the check value under the current key while a replica runs', async () => {
    const [running] = replicas.slice(-1) as [HubReplica];
    const file = path.join(dir, 'previous.key');
    await writeFile(file, `${oldKey.toString('hex')}\n`);
    const secrets = (await keyIds()).filter((r) => r.account !== '').length;
    const run = await hubCli(['rotate-key', '--previous-secret-key-file', file, '--json'], {
      CHANNEL_HUB_SECRET_KEY: newKey.toString('base64'),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()[0]).toEqual({ resealed: secrets, keyId: newId });
    expect((await keyIds()).every((r) => r.key_id === newId)).toBe(true);
    // The replica that runs with both keys reads the re-sealed rows on.
    expect(await reveal(running)).toBe(SIGNING_SECRET);
    expect(await new PostgresSecretStore(db, newKey).get('team:x:api-key')).toBe('written-during-the-rollout-0001');
    await stopAll([running.proc], 'SIGTERM');
    outputs.push(running.proc.stdout(), running.proc.stderr());
  }, 90_000);

  it('after the rotation the old key alone is refused, naming the key id it lacks; the new key alone serves', async () => {
    const old = await hubCli(
      ['--json', '--port', '0', '--config-dir', path.join(dir, 'old'), '--data-dir', path.join(dir, 'old-data')],
      { CHANNEL_HUB_SECRET_KEY: oldKey.toString('base64') },
    );
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(`the key whose id is ${newId}`);
    expect(old.stdout).not.toContain('"ready"');

    const only = await replica('new-only', newKey);
    expect(await reveal(only)).toBe(SIGNING_SECRET);
    await stopAll([only.proc], 'SIGTERM');
    outputs.push(only.proc.stdout(), only.proc.stderr());

    // No key material and no secret in any output.
    expect(outputs.join('').length).toBeGreaterThan(100);
    for (const text of outputs)
      for (const bad of [
        oldKey.toString('base64'),
        newKey.toString('base64'),
        oldKey.toString('hex'),
        newKey.toString('hex'),
        DEMO_KEY,
        SIGNING_SECRET,
      ])
        expect(text).not.toContain(bad);
  }, 90_000);
});
