// `monitor`: health changes and alerts as JSON lines, ad hoc and over saved teams; stops on abort.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../src-main/core/secrets';
import { parseJsonLines, runCli } from '../../helpers/cli';
import { fakeClientFactory } from './fake-client';

const KEY = 'monitor-key-0123456789abcdef';
const connected = { state: 'connected', connected: true, linked: true, needsScan: false, phone: '15550100001', qr: null };
const reconnecting = { state: 'reconnecting', connected: false, linked: true, needsScan: false, phone: '15550100001', qr: null };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-monitor-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('monitor', () => {
  it('ad hoc: a health line, then a drop gives a health change and an alert; abort stops it cleanly', async () => {
    let status: Record<string, unknown> = connected;
    const { factory, log } = fakeClientFactory({ getSession: async () => status });
    const ctl = new AbortController();
    const r = await runCli(['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', '0.05', '--json'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
      signal: ctl.signal,
      configDir: dir,
      onStdout: (_c, all) => {
        const lines = parseJsonLines(all);
        if (lines.some((l) => l.event === 'health' && l.health === 'connected')) status = reconnecting;
        if (lines.some((l) => l.event === 'alert')) ctl.abort();
      },
    });
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'started', agents: [{ teamId: 'adhoc', agentId: 'a1' }], intervalSec: 0.05 });
    expect(lines).toContainEqual(expect.objectContaining({ event: 'health', agentId: 'a1', health: 'connected', previous: 'unknown', state: 'connected', phone: '15550100001' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'health', agentId: 'a1', health: 'reconnecting', previous: 'connected' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'alert', kind: 'reconnecting', agentIds: ['a1'] }));
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(log.created[0]).toMatchObject({ apiKey: KEY });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('saved teams: polls their agents with the keychain key; human lines', async () => {
    const store = new MemorySecretStore();
    const { factory, log } = fakeClientFactory({ getSession: async () => connected });
    const add = await runCli(['team', 'add', '--label', 'Demo', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--agent', 'a2'], {
      env: { CHANNEL_API_KEY: KEY },
      createClient: factory,
      secretStore: store,
      configDir: dir,
    });
    expect(add.code).toBe(0);
    const ctl = new AbortController();
    const r = await runCli(['monitor', '--interval', '0.05'], {
      createClient: factory,
      secretStore: store,
      configDir: dir,
      signal: ctl.signal,
      onStdout: (_c, all) => {
        if ((all.match(/: connected \(was unknown\)/g) ?? []).length >= 2) ctl.abort();
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^watching 2 agents \(Demo\/a1, Demo\/a2\) every 0.05 s/);
    expect(r.stdout).toMatch(/Demo\/a1: connected \(was unknown\) \+15550100001/);
    expect(r.stdout).toMatch(/Demo\/a2: connected/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('monitor stopped');
    expect(log.created.at(-1)).toMatchObject({ apiKey: KEY });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  const bad: Array<[string, string[], Record<string, string>]> = [
    ['--team with --base-url', ['monitor', '--team', 'x', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], { CHANNEL_API_KEY: KEY }],
    ['--base-url without --agent', ['monitor', '--base-url', 'http://127.0.0.1:9'], { CHANNEL_API_KEY: KEY }],
    ['no key for ad hoc', ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1'], {}],
    ['fast interval above interval', ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', '5', '--fast-interval', '10'], { CHANNEL_API_KEY: KEY }],
    ['bad interval', ['monitor', '--base-url', 'http://127.0.0.1:9', '--agent', 'a1', '--interval', 'often'], { CHANNEL_API_KEY: KEY }],
    ['no saved teams', ['monitor'], {}],
    ['unknown team', ['monitor', '--team', 'nope'], {}],
  ];
  for (const [name, args, env] of bad) {
    it(`usage error: ${name} → exit 2, nothing polled`, async () => {
      const { factory, log } = fakeClientFactory({ getSession: async () => connected });
      const r = await runCli(args, { env, createClient: factory, secretStore: new MemorySecretStore(), configDir: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(log.calls).toEqual([]);
    });
  }
});
