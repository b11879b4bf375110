// `monitor --json` against the emulator: a health line per agent, then a drop of the connected
// agent gives a reconnecting health line and an alert; abort stops it with a stopped line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { parseJsonLines, runCli } from '../helpers/cli';
import { DEMO_KEY, control, startTestEmulator } from '../helpers/emulator';

let emu: Emulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(join(tmpdir(), 'cc-cli-monitor-'));
});
afterAll(async () => {
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('monitor against the emulator', () => {
  it('saved team: health lines, then an alert after a drop; stops cleanly', async () => {
    const store = new MemorySecretStore();
    const add = await runCli(['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-connected'], { env: { CHANNEL_API_KEY: DEMO_KEY }, configDir: dir, secretStore: store });
    expect(add.code).toBe(0);

    const ctl = new AbortController();
    let dropped = false;
    const errors: unknown[] = [];
    const r = await runCli(['monitor', '--team', 'Demo', '--json', '--interval', '0.2', '--fast-interval', '0.1'], {
      configDir: dir,
      secretStore: store,
      signal: ctl.signal,
      onStdout: (_c, all) => {
        const lines = parseJsonLines(all);
        if (!dropped && lines.some((l) => l.event === 'health' && l.health === 'connected')) {
          dropped = true;
          control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 30 }).catch((e: unknown) => {
            errors.push(e);
            ctl.abort();
          });
        }
        if (lines.some((l) => l.event === 'alert')) ctl.abort();
      },
    });
    expect(errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({ event: 'started', agents: [{ team: 'Demo', agentId: 'agent-connected' }] });
    expect(lines).toContainEqual(expect.objectContaining({ event: 'health', team: 'Demo', agentId: 'agent-connected', health: 'connected', phone: '15550100001' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'health', agentId: 'agent-connected', health: 'reconnecting', previous: 'connected' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'alert', kind: 'reconnecting', agentIds: ['agent-connected'], title: expect.any(String) }));
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
    await control(emu, 'POST', '/agents/agent-connected/recover');
  }, 20_000);

  it('ad hoc with the env key: an unlinked agent is reported as needs-scan with an alert', async () => {
    const ctl = new AbortController();
    const r = await runCli(['monitor', '--base-url', emu.baseUrl, '--agent', 'agent-unlinked', '--json', '--interval', '0.2'], {
      env: { CHANNEL_API_KEY: DEMO_KEY },
      signal: ctl.signal,
      onStdout: (_c, all) => {
        if (parseJsonLines(all).some((l) => l.event === 'alert')) ctl.abort();
      },
    });
    expect(r.code).toBe(0);
    expect(r.json()).toContainEqual(expect.objectContaining({ event: 'health', teamId: 'adhoc', agentId: 'agent-unlinked', health: 'needs-scan' }));
    expect(r.json()).toContainEqual(expect.objectContaining({ event: 'alert', kind: 'needs-scan' }));
  }, 20_000);
});
