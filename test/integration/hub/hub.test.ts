// `channel-companion hub` against a real Postgres (Debian's, started by this file): migrations, members,
// and the contract over HTTP for members only — 401 without a present member's token, 403 beyond the
// member's role (before the handler runs), /healthz and /readyz — and no token hash in any output.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../helpers/cli';
import { startPostgres, type TestPostgres } from './postgres';

describe('hub', () => {
  let db: TestPostgres;
  let dir: string;
  const outputs: string[] = [];
  const tokens: string[] = [];
  /** The key of the stored secrets: the same for every hub started on this database. */
  const key = randomBytes(32).toString('base64');

  const cli = async (args: string[], env: Record<string, string> = {}): Promise<CliRun> => {
    const r = await runCli(args, { env: { DATABASE_URL: db.url, ...env } });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const addMember = async (name: string, role: string): Promise<string> => {
    const r = await cli(['hub', 'member', 'add', name, '--role', role, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const token = (r.json()[0] as { token: string }).token;
    tokens.push(token);
    return token;
  };

  beforeAll(async () => {
    db = await startPostgres();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-'));
  }, 60_000);

  afterAll(async () => {
    // No output, and no answer of the hub, holds a token's hash.
    const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
    for (const text of outputs) for (const h of hashes) expect(text).not.toContain(h);
    await db?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('migrate: the first run creates the schema, the second finds it up to date', async () => {
    const first = await cli(['hub', 'migrate', '--database', db.url, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const ran = (first.json()[0] as { migrated: string[] }).migrated;
    expect(ran[0]).toBe('0001_members_and_audit');
    expect(ran).toContain('0003_events');
    const second = await cli(['hub', 'migrate', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json()).toEqual([{ migrated: [] }]);
  });

  it('migrate: without a database URL it says how to give one; a URL that is not postgres:// is refused', async () => {
    const none = await runCli(['hub', 'migrate'], { env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('DATABASE_URL');
    const bad = await runCli(['hub', 'migrate', '--database', 'mysql://u:hunter2@h/db'], { env: {} });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('postgres://');
    expect(bad.stderr).not.toContain('hunter2');
  });

  it('member add prints a token once, list shows names and roles, remove takes the member away', async () => {
    const token = await addMember('carol', 'on-call');
    expect(token).toMatch(/^cch_[A-Za-z0-9_-]{43}$/);
    const again = await cli(['hub', 'member', 'add', 'carol', '--role', 'viewer']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    const badRole = await cli(['hub', 'member', 'add', 'dave', '--role', 'owner']);
    expect(badRole.code).toBe(2);
    // A name that breaks the rule is bad input (exit 2), said with the rule.
    const badName = await cli(['hub', 'member', 'add', 'dave smith', '--role', 'viewer']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('a member name is 1 to 64 letters');

    const list = await cli(['hub', 'member', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const members = (list.json()[0] as { members: Array<Record<string, unknown>> }).members;
    const carol = members.find((m) => m.name === 'carol');
    expect(carol).toMatchObject({ name: 'carol', role: 'on-call' });
    expect(Object.keys(carol!).sort()).toEqual(['createdAt', 'name', 'role']);
    expect(list.stdout).not.toContain(token);

    const removed = await cli(['hub', 'member', 'remove', 'carol']);
    expect(removed.code, removed.stderr).toBe(0);
    const after = await cli(['hub', 'member', 'list', '--json']);
    expect((after.json()[0] as { members: Array<{ name: string }> }).members.map((m) => m.name)).not.toContain('carol');
    expect((await cli(['hub', 'member', 'remove', 'carol'])).code).toBe(1);
    // The name may be given again, with a new token.
    expect(await addMember('carol', 'viewer')).not.toBe(token);
  });

  it('a port already taken is said as such, not as a fault of the database', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await cli(
        [
          'hub',
          '--port',
          String(port),
          '--config-dir',
          path.join(dir, 'taken-config'),
          '--data-dir',
          path.join(dir, 'taken'),
        ],
        { CHANNEL_HUB_SECRET_KEY: key },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the hub could not listen on 127.0.0.1:${port}: the port is taken by`);
      expect(r.stderr).not.toContain('database');
    } finally {
      await new Promise((r) => holder.close(r));
    }
  }, 60_000);

  it('serves the contract to members within their role; a removed member is refused and their stream ends; health and readiness', async () => {
    const viewer = await addMember('vera', 'viewer');
    const developer = await addMember('dev', 'developer');
    const stop = new AbortController();
    const seen: Record<string, unknown> = {};
    let checks: Promise<void> | null = null;
    const call = async (origin: string, name: string, token: string | null, body: unknown = {}) => {
      const res = await fetch(`${origin}/api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      outputs.push(text);
      return { status: res.status, body: JSON.parse(text) as { ok: boolean; error?: { code: string } } };
    };
    const run = runCli(
      [
        'hub',
        '--json',
        '--port',
        '0',
        '--public-url',
        'https://hub.example.test',
        '--config-dir',
        path.join(dir, 'config'),
        '--data-dir',
        path.join(dir, 'data'),
      ],
      {
        env: { DATABASE_URL: db.url, CHANNEL_HUB_SECRET_KEY: key },
        signal: stop.signal,
        onStdout: (_c, all) => {
          if (checks || !all.includes('\n')) return;
          const ready = JSON.parse(all.split('\n')[0]!) as { origin: string };
          const o = ready.origin;
          checks = (async () => {
            seen.healthz = (await fetch(`${o}/healthz`)).status;
            seen.readyz = (await fetch(`${o}/readyz`)).status;
            seen.noToken = await call(o, 'teams.list', null);
            seen.wrongToken = await call(o, 'teams.list', `cch_${'x'.repeat(43)}`);
            seen.viewerList = await call(o, 'teams.list', viewer);
            seen.viewerSend = await call(o, 'send.message', viewer, {
              teamId: 't',
              agentId: 'a',
              to: '+1',
              text: 'hi',
            });
            seen.viewerRegister = await call(o, 'webhook.register', viewer, { teamId: 't', agentId: 'a' });
            // The developer may send: the handler runs and answers (here: the team does not exist).
            seen.developerSend = await call(o, 'send.message', developer, {});
            const client = new pg.Client({ connectionString: db.url });
            await client.connect();
            seen.audit = (
              await client.query<{ member: string; action: string }>(
                "select member, action from hub_audit where action not like 'member.%' order by id",
              )
            ).rows;
            await client.end();
            // The viewer's event stream is open; removing the viewer ends it.
            seen.eventsNoToken = (await fetch(`${o}/api/events`)).status;
            const stream = await fetch(`${o}/api/events`, { headers: { authorization: `Bearer ${viewer}` } });
            seen.eventsStatus = stream.status;
            const reader = stream.body!.getReader();
            await reader.read();
            const removed = await runCli(['hub', 'member', 'remove', 'vera'], { env: { DATABASE_URL: db.url } });
            seen.removedCode = removed.code;
            seen.afterRemoval = await call(o, 'teams.list', viewer);
            for (let r = await reader.read(); !r.done; r = await reader.read());
            seen.streamEnded = true;
            await db.halt();
            seen.readyzDown = (await fetch(`${o}/readyz`)).status;
            seen.healthzDown = (await fetch(`${o}/healthz`)).status;
          })().finally(() => stop.abort());
        },
      },
    );
    const r = await run;
    outputs.push(r.stdout, r.stderr);
    await checks;
    expect(r.code, r.stderr).toBe(0);
    const ready = r.json()[0] as Record<string, unknown>;
    expect(ready).toMatchObject({ event: 'ready', publicUrl: 'https://hub.example.test', migrated: [] });
    expect(r.stdout).not.toContain(db.url);

    expect(seen.healthz).toBe(200);
    expect(seen.readyz).toBe(200);
    expect(seen.noToken).toMatchObject({ status: 401, body: { ok: false, error: { code: 'BAD_TOKEN' } } });
    expect(seen.wrongToken).toMatchObject({ status: 401 });
    expect(seen.viewerList).toMatchObject({ status: 200, body: { ok: true } });
    expect(seen.viewerSend).toMatchObject({ status: 403, body: { error: { code: 'ROLE_FORBIDDEN' } } });
    expect(seen.viewerRegister).toMatchObject({ status: 403, body: { error: { code: 'ROLE_FORBIDDEN' } } });
    expect(seen.developerSend).toMatchObject({ status: 200, body: { ok: false } });
    // What a member did beyond reading is recorded with their name; refused requests never reached a handler.
    expect(seen.audit).toEqual([{ member: 'dev', action: 'send.message' }]);
    expect(seen.removedCode).toBe(0);
    expect(seen.afterRemoval).toMatchObject({ status: 401 });
    expect(seen.eventsNoToken).toBe(401);
    expect(seen.eventsStatus).toBe(200);
    expect(seen.streamEnded).toBe(true);
    expect(seen.readyzDown).toBe(503);
    expect(seen.healthzDown).toBe(200);
  }, 60_000);
});
