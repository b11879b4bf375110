// The companion + its contract implementation + the handlers against the emulator: teams, live health,
// a dropped link with its alert, a webhook verified by the tunnel, the demo, and no key in any result.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, RequestName, Result } from '../../src-shared/contract';
import type { Handlers } from '../../src-main/app/handlers';
import type { Companion } from '../../src-main/app/companion/companion';
import { DEMO_TEAM_LABEL } from '../../src-main/app/companion/demo';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { decodeSigningSecrets } from '../../src-main/core/teams/signing';
import type { Emulator } from '../../src-main/emulator';
import { startTestCompanion } from '../helpers/companion-suite';
import { control, DEMO_KEY, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

const AGENTS = ['agent-connected', 'agent-unlinked', 'agent-flaky'];

describe('companion over the emulator', () => {
  let emu: Emulator;
  let dir: string;
  const secrets = new MemorySecretStore();
  let companion: Companion;
  let handlers: Handlers;
  let close: () => Promise<void>;
  const results: unknown[] = [];
  const events: AnyEvent[] = [];
  let teamId = '';

  async function call<K extends RequestName>(name: K, args: unknown = {}): Promise<Result<unknown>> {
    const r = await (handlers[name] as (a: unknown) => Promise<Result<unknown>>)(args);
    results.push(r);
    return r;
  }
  async function ok<T = unknown>(name: RequestName, args: unknown = {}): Promise<T> {
    const r = await call(name, args);
    if (!r.ok) throw new Error(`${name}: ${r.error.kind} ${r.error.message}`);
    return r.value as T;
  }

  emulatorSuite('cc-companion-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    ({ companion, handlers, close } = await startTestCompanion(dir, {
      secrets,
      poll: { intervalMs: 400, fastIntervalMs: 200 },
      tunnelPort: 0,
      onEvent: (e) => events.push(e),
    }));
  });

  afterAll(async () => {
    await close?.();
  });

  it('adds a team through the handlers and shows the three agents with their health', async () => {
    const team = await ok<{ teamId: string; keyHint: string; agentIds: string[] }>('teams.add', {
      label: 'Emulated team',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: AGENTS.map((agentId) => ({ agentId })),
    });
    teamId = team.teamId;
    expect(team.keyHint).toBe(`…${DEMO_KEY.slice(-4)}`);
    expect(team.agentIds).toEqual(AGENTS);

    const snap = await waitFor(async () => {
      const s = await ok<{
        worst: string;
        agents: Array<{ agentId: string; health: string; state: string | null; phone: string | null }>;
      }>('health.snapshot');
      return s.agents.length === 3 && s.agents.every((a) => a.health !== 'unknown') ? s : null;
    }, 8000);
    const by = Object.fromEntries(snap.agents.map((a) => [a.agentId, a]));
    expect(by['agent-connected']?.health).toBe('connected');
    expect(by['agent-connected']?.phone).toBe('15550100001');
    expect(by['agent-connected']?.state).toBe('connected');
    expect(by['agent-unlinked']?.health).toBe('needs-scan');
    expect(by['agent-flaky']).toBeDefined();
    expect(snap.worst).toBe('needs-scan');

    const agents = await ok<Array<{ agentId: string; health: { health: string } }>>('agents.list', { teamId });
    expect(agents.map((a) => a.agentId)).toEqual(AGENTS);
    expect(agents.find((a) => a.agentId === 'agent-unlinked')?.health.health).toBe('needs-scan');
  });

  it('an agent added later answers unknown health until its first poll', async () => {
    await control(emu, 'POST', '/teams/demo/agents', {
      agentId: 'agent-late',
      state: 'connected',
      phone: '15550100009',
    });
    const added = await ok<{
      agentId: string;
      health: { health: string; state: string | null; checkedAt: number | null };
    }>('agents.add', { teamId, agentId: 'agent-late' });
    expect(added.health).toMatchObject({ health: 'unknown', state: null, checkedAt: null });
    await ok('agents.remove', { teamId, agentId: 'agent-late' });
    expect((await ok<Array<{ agentId: string }>>('agents.list', { teamId })).map((a) => a.agentId)).toEqual(AGENTS);
  });

  it('a dropped link turns reconnecting, comes back, and raises an alert', async () => {
    const mark = events.length;
    await control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 1 });
    const mine = () => events.slice(mark);
    await waitFor(
      () =>
        mine().some(
          (e) =>
            e.name === 'health.changed' &&
            e.payload.agentId === 'agent-connected' &&
            e.payload.health === 'reconnecting',
        ),
      6000,
    );
    await waitFor(
      () =>
        mine().some(
          (e) =>
            e.name === 'health.changed' && e.payload.agentId === 'agent-connected' && e.payload.health === 'connected',
        ),
      6000,
    );
    const alert = mine().find((e) => e.name === 'alert' && e.payload.incident.agentId === 'agent-connected');
    expect(alert).toBeDefined();
    if (alert?.name === 'alert') {
      expect(alert.payload.incident.kind).toBe('reconnecting');
      expect(alert.payload.incident.title).toMatch(/agent-connected/);
    }
  });

  it('changing settings keeps the monitor and its incidents: an unlinked agent is not alerted again', async () => {
    const list = () => ok<Array<{ id: string; agentId: string; kind: string }>>('alerts.list');
    const before = await waitFor(
      async () => (await list()).find((i) => i.agentId === 'agent-unlinked' && i.kind === 'needs-scan'),
      8000,
    );
    const monitor = companion.monitor();
    const mark = events.length;
    const polled = async () => (await emu.control.state()).counters.serviceRequests;
    const polledBefore = await polled();
    await ok('settings.update', { patch: { pollIntervalSec: 30, alertWebhookUrl: 'http://127.0.0.1:9/alerts' } });
    // Three more rounds of polls of the three agents (at 400 ms) after the change.
    await waitFor(
      async () => (await polled()) >= polledBefore + 3 * AGENTS.length,
      10_000,
      'three more rounds of polls',
    );
    expect(companion.monitor()).toBe(monitor);
    expect((await list()).find((i) => i.agentId === 'agent-unlinked')?.id).toBe(before.id);
    expect(
      events
        .slice(mark)
        .filter(
          (e) => e.name === 'alert' && e.payload.change === 'opened' && e.payload.incident.agentId === 'agent-unlinked',
        ),
    ).toEqual([]);
    await ok('settings.update', { patch: { pollIntervalSec: 15, alertWebhookUrl: null } });
  });

  it('webhook.register: the tunnel verifies a signed delivery from the emulator', async () => {
    await call('tunnel.status');
    const status = await waitFor(async () => {
      const s = await ok<{ running: boolean; listenUrl: string | null }>('tunnel.status');
      return s.running ? s : null;
    });
    const publicUrl = `${status.listenUrl}/hooks/agent-connected`;
    const reg = await ok<{ url: string; mode: string }>('webhook.register', {
      teamId,
      agentId: 'agent-connected',
      publicUrl,
    });
    expect(reg.url).toBe(publicUrl);

    const mark = events.length;
    await control(emu, 'POST', '/agents/agent-connected/inbound', {
      from: '15550100002',
      type: 'text',
      text: 'hello tunnel',
    });
    const ev = await waitFor(() => events.slice(mark).find((e) => e.name === 'tunnel.delivery'), 6000);
    expect(ev.name === 'tunnel.delivery' && ev.payload.verdict).toBe('verified');
    expect(ev.name === 'tunnel.delivery' && ev.payload.teamId).toBe(teamId);

    const list = await ok<Array<{ id: string; verdict: string; preview: string }>>('tunnel.deliveries', {
      agentId: 'agent-connected',
    });
    expect(list[0]?.verdict).toBe('verified');
    expect(list[0]?.preview).toBe('hello tunnel');
    const detail = await ok<{ rawBody: string; verificationDetail: string }>('tunnel.delivery', { id: list[0]!.id });
    expect(detail.rawBody).toContain('hello tunnel');
    const st = await ok<{
      agents: Array<{ agentId: string; hasSecret: boolean; publicUrl: string | null }>;
      counts: { verified: number };
    }>('tunnel.status');
    expect(st.counts.verified).toBeGreaterThanOrEqual(1);
    expect(st.agents.find((a) => a.agentId === 'agent-connected')?.publicUrl).toBe(publicUrl);
  });

  it('the demo adds "Demo (emulator)" whose key stays out of the keychain and the config file', async () => {
    const demo = await ok<{ team: { teamId: string; label: string; agentIds: string[] }; baseUrl: string }>(
      'demo.start',
    );
    expect(demo.team.label).toBe(DEMO_TEAM_LABEL);
    expect(demo.team.agentIds).toEqual(AGENTS);
    expect(demo.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(secrets.snapshot()).some((k) => k.includes(demo.team.teamId))).toBe(false);
    const again = await ok<{ team: { teamId: string } }>('demo.start');
    expect(again.team.teamId).toBe(demo.team.teamId);
    const teams = await ok<Array<{ label: string }>>('teams.list');
    expect(teams.map((t) => t.label)).toEqual(['Emulated team', DEMO_TEAM_LABEL]);
    await waitFor(async () => {
      const s = await ok<{ agents: Array<{ teamId: string; health: string }> }>('health.snapshot');
      return s.agents.filter((a) => a.teamId === demo.team.teamId && a.health !== 'unknown').length === 3;
    }, 8000);
  });

  it('no handler result, event or file in the config folder holds the API key or a signing secret', async () => {
    await call('diagnostics.export');
    await call('settings.get');
    await call('alerts.list');
    const ref = Object.keys(secrets.snapshot()).find((k) => k.includes(':agent:agent-connected:signing-secret'));
    expect(ref, 'the signing secret was kept in the secret store').toBeTruthy();
    const secret = decodeSigningSecrets(secrets.snapshot()[ref!] ?? null)[0];
    expect(secret).toBeTruthy();
    const everything = JSON.stringify(results) + JSON.stringify(events);
    expect(everything).not.toContain(DEMO_KEY);
    expect(everything).not.toContain(secret!);
    for (const f of await readdir(path.join(dir, 'config'))) {
      const text = await readFile(path.join(dir, 'config', f), 'utf8').catch(() => '');
      expect(text).not.toContain(DEMO_KEY);
      expect(text).not.toContain(secret!);
    }
  });

  it('a keychain that cannot be reached gives a clear keychain error and stores nothing', async () => {
    secrets.state = 'unavailable';
    try {
      const r = await call('teams.add', {
        label: 'No keychain',
        baseUrl: emu.baseUrl,
        apiKey: DEMO_KEY,
        agents: [{ agentId: 'agent-connected' }],
      });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.kind).toBe('keychain');
        expect(r.error.message).toMatch(/keychain/i);
      }
      const teams = await ok<Array<{ label: string }>>('teams.list');
      expect(teams.map((t) => t.label)).not.toContain('No keychain');
    } finally {
      secrets.state = 'ok';
    }
  });

  it('bad input is refused with the field named', async () => {
    const r = await call('teams.add', { label: 'Bad', baseUrl: 'ftp://x', apiKey: 'k', agents: [{ agentId: 'a' }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.kind).toBe('validation');
  });
});
