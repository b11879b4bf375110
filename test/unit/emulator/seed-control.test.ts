import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, loadSeedFile, startEmulator, type Emulator } from '../../../src-main/emulator/index';
import { parseSeed } from '../../../src-main/emulator/seed';
import { client, ctl, emulatorClock, waitFor } from './helpers';
import { startReceiver } from './receiver';

/** The demo team's API key. */
const DEMO_API_KEY = 'demo-key-0123456789abcdef';

describe('emulator: seed files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'emu-seed-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, content: string) => {
    const p = join(dir, name);
    await writeFile(p, content);
    return p;
  };

  it('loads a valid seed file', async () => {
    const seed = {
      teams: [
        { id: 'a', apiKey: 'key-aaaaaaaa', agents: [{ agentId: 'x', state: 'connected', phone: '+15550001111' }] },
      ],
      contacts: ['15550001111'],
    };
    expect(await loadSeedFile(await write('ok.json', JSON.stringify(seed)))).toEqual(seed);
  });

  it('names the bad field, duplicates, bad JSON and missing files', async () => {
    const badKey = await write('bad.json', JSON.stringify({ teams: [{ id: 'a', apiKey: 'short', agents: [] }] }));
    await expect(loadSeedFile(badKey)).rejects.toThrow(/teams\[0\]\.apiKey/);
    const badState = await write(
      'state.json',
      JSON.stringify({ teams: [{ id: 'a', apiKey: 'key-aaaaaaaa', agents: [{ agentId: 'x', state: 'paired' }] }] }),
    );
    await expect(loadSeedFile(badState)).rejects.toThrow(/teams\[0\]\.agents\[0\]\.state/);
    const dup = await write(
      'dup.json',
      JSON.stringify({ teams: [{ id: 'a', apiKey: 'key-aaaaaaaa', agents: [{ agentId: 'x' }, { agentId: 'x' }] }] }),
    );
    await expect(loadSeedFile(dup)).rejects.toThrow(/duplicate agentId "x"/);
    const extra = await write('extra.json', JSON.stringify({ teams: [], nope: 1 }));
    await expect(loadSeedFile(extra)).rejects.toThrow(/nope/);
    await expect(loadSeedFile(await write('notjson.json', '{'))).rejects.toThrow(/not valid JSON/);
    await expect(loadSeedFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot read seed file .*ENOENT/);
    await expect(startEmulator({ seed: { teams: [{ id: 'a', apiKey: 'x', agents: [] }] } })).rejects.toThrow(/apiKey/);
  });

  it('defaultSeed is valid and describes the demo team', () => {
    const seed = parseSeed(defaultSeed());
    expect(seed.teams[0]!.apiKey).toBe(DEMO_API_KEY);
    expect(seed.teams[0]!.agents.map((a) => a.agentId)).toEqual(['agent-connected', 'agent-unlinked', 'agent-flaky']);
  });
});

describe('emulator: control surface', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ seed: defaultSeed() });
  });
  afterAll(() => emu.close());

  it('serves the demo seed', async () => {
    const api = client(emu, DEMO_API_KEY);
    expect((await api.session('agent-connected')).body).toMatchObject({ state: 'connected', phone: '15550100001' });
    expect((await api.session('agent-unlinked')).body.state).toBe('unlinked');
    expect((await api.session('agent-flaky')).body.state).toBe('connected');
  });

  it('creates teams and agents, rejects conflicts and bad input, and resets to the seed', async () => {
    const team = await ctl(emu, 'POST', '/teams', { name: 'Ops', sendsPerMinute: 10 });
    expect(team.status).toBe(200);
    expect(team.body).toEqual({ id: expect.any(String), apiKey: expect.any(String) });
    const agent = await ctl(emu, 'POST', `/teams/${team.body.id}/agents`, {
      label: 'Pager',
      state: 'connected',
      phone: '+15550009999',
    });
    expect(agent.body).toEqual({ agentId: expect.any(String) });
    const api = client(emu, team.body.apiKey);
    const s = await api.session(agent.body.agentId);
    expect(s.body).toMatchObject({ state: 'connected', phone: '15550009999' });
    expect(s.headers.get('x-ratelimit-limit')).toBe('10');
    expect((await ctl(emu, 'POST', '/teams', { id: 'demo' })).status).toBe(409);
    expect((await ctl(emu, 'POST', '/teams', { apiKey: DEMO_API_KEY })).status).toBe(409);
    expect((await ctl(emu, 'POST', `/teams/${team.body.id}/agents`, { agentId: 'agent-connected' })).status).toBe(409);
    expect((await ctl(emu, 'POST', '/teams/ghost/agents', {})).status).toBe(404);
    expect((await ctl(emu, 'POST', '/teams', { sendsPerMinute: 'many' })).body.error.message).toContain(
      'sendsPerMinute',
    );
    expect((await ctl(emu, 'GET', '/teams')).status).toBe(405);
    expect((await ctl(emu, 'GET', '/nothing')).status).toBe(404);
    expect((await ctl(emu, 'POST', '/agents/ghost/unlink')).status).toBe(404);

    const state = await emu.control.state();
    expect(state.teams.map((t) => t.id)).toContain(team.body.id);
    expect(JSON.stringify(state)).not.toContain(team.body.apiKey);
    expect(JSON.stringify(state)).not.toContain(DEMO_API_KEY);

    expect((await ctl(emu, 'POST', '/reset')).body).toEqual({ ok: true });
    expect((await emu.control.state()).teams.map((t) => t.id)).toEqual(['demo']);
    expect((await api.session(agent.body.agentId)).status).toBe(401);
  });

  it('answers 1,000 agents polled at once, each with its own state', async () => {
    const { apiKey, id } = emu.control.createTeam({ id: 'big' });
    const api = client(emu, apiKey);
    for (let i = 0; i < 1000; i++)
      emu.control.createAgent(id, { agentId: `big-${i}`, state: i % 10 === 0 ? 'unlinked' : 'connected' });
    for (let i = 0; i < 1000; i += 100) await api.startSession(`big-${i}`);
    const before = (await emu.control.state()).counters.serviceRequests;
    const states = new Map<string, string>();
    for (let i = 0; i < 1000; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, j) => api.session(`big-${i + j}`).then((r) => ({ id: `big-${i + j}`, ...r }))),
      );
      for (const r of batch) {
        expect(r.status, r.id).toBe(200);
        states.set(r.id, r.body.state);
      }
    }
    // Every call was answered once, and each agent kept its own state under the load.
    expect((await emu.control.state()).counters.serviceRequests - before).toBe(1000);
    const count = (state: string) => [...states.values()].filter((s) => s === state).length;
    expect([count('connected'), count('unlinked'), count('pairing')]).toEqual([900, 90, 10]);
    expect(states.get('big-100')).toBe('pairing');
    expect(states.get('big-110')).toBe('unlinked');
    expect(states.get('big-111')).toBe('connected');
    emu.control.reset();
  });
});

describe('emulator: close()', () => {
  it('stops timers, streams, deliveries and both servers', async () => {
    const clock = emulatorClock();
    const rx = await startReceiver();
    rx.onRequest((_n, res) => res.writeHead(500).end());
    const emu = await startEmulator({
      clock,
      seed: { teams: [{ id: 't', apiKey: 'key-close-aaaa', agents: [{ agentId: 'a', state: 'connected' }] }] },
    });
    const api = client(emu, 'key-close-aaaa');
    await api.webhook('a', { url: rx.url });
    await emu.control.inbound('a', { from: '15557654321', text: 'x' });
    await waitFor(() => clock.pendingDelays().join() === '1000');
    await emu.control.setChatScript('a', { tokenDelayMs: 500 });
    const stream = await fetch(`${emu.baseUrl}/api/v1/agents/a/chat`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-close-aaaa',
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ message: 'a b c', user_id: 'u', stream: true }),
    });
    const reader = stream.body!.getReader();
    await reader.read();
    expect(clock.pending).toBe(2);
    await emu.close();
    expect(clock.pending).toBe(0);
    expect(emu.control.deliveries()[0]!.status).toBe('cancelled');
    await expect(fetch(`${emu.baseUrl}/_emulator/state`)).rejects.toThrow();
    await expect(fetch(`${emu.mediaOrigin}/blob/x`)).rejects.toThrow();
    await reader.cancel().catch(() => undefined);
    await rx.close();
  });
});
