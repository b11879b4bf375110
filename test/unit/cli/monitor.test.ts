// `monitor`: health changes and alerts as JSON lines, ad hoc and over saved teams; stops on abort. Over saved
// teams it is a client of the data folder's companion (started in-process here, as none runs): its health
// and its incidents, in the contract's DTOs and the screens' words.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { parseJsonLines, runCli, runCliUntil } from '../../helpers/cli';
import { CONNECTED, fakeClientFactory } from './fake-client';

const KEY = 'monitor-key-0123456789abcdef';
const reconnecting = {
  state: 'reconnecting',
  connected: false,
  linked: true,
  needsScan: false,
  phone: '15550100001',
  qr: null,
};
const unlinked = { state: 'unlinked', connected: false, linked: false, needsScan: true, phone: null, qr: null };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-monitor-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('monitor', () => {
  it('ad hoc: a health line, then a drop gives a health change and an alert; abort stops it cleanly', async () => {
    let status: Record<string, unknown> = CONNECTED;
    const { factory, log } = fakeClientFactory({ getSession: async () => status });
    const ctl = new AbortController();
    const r = await runCli(
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', '0.05', '--json'],
      {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
        signal: ctl.signal,
        configDir: dir,
        onStdout: (_c, all) => {
          const lines = parseJsonLines(all);
          if (lines.some((l) => l.event === 'health' && l.health === 'connected')) status = reconnecting;
          if (lines.some((l) => l.event === 'alert')) ctl.abort();
        },
      },
    );
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({
      event: 'started',
      agents: [{ teamId: 'adhoc', agentId: 'a1' }],
      intervalSec: 0.05,
    });
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'health',
        agentId: 'a1',
        health: 'connected',
        previous: 'unknown',
        state: 'connected',
        phone: '15550100001',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'health', agentId: 'a1', health: 'reconnecting', previous: 'connected' }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ event: 'alert', kind: 'reconnecting', agentIds: ['a1'] }));
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(log.created[0]).toMatchObject({ apiKey: KEY });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it("saved teams: the companion polls their agents with the keychain key; human lines in the screens' words", async () => {
    const store = new MemorySecretStore();
    let status: Record<string, unknown> = CONNECTED;
    const { factory, log } = fakeClientFactory({ getSession: async () => status });
    const add = await runCli(
      ['team', 'add', '--label', 'Demo', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--agent', 'a2'],
      {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
        secretStore: store,
        configDir: dir,
      },
    );
    expect(add.code).toBe(0);
    const ctl = new AbortController();
    const r = await runCli(['monitor', '--interval', '0.05'], {
      createClient: factory,
      secretStore: store,
      configDir: dir,
      signal: ctl.signal,
      onStdout: (_c, all) => {
        if ((all.match(/Demo\/a\d: Connected/g) ?? []).length >= 2) status = reconnecting;
        if ((all.match(/Demo\/a\d: Reconnecting \(was Connected\)/g) ?? []).length >= 2) ctl.abort();
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^watching 2 agents \(Demo\/a1, Demo\/a2\) through a companion started for this command — Ctrl-C to stop\n/,
    );
    expect(r.stdout).toMatch(/Z Demo\/a1: Connected \+15550100001\n/);
    expect(r.stdout).toMatch(/Z Demo\/a2: Connected \+15550100001\n/);
    expect(r.stdout).toMatch(/Z Demo\/a1: Reconnecting \(was Connected\) \+15550100001\n/);
    expect(r.stdout).not.toMatch(/notice|\[reconnecting\]/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('monitor stopped');
    expect(log.created.at(-1)).toMatchObject({ apiKey: KEY });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it("--json: health as AgentHealthDTOs, and each alert the contract's AlertEventDTO of its own incident", async () => {
    const store = new MemorySecretStore();
    let status: Record<string, unknown> = CONNECTED;
    const { factory } = fakeClientFactory({ getSession: async () => status });
    await runCli(
      ['team', 'add', '--label', 'Support desk', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--agent', 'a2'],
      {
        env: { CHANNEL_API_KEY: KEY },
        createClient: factory,
        secretStore: store,
        configDir: dir,
      },
    );
    const health = (l: Record<string, unknown>) => (l.agent as { health?: string } | undefined)?.health;
    const r = await runCliUntil(
      ['monitor', '--interval', '0.05', '--json'],
      { createClient: factory, secretStore: store, configDir: dir },
      {
        when: (lines) => lines.filter((l) => l.event === 'health' && health(l) === 'connected').length >= 2,
        act: async () => {
          status = unlinked;
        },
        until: (lines) => lines.filter((l) => l.event === 'alert').length >= 2,
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    const started = lines[0]!;
    expect(started).toMatchObject({ event: 'started', companion: null, intervalSec: 0.05, snoozedUntil: null });
    const agents = started.agents as Array<{ teamId: string; team: string; agentId: string }>;
    expect(agents.map((a) => [a.team, a.agentId])).toEqual([
      ['Support desk', 'a1'],
      ['Support desk', 'a2'],
    ]);
    const teamId = agents[0]!.teamId;
    expect(teamId).not.toBe('Support desk');
    expect(lines).toContainEqual({
      event: 'health',
      agent: expect.objectContaining({ teamId, agentId: 'a1', health: 'needs-scan', state: 'unlinked' }),
      previous: 'connected',
    });
    const alerts = lines.filter((l) => l.event === 'alert').map((l) => l.alert as Record<string, unknown>);
    expect(alerts).toEqual(
      ['a1', 'a2'].map((agentId) =>
        expect.objectContaining({
          change: 'opened',
          notify: true,
          incident: expect.objectContaining({
            id: expect.any(String),
            teamId,
            agentId,
            kind: 'needs-scan',
            severity: 'urgent',
            title: `${agentId} (+15550100001) needs a QR scan again`,
            openedAt: expect.any(Number),
            endedAt: null,
            durationMs: null,
          }),
        }),
      ),
    );
    const ids = alerts.map((a) => (a.incident as { id: string }).id);
    expect(new Set(ids).size).toBe(2);
  });

  it("--metrics-port: OpenMetrics at /metrics on loopback, with each agent's health by team label", async () => {
    let status: Record<string, unknown> = CONNECTED;
    const { factory } = fakeClientFactory({ getSession: async () => status });
    let scraped = '';
    let contentType = '';
    let url = '';
    const r = await runCliUntil(
      [
        'monitor',
        '--base-url',
        'http://127.0.0.1:9',
        '--agent',
        'a1',
        '--interval',
        '0.05',
        '--metrics-port',
        '0',
        '--json',
      ],
      { env: { CHANNEL_API_KEY: KEY }, createClient: factory },
      {
        when: (lines) => {
          url = String(lines.find((l) => l.event === 'metrics')?.url ?? '');
          return url !== '' && lines.some((l) => l.event === 'health');
        },
        act: async () => {
          const res = await fetch(url);
          contentType = res.headers.get('content-type') ?? '';
          scraped = await res.text();
          status = reconnecting; // one more line, on which the run stops
        },
        until: () => scraped !== '',
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const metricsLine = r.json().find((l) => l.event === 'metrics')!;
    expect(String(metricsLine.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(contentType).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect(scraped).toContain('channel_companion_agent_health{team="adhoc",agent="a1",health="connected"} 1');
    expect(scraped).toContain('channel_companion_agent_health{team="adhoc",agent="a1",health="reconnecting"} 0');
    expect(scraped).toContain('channel_companion_agent_connected{team="adhoc",agent="a1"} 1');
    expect(scraped.trimEnd().endsWith('# EOF')).toBe(true);
    expect(scraped).not.toContain(KEY);
  });

  const bad: Array<[string, string[], Record<string, string>]> = [
    [
      '--team with --base-url',
      ['monitor', '--team', 'x', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'],
      { CHANNEL_API_KEY: KEY },
    ],
    ['--base-url without --agent', ['monitor', '--base-url', 'http://127.0.0.1:9'], { CHANNEL_API_KEY: KEY }],
    ['no key for ad hoc', ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], {}],
    [
      'fast interval above interval',
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', '5', '--fast-interval', '10'],
      { CHANNEL_API_KEY: KEY },
    ],
    [
      'bad interval',
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', 'often'],
      { CHANNEL_API_KEY: KEY },
    ],
    ['no saved teams', ['monitor'], {}],
    ['unknown team', ['monitor', '--team', 'nope'], {}],
    [
      '--metrics-host without --metrics-port',
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--metrics-host', '0.0.0.0'],
      { CHANNEL_API_KEY: KEY },
    ],
    [
      'bad --metrics-port',
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--metrics-port', '70000'],
      { CHANNEL_API_KEY: KEY },
    ],
    [
      'bad --alertmanager',
      ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--alertmanager', 'ftp://am'],
      { CHANNEL_API_KEY: KEY },
    ],
  ];
  for (const [name, args, env] of bad) {
    it(`usage error: ${name} → exit 2, nothing polled`, async () => {
      const { factory, log } = fakeClientFactory({ getSession: async () => CONNECTED });
      const r = await runCli(args, {
        env,
        createClient: factory,
        secretStore: new MemorySecretStore(),
        configDir: dir,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(log.calls).toEqual([]);
    });
  }
});
