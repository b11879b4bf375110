// The --team service commands (status, send, pair, settings, webhook set|history|restore|secret) as clients of
// the companion of the data folder, attached to one started here (hostCompanion, as `up` starts it): each asks
// the companion what the screens ask, with the key and the signing secrets it keeps, and the companion records
// what they did (send budget, registration history, keychain). The same commands with none running start one
// for themselves (cli-teams, cli-registration).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractClient } from '../../src-main/app/client';
import { hostCompanion, type HostedCompanion } from '../../src-main/app/companion/hosted';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { runCli } from '../helpers/cli';
import { DEMO_KEY, state, waitFor } from '../helpers/emulator';
import { emulatorSuite, type EmulatorSuite } from '../helpers/emulator-suite';

let s: EmulatorSuite;
const store = new MemorySecretStore();
let hosted: HostedCompanion;
let client: ContractClient;
let solo = '';
let duo = '';

emulatorSuite('cc-cli-team-commands-', (x) => (s = x));

// A key in the environment that the service rejects: a command that used it instead of the team's would fail.
const cli = (args: string[], extra: Parameters<typeof runCli>[1] = {}) =>
  runCli([...args, '--data-dir', join(s.dir, 'data')], {
    configDir: join(s.dir, 'config'),
    secretStore: store,
    env: { CHANNEL_API_KEY: 'not-the-team-key-0000' },
    ...extra,
  });

beforeAll(async () => {
  hosted = await hostCompanion({
    shell: 'up',
    configDir: join(s.dir, 'config'),
    dataDir: join(s.dir, 'data'),
    secrets: store,
    poll: { intervalMs: 60_000 },
    tunnelPort: 0,
  });
  client = hosted.client();
  const add = (label: string, agents: string[]) =>
    client.request('teams.add', {
      label,
      baseUrl: s.emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: agents.map((agentId) => ({ agentId })),
    });
  solo = (await add('Solo', ['agent-connected'])).teamId;
  duo = (await add('Duo', ['agent-connected', 'agent-unlinked'])).teamId;
}, 30_000);

afterAll(async () => {
  await client?.close();
  await hosted?.close();
});

describe('attached to the running companion', () => {
  it("status --team: the companion's pairing.session with the health word; the team's only agent by default", async () => {
    const r = await cli(['status', '--team', 'solo', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const session = await client.request('pairing.session', { teamId: solo, agentId: 'agent-connected' });
    expect(r.json()).toEqual([{ ...session, health: 'connected' }]);
    const u = await cli(['status', '--team', 'Duo', '--agent', 'agent-unlinked']);
    expect(u.stdout).toContain('agent-unlinked: Needs a QR scan');
    expect(u.stdout).toContain('a QR scan is needed');
  });

  it("status --team of several agents without --agent: every agent's health as the monitor saw it, and the worst", async () => {
    const r = await cli(['status', '--team', 'Duo', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [team] = r.json() as Array<{
      teamId: string;
      label: string;
      worst: string;
      agents: Array<Record<string, unknown>>;
    }>;
    const listed = await client.request('agents.list', { teamId: duo });
    expect(team).toMatchObject({ teamId: duo, label: 'Duo' });
    expect(team!.agents.map((a) => [a.agentId, a.health])).toEqual(listed.map((a) => [a.agentId, a.health.health]));
    const human = await cli(['status', '--team', 'Duo']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Duo: 2 agents');
    for (const a of listed) expect(human.stdout).toContain(`  ${a.agentId}: `);
  });

  it('unknown team or agent → exit 2, nothing asked of the service', async () => {
    for (const args of [
      ['status', '--team', 'Nope'],
      ['status', '--team', 'Duo', '--agent', 'zz'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it("send --team: the companion's send path (its send budget counts it, its log keeps it as the command line's)", async () => {
    const before = (await client.request('send.budget', { teamId: solo })).used;
    const r = await cli([
      'send',
      '--team',
      'Solo',
      '--to',
      '+15550102000',
      '--text',
      'from the command line',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [sent] = r.json();
    expect(sent).toMatchObject({ status: expect.any(String), messageId: expect.any(String) });
    expect(Object.keys(sent!).sort()).toEqual(['messageId', 'status', 'to']);
    expect((await client.request('send.budget', { teamId: solo })).used).toBe(before + 1);
    // Kept as the command line's send, as the console's history and Messages say.
    const kept = await waitFor(async () => {
      const thread = await client.request('messages.thread', {
        teamId: solo,
        agentId: 'agent-connected',
        phone: '+15550102000',
      });
      return thread.messages.find((m) => m.text === 'from the command line');
    }, 5000);
    expect(kept).toMatchObject({ direction: 'out', via: 'cli', messageId: sent!.messageId });
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
  });

  it('settings --team: the channel switches through the companion', async () => {
    const r = await cli(['settings', '--team', 'Solo', '--groups', 'on', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()[0]).toMatchObject({ groups: true });
  });

  it('pair --team: the pairing the companion starts; the QR shown, connected once scanned', async () => {
    let scanned = false;
    const r = await cli(['pair', '--team', 'Duo', '--agent', 'agent-unlinked', '--json', '--timeout', '20'], {
      pairPollMs: 50,
      onStdout: (chunk) => {
        if (scanned || !chunk.includes('"event":"qr"')) return;
        scanned = true;
        void (async () => {
          // The companion started this pairing: its session read says so.
          const seen = await client.request('pairing.session', { teamId: duo, agentId: 'agent-unlinked' });
          expect(seen.pairing?.startedHere).toBe(true);
          await s.emu.control.scan('agent-unlinked', { phone: '15550107777' });
        })();
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'qr', rotation: 1 });
    expect(lines.at(-1)).toMatchObject({ status: 'connected', phone: '15550107777', alreadyConnected: false });
  });

  it('webhook set / history / restore / secret --team: the companion registers, keeps the secret and the history', async () => {
    const urlOf = async () => (await state(s.emu)).agents.find((a) => a.agentId === 'agent-connected')?.webhook?.url;
    for (const path of ['one', 'two']) {
      const r = await cli(['webhook', 'set', '--team', 'Solo', '--url', `${s.sink.url}/${path}`, '--yes', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const { secret } = await client.request('webhook.revealSecret', { teamId: solo, agentId: 'agent-connected' });
      expect(r.json()).toEqual([
        { mode: 'passthrough', url: `${s.sink.url}/${path}`, secretHint: `…${secret.slice(-4)}` },
      ]);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(await urlOf()).toBe(`${s.sink.url}/${path}`);
    }
    const history = await client.request('webhook.history', { teamId: solo, agentId: 'agent-connected' });
    expect(history.entries.map((e) => [e.url, e.source])).toEqual([
      [`${s.sink.url}/two`, 'webhook set'],
      [`${s.sink.url}/one`, 'webhook set'],
    ]);
    const h = await cli(['webhook', 'history', '--team', 'Solo', '--json']);
    expect(h.json()).toEqual([history]);

    const restore = await cli(['webhook', 'restore', '--team', 'Solo', '--yes', '--json']);
    expect(restore.code, restore.stderr).toBe(0);
    const { secret } = await client.request('webhook.revealSecret', { teamId: solo, agentId: 'agent-connected' });
    expect(restore.json()[0]).toMatchObject({ url: `${s.sink.url}/one`, secretHint: `…${secret.slice(-4)}` });
    expect(await urlOf()).toBe(`${s.sink.url}/one`);
    const after = await client.request('webhook.history', { teamId: solo, agentId: 'agent-connected' });
    expect(after.entries[0]).toMatchObject({ url: `${s.sink.url}/one`, source: 'webhook restore' });

    const hint = await cli(['webhook', 'secret', '--team', 'Solo', '--json']);
    expect(hint.json()).toEqual([{ teamId: solo, agentId: 'agent-connected', secretHint: `…${secret.slice(-4)}` }]);
    expect(hint.stdout).not.toContain(secret);
  });

  it("team and agent add|list|remove: the companion's teams and agents change at once, as Settings shows them", async () => {
    const add = await cli(
      ['team', 'add', '--label', 'Third', '--base-url', s.emu.baseUrl, '--agent', 'agent-connected', '--json'],
      { env: { CHANNEL_API_KEY: DEMO_KEY } },
    );
    expect(add.code, add.stderr).toBe(0);
    const teams = await client.request('teams.list', {});
    expect(teams.map((t) => t.label)).toEqual(['Solo', 'Duo', 'Third']);
    expect(add.json()).toEqual([teams[2]]);
    expect((await cli(['team', 'list', '--json'])).json()).toEqual(teams);

    const agent = await cli([
      'agent',
      'add',
      '--team',
      'third',
      '--agent',
      'agent-flaky',
      '--label',
      'Flaky',
      '--json',
    ]);
    expect(agent.code, agent.stderr).toBe(0);
    const third = teams[2]!.teamId;
    expect(agent.json()[0]).toMatchObject({ teamId: third, agentId: 'agent-flaky', label: 'Flaky' });
    expect((await client.request('agents.list', { teamId: third })).map((a) => a.agentId)).toEqual([
      'agent-connected',
      'agent-flaky',
    ]);
    const listed = await cli(['agent', 'list', '--team', 'Third']);
    expect(listed.stdout).toBe('Third/agent-connected\nThird/agent-flaky (Flaky)\n');

    expect((await cli(['agent', 'remove', '--team', 'Third', '--agent', 'agent-flaky'])).code).toBe(0);
    expect((await client.request('agents.list', { teamId: third })).map((a) => a.agentId)).toEqual(['agent-connected']);
    expect((await cli(['team', 'remove', 'Third'])).code).toBe(0);
    expect((await client.request('teams.list', {})).map((t) => t.label)).toEqual(['Solo', 'Duo']);
    for (const r of [add, agent]) expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
  });
});
