// The CLI as a client of a team's hub (CHANNEL_HUB_URL + CHANNEL_HUB_TOKEN, or --hub): a real hub on a real
// Postgres, the emulator as the service. The commands act on the hub's companion, not this folder's: a team
// added through the hub, its status, the agent's webhook pointed at the hub's public URL (--register-url
// self); the hub's refusals read as what they mean (a viewer's send: 403 naming the role; a removed member's
// token: 401); and what only runs here (up, serve) refuses a hub.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import type { CompanionContract } from '../../../src-main/app/contract';
import { createHandlers, type Implementations } from '../../../src-main/app/handlers';
import { hubSwitchable } from '../../../src-main/app/hub-connection';
import { REQUEST_NAMES, type AnyEvent } from '../../../src-shared/contract';
import type { Emulator } from '../../../src-main/emulator';
import { runCli, runCliUntil, type CliRun } from '../../helpers/cli';
import { startHttpSink } from '../../helpers/http-sink';
import { DEMO_KEY, startTestEmulator, state } from '../../helpers/emulator';
import { startPostgres, type TestPostgres } from './postgres';
import { addMember } from './support';

const AGENT = 'agent-connected';

/** This machine's companion as a window sees it: no teams, a ping, events a test publishes. */
function localContract(): { contract: CompanionContract; publish(e: AnyEvent): void } {
  const impl = {} as Record<string, (args: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES)
    impl[name] = async () => {
      throw new Error(`${name}: not asked of this machine in this test`);
    };
  impl['teams.list'] = async () => [];
  impl['app.ping'] = async () => ({ at: 1, upSince: 1 });
  const listeners = new Set<(e: AnyEvent) => void>();
  return {
    contract: {
      implementations: impl as unknown as Implementations,
      events: { onAny: (fn) => (listeners.add(fn), () => listeners.delete(fn)) },
      now: () => Date.now(),
      setScreenLocked: () => undefined,
      dispose: () => undefined,
    },
    publish: (e) => listeners.forEach((fn) => fn(e)),
  };
}
const PUBLIC_URL = 'https://hub.example.test';

describe('clients of a hub', () => {
  let db: TestPostgres;
  let emu: Emulator;
  let dir: string;
  let origin: string;
  const stopHub = new AbortController();
  let hubRun: Promise<CliRun>;
  const tokens: Record<string, string> = {};

  const member = async (name: string, role: string): Promise<string> =>
    (tokens[name] = await addMember(db.url, name, role));
  /** A command of a teammate's laptop: its own (empty) config folder, the hub in the environment. */
  const client = (args: string[], token: string | undefined, env: Record<string, string> = {}) =>
    runCli(args, {
      configDir: path.join(dir, 'laptop'),
      env: { CHANNEL_HUB_URL: origin, ...(token !== undefined ? { CHANNEL_HUB_TOKEN: token } : {}), ...env },
    });

  beforeAll(async () => {
    [db, emu] = await Promise.all([startPostgres(), startTestEmulator()]);
    dir = await mkdtemp(path.join(tmpdir(), 'cc-hub-clients-'));
    await member('ada', 'admin');
    await member('vic', 'viewer');
    await member('rem', 'developer');
    await member('dana', 'developer');
    let ready: (o: string) => void;
    const readyOrigin = new Promise<string>((r) => (ready = r));
    hubRun = runCli(
      [
        'hub',
        '--json',
        '--public-url',
        PUBLIC_URL,
        '--config-dir',
        path.join(dir, 'hub-config'),
        '--data-dir',
        path.join(dir, 'hub-data'),
      ],
      {
        // The key that encrypts the teams' secrets at rest (a hub with secrets in Postgres reads it).
        env: { DATABASE_URL: db.url, CHANNEL_HUB_SECRET_KEY: randomBytes(32).toString('base64') },
        secretStore: new MemorySecretStore(),
        signal: stopHub.signal,
        onStdout: (_c, all) => {
          if (all.includes('\n')) ready((JSON.parse(all.split('\n')[0]!) as { origin: string }).origin);
        },
      },
    );
    origin = await Promise.race([
      readyOrigin,
      hubRun.then((r) => {
        throw new Error(`the hub stopped: ${r.stderr}`);
      }),
    ]);
  }, 90_000);

  afterAll(async () => {
    stopHub.abort();
    const r = await hubRun;
    // No token is ever printed by the hub.
    for (const t of Object.values(tokens)) expect(r.stdout + r.stderr).not.toContain(t);
    await Promise.allSettled([db?.stop(), emu?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('team add, status and team list act on the hub, within the member’s role', async () => {
    const add = await client(
      ['team', 'add', '--label', 'Support', '--base-url', emu.baseUrl, '--agent', AGENT, '--json'],
      tokens.ada,
      { CHANNEL_API_KEY: DEMO_KEY },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.json()[0]).toMatchObject({ label: 'Support', baseUrl: emu.baseUrl });
    expect(add.stdout + add.stderr).not.toContain(DEMO_KEY);
    // Saved on the hub: this laptop's folder holds nothing.
    expect(existsSync(path.join(dir, 'laptop', 'config.json'))).toBe(false);

    const status = await client(['status', '--team', 'Support', '--json'], tokens.vic);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()[0]).toMatchObject({ agentId: AGENT });

    const list = await client(['team', 'list', '--json'], tokens.vic);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((t) => t.label)).toEqual(['Support']);
    // --hub names the hub when the environment does not.
    const flag = await runCli(['team', 'list', '--json', '--hub', origin], {
      configDir: path.join(dir, 'laptop'),
      env: { CHANNEL_HUB_TOKEN: tokens.vic! },
    });
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.json().map((t) => t.label)).toEqual(['Support']);
  }, 60_000);

  it('webhook set --register-url self points the agent at the hub’s public URL', async () => {
    const r = await client(
      ['webhook', 'set', '--team', 'Support', '--agent', AGENT, '--register-url', 'self', '--yes', '--json'],
      tokens.ada,
    );
    expect(r.code, r.stderr).toBe(0);
    const url = `${PUBLIC_URL}/hooks/${AGENT}`;
    expect(r.json()[0]).toMatchObject({ url });
    const agent = (await state(emu)).agents.find((a) => a.agentId === AGENT);
    expect(agent?.webhook?.url).toBe(url);
    // The secret stays on the hub unless asked for.
    expect(r.json()[0]).not.toHaveProperty('secret');

    // Its hint is asked for without revealing it: the hub's words (no keychain here), no reveal recorded, and a
    // viewer may ask too.
    for (const token of [tokens.ada, tokens.vic]) {
      const hint = await client(['webhook', 'secret', '--team', 'Support', '--agent', AGENT], token);
      expect(hint.code, hint.stderr).toBe(0);
      expect(hint.stdout).toContain(`the hub keeps the signing secret of team Support, agent ${AGENT}`);
      expect(hint.stdout).not.toContain('keychain');
    }
    const json = await client(['webhook', 'secret', '--team', 'Support', '--agent', AGENT, '--json'], tokens.ada);
    expect(json.json()[0]).toMatchObject({ agentId: AGENT, secretHint: 'kept by the hub' });
    const activity = await client(['hub', 'activity', '--json'], tokens.ada);
    expect(activity.code, activity.stderr).toBe(0);
    expect(JSON.stringify(activity.json()[0])).not.toContain('secretRevealed');
    const history = await client(['webhook', 'history', '--team', 'Support', '--agent', AGENT], tokens.vic);
    expect(history.stdout).toContain('through the team hub');
    expect(history.stdout).not.toContain('this install');
  }, 60_000);

  it('listen --forward-to through the hub: a delivery simulated through the hub reaches this laptop’s app', async () => {
    const sink = await startHttpSink();
    try {
      const env = { CHANNEL_HUB_URL: origin, CHANNEL_HUB_TOKEN: tokens.dana! };
      const laptop = { configDir: path.join(dir, 'laptop'), env };
      // The forward may reach the app before the trigger's own process has ended: its run is awaited after.
      let triggered: Promise<CliRun> | null = null;
      const r = await runCliUntil(
        ['listen', '--team', 'Support', '--forward-to', `${sink.url}/hook`, '--json'],
        laptop,
        {
          when: (lines) => lines.some((l) => l.event === 'ready'),
          act: () =>
            (triggered = runCli(
              ['trigger', '--team', 'Support', '--agent', AGENT, '--text', 'through the hub', '--json'],
              laptop,
            )),
          until: (lines) => lines.some((l) => l.event === 'forward' && l.listener === true),
        },
      );
      expect(r.errors).toEqual([]);
      expect(triggered).not.toBeNull();
      const trigger = await triggered!;
      expect(trigger.code, trigger.stderr).toBe(0);
      const lines = r.json();
      // The receiver the service reaches is the hub's public URL, not the replica's own loopback port.
      expect(lines[0]).toMatchObject({ event: 'ready', url: PUBLIC_URL });
      expect(lines.find((l) => l.event === 'forward')).toMatchObject({ forward: { status: 200 } });
      expect(sink.requests).toHaveLength(1);
      expect(sink.requests[0]!.body.toString()).toContain('through the hub');
    } finally {
      await sink.close();
    }
  }, 60_000);

  it('a viewer may not send (403 naming the role); nothing is sent', async () => {
    const before = (await state(emu)).agents.find((a) => a.agentId === AGENT);
    const r = await client(['send', '--team', 'Support', '--to', '+15550102000', '--text', 'hi'], tokens.vic);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('send.message needs the role developer or above; vic is viewer');
    const viewerRegister = await client(
      ['webhook', 'set', '--team', 'Support', '--register-url', 'self', '--yes'],
      tokens.vic,
    );
    expect(viewerRegister.code).toBe(4);
    expect(viewerRegister.stderr).toContain('webhook.register needs the role admin');
    expect((await state(emu)).agents.find((a) => a.agentId === AGENT)).toEqual(before);
  }, 60_000);

  it('a window connected to the hub (desktop, browser host): the hub’s teams as its member; kept, then disconnected', async () => {
    const secrets = new MemorySecretStore();
    const configDir = path.join(dir, 'desktop');
    const local = localContract();
    const windows = await hubSwitchable(local.contract, { configDir, secrets });
    const h = createHandlers(windows.implementations);
    const seen: string[] = [];
    windows.events.onAny((e) => seen.push(e.name));

    expect(await h['hub.status']({})).toEqual({
      ok: true,
      value: { url: null, member: null, role: null, publicUrl: null, problem: null },
    });
    expect(await h['teams.list']({})).toEqual({ ok: true, value: [] });
    const wrong = await h['hub.connect']({ url: origin, token: `cch_${'y'.repeat(43)}` });
    expect(wrong).toMatchObject({ ok: false, error: { kind: 'forbidden', code: 'HUB_BAD_TOKEN' } });
    const plain = await h['hub.connect']({ url: 'http://hub.example.test', token: tokens.vic! });
    expect(plain).toMatchObject({ ok: false, error: { kind: 'validation', field: 'url' } });

    const connected = await h['hub.connect']({ url: `${origin}/`, token: tokens.vic! });
    expect(connected).toEqual({
      ok: true,
      value: { url: origin, member: 'vic', role: 'viewer', publicUrl: PUBLIC_URL, problem: null },
    });
    // Kept: the URL in the config folder, the token in the keychain only.
    expect(await secrets.get('hub:member-token')).toBe(tokens.vic);
    const kept = await readFile(path.join(configDir, 'hub-connection.json'), 'utf8');
    expect(JSON.parse(kept)).toEqual({ url: origin });
    const teams = await h['teams.list']({});
    expect(teams.ok && teams.value.map((t) => t.label)).toEqual(['Support']);
    expect((await h['app.ping']({})) as { value: { hub?: unknown } }).toMatchObject({
      value: { hub: { member: 'vic' } },
    });
    const send = await h['send.message']({ teamId: 't', agentId: AGENT, to: '+15550102000', text: 'hi' });
    expect(send).toMatchObject({ ok: false, error: { kind: 'forbidden', code: 'ROLE_FORBIDDEN' } });
    // While connected, this machine's events do not reach the windows.
    local.publish({ name: 'teams.changed', payload: null } as unknown as AnyEvent);
    expect(seen).toEqual([]);

    // The next start takes the saved connection up again.
    windows.dispose();
    const again = await hubSwitchable(localContract().contract, { configDir, secrets });
    const h2 = createHandlers(again.implementations);
    expect(await h2['hub.status']({})).toMatchObject({ ok: true, value: { url: origin, member: 'vic' } });
    expect(await h2['hub.disconnect']({})).toEqual({
      ok: true,
      value: { url: null, member: null, role: null, publicUrl: null, problem: null },
    });
    expect(await h2['teams.list']({})).toEqual({ ok: true, value: [] });
    expect(await secrets.get('hub:member-token')).toBeNull();
    again.dispose();
  }, 60_000);

  it('a removed member’s token, a wrong one or none: refused with words that say so', async () => {
    expect((await client(['team', 'list'], tokens.rem)).code).toBe(0);
    const removed = await runCli(['hub', 'member', 'remove', 'rem'], { env: { DATABASE_URL: db.url } });
    expect(removed.code, removed.stderr).toBe(0);
    const r = await client(['status', '--team', 'Support'], tokens.rem);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the hub refused the token (CHANNEL_HUB_TOKEN): missing, wrong or revoked');
    const wrong = await client(['team', 'list', '--json'], `cch_${'x'.repeat(43)}`);
    expect(wrong.code).toBe(4);
    expect(JSON.parse(wrong.stderr)).toMatchObject({ error: { code: 'HUB_BAD_TOKEN', exitCode: 4 } });
    const none = await client(['team', 'list'], undefined);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('set CHANNEL_HUB_TOKEN');
  }, 60_000);

  it('a deletion through the hub asks in the hub’s words (the team hub, not this computer)', async () => {
    const r = await client(
      ['messages', '--team', 'Support', '--agent', AGENT, '--with', '+15550102000', '--delete'],
      tokens.ada,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('removed from the team hub for good, for every member');
    expect(r.stderr).not.toContain('this computer');
  }, 60_000);

  it('an unreachable hub, a hub over plain http elsewhere, and the commands that run here refuse clearly', async () => {
    const gone = await runCli(['team', 'list'], {
      configDir: path.join(dir, 'laptop'),
      env: { CHANNEL_HUB_URL: 'http://127.0.0.1:9', CHANNEL_HUB_TOKEN: tokens.ada! },
    });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('the hub at http://127.0.0.1:9 cannot be reached');
    const plain = await client(['team', 'list', '--hub', 'http://hub.example.test'], tokens.ada);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('plain http');
    const up = await client(['up', '--data-dir', path.join(dir, 'up')], tokens.ada);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain('CHANNEL_HUB_URL is set, but up runs a companion on this machine');
    const port = await client(['listen', '--team', 'Support', '--port', '5555'], tokens.ada);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('receives the deliveries at its own public URL');
    expect(port.stderr).not.toContain('stop that companion');
    const self = await runCli(
      ['webhook', 'set', '--team', 'Support', '--register-url', 'self', '--yes', '--data-dir', path.join(dir, 'l')],
      { configDir: path.join(dir, 'laptop'), env: {} },
    );
    expect(self.code).toBe(2);
    expect(self.stderr).toContain("--register-url self: the public URL of a team's hub");
  }, 60_000);
});
