// A hub's secrets and teams in a real Postgres: the teams' secrets encrypted at rest (AES-256-GCM under the
// hub's key, bound to their account), a wrong or missing key refused in words that name no secret, and the
// teams (the config) one row every replica shares — written by compare-and-swap, announced with NOTIFY, so
// a team added through one replica is listed by the other within a second, after a Postgres restart too.
// Members never receive a team's API key or signing secret; an admin's reveal is recorded with their name.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSecretStore } from '../../../src-main/app/hub/secrets';
import { postgresConfigStore } from '../../../src-main/app/hub/config';
import { TeamStore } from '../../../src-main/core/teams';
import { isKeychainError } from '../../../src-main/core/secrets';
import type { Emulator } from '../../../src-main/emulator';
import { runCli, type CliRun } from '../../helpers/cli';
import { DEMO_KEY, startTestEmulator } from '../../helpers/emulator';
import { waitFor } from '../../helpers/wait';
import { fakeService } from '../../unit/core/teams/fakes';
import { addMember, useHubDatabase } from './support';

const SECRET = 'whsec_the-agents-signing-secret-0123456789';

describe('hub secrets and shared teams', () => {
  const hub = useHubDatabase('cc-hub-secrets-');
  const key = randomBytes(32);

  it('a secret round-trips; the table holds it only encrypted, under a fresh IV per write, bound to its account', async () => {
    const store = new PostgresSecretStore(hub.db, key);
    await store.probe();
    await store.set('team:t1:api-key', 'first-key-value-0001');
    await store.set('team:t1:api-key', SECRET);
    expect(await store.get('team:t1:api-key')).toBe(SECRET);
    expect(await store.get('team:t1:nothing')).toBeNull();
    await store.set('team:t2:api-key', SECRET);

    const rows = await hub.db.selectFrom('hub_secrets').selectAll().where('account', 'like', 'team:%').execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.iv).toHaveLength(12);
      expect(row.tag).toHaveLength(16);
      for (const column of [row.iv, row.ciphertext, row.tag]) {
        expect(column.toString('latin1')).not.toContain(SECRET);
        expect(column.toString('hex')).not.toContain(Buffer.from(SECRET).toString('hex'));
        expect(column.toString('base64')).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 20));
      }
    }
    // The same secret under two accounts: two IVs, two ciphertexts.
    expect(rows[0]!.iv.equals(rows[1]!.iv)).toBe(false);
    expect(rows[0]!.ciphertext.equals(rows[1]!.ciphertext)).toBe(false);

    // A row copied under another account does not decrypt (the account is authenticated data).
    const t1 = rows.find((r) => r.account === 'team:t1:api-key')!;
    await hub.db
      .insertInto('hub_secrets')
      .values({ account: 'team:t3:api-key', iv: t1.iv, ciphertext: t1.ciphertext, tag: t1.tag })
      .execute();
    const moved = await store.get('team:t3:api-key').catch((e: unknown) => e);
    expect(isKeychainError(moved)).toBe(true);

    expect(await store.delete('team:t3:api-key')).toBe(true);
    expect(await store.delete('team:t3:api-key')).toBe(false);
    expect(await store.get('team:t3:api-key')).toBeNull();
  });

  it('a wrong key is refused at the probe and at a read, in words that name no secret', async () => {
    const wrong = new PostgresSecretStore(hub.db, randomBytes(32));
    const probe = await wrong.probe().catch((e: unknown) => e);
    const read = await wrong.get('team:t1:api-key').catch((e: unknown) => e);
    for (const e of [probe, read]) {
      expect(isKeychainError(e)).toBe(true);
      expect((e as Error).message).toContain('encrypted with another key');
      expect((e as Error).message).not.toContain(SECRET);
    }
    // The right key still reads it: the wrong one wrote nothing.
    await new PostgresSecretStore(hub.db, key).probe();
    expect(await new PostgresSecretStore(hub.db, key).get('team:t1:api-key')).toBe(SECRET);
  });

  it('the shared config is written by compare-and-swap: a stale version writes nothing, and no concurrent change is lost', async () => {
    const config = postgresConfigStore(hub.db, hub.server.url);
    const svc = fakeService({ k1: ['a1'] });
    const secrets = new PostgresSecretStore(hub.db, key);
    const open = (n: string) =>
      TeamStore.open({ configDir: path.join(hub.dir, n), secrets, clientFactory: svc.factory, configStore: config });
    const [a, b] = await Promise.all([open('cas-a'), open('cas-b')]);
    // Both opened on one database: one wrote the first config, the other read it.
    expect(a.settings().installId).toBe(b.settings().installId);
    const now = (await config.read())!;
    expect(await config.write(now.config, now.version - 1)).toBeNull();
    expect((await config.read())!.version).toBe(now.version);

    const adds = Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? a : b).addTeam({
        label: `T${i}`,
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'k1',
        agents: [{ agentId: 'a1' }],
      }),
    );
    await Promise.all(adds);
    await a.refresh();
    expect(
      a
        .listTeams()
        .map((t) => t.label)
        .sort(),
    ).toEqual(['T0', 'T1', 'T2', 'T3', 'T4', 'T5']);
    await Promise.all(a.listTeams().map((t) => a.removeTeam(t.id)));
    await Promise.all([a.close(), b.close()]);
  });

  it('the hub refuses to start without a key, with a malformed one, or with another key than its secrets were written with', async () => {
    const base = [
      'hub',
      '--json',
      '--config-dir',
      path.join(hub.dir, 'refused'),
      '--data-dir',
      path.join(hub.dir, 'refused-data'),
    ];
    const none = await runCli(base, { env: { DATABASE_URL: hub.server.url } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('CHANNEL_HUB_SECRET_KEY');
    expect(none.stderr).toContain('openssl rand -base64 32');

    const short = randomBytes(12).toString('base64');
    const bad = await runCli(base, { env: { DATABASE_URL: hub.server.url, CHANNEL_HUB_SECRET_KEY: short } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a 32-byte key');
    expect(bad.stderr).not.toContain(short);

    const file = path.join(hub.dir, 'other.key');
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`);
    const wrong = await runCli([...base, '--secret-key-file', file], { env: { DATABASE_URL: hub.server.url } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('encrypted with another key');
    expect(wrong.stderr).not.toContain(SECRET);
    expect(wrong.stdout).not.toContain('"ready"');
  });

  describe('two replicas on one database', () => {
    let emu: Emulator;
    const outputs: string[] = [];

    interface Replica {
      origin: string;
      done: Promise<CliRun>;
      stop: AbortController;
    }
    const startReplica = async (name: string): Promise<Replica> => {
      const stop = new AbortController();
      let ready: (origin: string) => void;
      const origin = new Promise<string>((r) => (ready = r));
      const done = runCli(
        [
          'hub',
          '--json',
          '--poll-sec',
          '60',
          '--config-dir',
          path.join(hub.dir, name),
          '--data-dir',
          path.join(hub.dir, `${name}-data`),
        ],
        {
          env: { DATABASE_URL: hub.server.url, CHANNEL_HUB_SECRET_KEY: key.toString('base64') },
          signal: stop.signal,
          onStdout: (_c, all) => {
            const line = all.split('\n')[0]!;
            if (all.includes('\n')) ready((JSON.parse(line) as { origin: string }).origin);
          },
        },
      );
      void done.then((r) => ready(`failed: ${r.stderr}`));
      const o = await origin;
      if (!o.startsWith('http')) throw new Error(o);
      return { origin: o, done, stop };
    };
    const token = (name: string, role: string): Promise<string> => addMember(hub.server.url, name, role);
    const call = async (origin: string, name: string, bearer: string, body: unknown = {}) => {
      const res = await fetch(`${origin}/api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      outputs.push(text);
      return JSON.parse(text) as { ok: boolean; value?: unknown; error?: { code: string; message: string } };
    };
    const labels = async (origin: string, bearer: string): Promise<string[]> => {
      const r = await call(origin, 'teams.list', bearer);
      return r.ok ? (r.value as Array<{ label: string }>).map((t) => t.label) : [];
    };

    beforeAll(async () => {
      emu = await startTestEmulator();
    });
    afterAll(async () => {
      await emu?.close();
    });

    it('a team added through one is listed by the other within a second, after a Postgres restart too; members never receive its secrets', async () => {
      const admin = await token('ada', 'admin');
      const viewer = await token('val', 'viewer');
      const a = await startReplica('replica-a');
      const b = await startReplica('replica-b');
      try {
        const added = await call(a.origin, 'teams.add', admin, {
          label: 'Support',
          baseUrl: emu.baseUrl,
          apiKey: DEMO_KEY,
          agents: [{ agentId: 'agent-connected' }],
        });
        expect(added.ok, JSON.stringify(added.error)).toBe(true);
        // Nothing reads the config on a timer: the team reaches b only by the NOTIFY of a's write.
        await waitFor(async () => (await labels(b.origin, viewer)).includes('Support'), 5_000, 'the team on b');

        // The key is in the database, encrypted: replica b reaches the service with it.
        const teamId = (added.value as { teamId: string }).teamId;
        const agents = await call(b.origin, 'agents.list', viewer, { teamId });
        expect(agents.ok, JSON.stringify(agents.error)).toBe(true);

        // A signing secret stored for the agent: revealed to an admin (recorded), never sent otherwise.
        await new PostgresSecretStore(hub.db, key).set(`team:${teamId}:agent:agent-connected:signing-secret`, SECRET);
        const reveal = await call(b.origin, 'webhook.revealSecret', admin, { teamId, agentId: 'agent-connected' });
        expect(reveal, JSON.stringify(reveal.error)).toMatchObject({ ok: true, value: { secret: SECRET } });
        outputs.pop();
        const recorded = await hub.db
          .selectFrom('hub_audit')
          .select(['member', 'subject'])
          .where('action', '=', 'webhook.secretRevealed')
          .execute();
        expect(recorded).toEqual([{ member: 'ada', subject: `${teamId} agent-connected` }]);
        expect((await call(a.origin, 'webhook.revealSecret', viewer, { teamId, agentId: 'agent-connected' })).ok).toBe(
          false,
        );
        for (const origin of [a.origin, b.origin])
          for (const [name, args] of [
            ['teams.list', {}],
            ['agents.list', {}],
            ['health.snapshot', {}],
            ['settings.get', {}],
            ['webhook.history', { teamId, agentId: 'agent-connected' }],
            ['tunnel.status', {}],
            ['app.ping', {}],
          ] as const)
            await call(origin, name, viewer, args);

        // Postgres restarts: each replica listens again, and a change made through b reaches a.
        await hub.server.halt();
        await hub.server.resume();
        await waitFor(
          async () => (await call(b.origin, 'teams.update', admin, { teamId, label: 'Support desk' })).ok,
          15_000,
          'the database back',
        );
        await waitFor(async () => (await labels(a.origin, viewer)).includes('Support desk'), 5_000, 'the change on a');
      } finally {
        a.stop.abort();
        b.stop.abort();
        for (const r of await Promise.all([a.done, b.done])) {
          outputs.push(r.stdout, r.stderr);
          expect(r.code, r.stderr).toBe(0);
        }
      }
      // No answer to a member and no line of the hub's output holds the API key or the signing secret.
      expect(outputs.length).toBeGreaterThan(10);
      for (const text of outputs) {
        expect(text).not.toContain(DEMO_KEY);
        expect(text).not.toContain(SECRET);
      }
    }, 90_000);
  });
});
