// A window connected to a team's hub (the desktop app, the browser host) knows the member's role and the hub's
// public URL from hub.status, so its screens disable what the role does not allow and speak of the hub's
// receiver. A refusal that still comes (the member's role changed in the hub's database while connected) is
// said in the member's words, and hub.status then says the role now held. A real hub on a real Postgres.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src-main/app/handlers';
import { hubSwitchable } from '../../../src-main/app/hub-connection';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember, localContract, sqlRows, startHubReplica, stopAll, type HubReplica } from './support';

const PUBLIC_URL = 'https://hub.example.test';

describe('a window connected to a hub knows the member’s role', () => {
  let db: TestPostgres;
  let dir: string;
  let hub: HubReplica;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    db = await startPostgres();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-window-roles-'));
    tokens.vic = await addMember(db.url, 'vic', 'viewer');
    tokens.dev = await addMember(db.url, 'dev', 'developer');
    hub = await startHubReplica({
      databaseUrl: db.url,
      secretKey: randomBytes(32).toString('base64'),
      dir,
      name: 'hub',
      publicUrl: PUBLIC_URL,
    });
  }, 120_000);

  afterAll(async () => {
    await stopAll(hub ? [hub.proc] : []);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('hub.status carries the member, the role and the public URL; a refusal reads in the member’s words', async () => {
    const windows = await hubSwitchable(localContract(), {
      configDir: path.join(dir, 'vic-desktop'),
      secrets: new MemorySecretStore(),
    });
    const h = createHandlers(windows.implementations);
    expect(await h['hub.connect']({ url: hub.origin, token: tokens.vic! })).toEqual({
      ok: true,
      value: { url: hub.origin, member: 'vic', role: 'viewer', publicUrl: PUBLIC_URL, problem: null },
    });
    expect(await h['alerts.acknowledge']({ incidentId: 'none' })).toMatchObject({
      ok: false,
      error: {
        kind: 'forbidden',
        code: 'ROLE_FORBIDDEN',
        message: "Your role (viewer) can't acknowledge incidents — ask a hub admin for the on-call role or above.",
      },
    });
    windows.dispose();
  }, 60_000);

  it('a role changed while connected: the refusal names the role now held, and hub.status says it', async () => {
    const windows = await hubSwitchable(localContract(), {
      configDir: path.join(dir, 'dev-desktop'),
      secrets: new MemorySecretStore(),
    });
    const h = createHandlers(windows.implementations);
    expect(await h['hub.connect']({ url: hub.origin, token: tokens.dev! })).toMatchObject({
      ok: true,
      value: { member: 'dev', role: 'developer' },
    });
    await sqlRows(db.url, "UPDATE hub_members SET role = 'viewer' WHERE name = 'dev'");
    const send = await h['send.message']({ teamId: 't', agentId: 'a', to: '+15550102000', text: 'hi' });
    expect(send).toMatchObject({
      ok: false,
      error: {
        code: 'ROLE_FORBIDDEN',
        message: "Your role (viewer) can't send messages — ask a hub admin for the developer role or above.",
      },
    });
    expect(await h['hub.status']({})).toMatchObject({ ok: true, value: { member: 'dev', role: 'viewer' } });
    windows.dispose();
  }, 60_000);
});
