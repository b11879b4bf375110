// `monitor --json` against the emulator: a health line per agent, then a drop of the connected
// agent gives a reconnecting health line and an alert; abort stops it with a stopped line. Over a saved
// team it is a client of the data folder's companion (started for the command here): the contract's DTOs.
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { runCli, runCliUntil } from '../helpers/cli';
import { DEMO_KEY, control } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

let emu: Emulator;
let dir: string;

emulatorSuite('cc-cli-monitor-', (s) => ({ emu, dir } = s));

describe('monitor against the emulator', () => {
  it('saved team: health lines, then an alert after a drop; stops cleanly', async () => {
    const store = new MemorySecretStore();
    const add = await runCli(
      ['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-connected'],
      { env: { CHANNEL_API_KEY: DEMO_KEY }, configDir: dir, secretStore: store },
    );
    expect(add.code).toBe(0);

    const health = (l: Record<string, unknown>) => (l.agent as { health?: string } | undefined)?.health;
    const r = await runCliUntil(
      ['monitor', '--team', 'Demo', '--json', '--interval', '0.2', '--fast-interval', '0.1'],
      { configDir: dir, secretStore: store },
      {
        when: (lines) => lines.some((l) => l.event === 'health' && health(l) === 'connected'),
        act: () => control(emu, 'POST', '/agents/agent-connected/drop', { seconds: 30 }),
        until: (lines) => lines.some((l) => l.event === 'alert'),
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    const lines = r.json();
    expect(lines[0]).toMatchObject({
      event: 'started',
      companion: null,
      agents: [{ team: 'Demo', agentId: 'agent-connected' }],
      intervalSec: 0.2,
    });
    const teamId = (lines[0]!.agents as Array<{ teamId: string }>)[0]!.teamId;
    expect(lines).toContainEqual({
      event: 'health',
      agent: expect.objectContaining({
        teamId,
        agentId: 'agent-connected',
        health: 'connected',
        phone: '15550100001',
      }),
      previous: null,
    });
    expect(lines).toContainEqual({
      event: 'health',
      agent: expect.objectContaining({ teamId, agentId: 'agent-connected', health: 'reconnecting' }),
      previous: 'connected',
    });
    expect(lines.find((l) => l.event === 'alert')).toEqual({
      event: 'alert',
      alert: expect.objectContaining({
        change: 'opened',
        incident: expect.objectContaining({
          id: expect.any(String),
          teamId,
          agentId: 'agent-connected',
          kind: 'reconnecting',
          title: expect.any(String),
          endedAt: null,
          durationMs: null,
        }),
      }),
    });
    expect(lines.at(-1)).toEqual({ event: 'stopped' });
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
    await control(emu, 'POST', '/agents/agent-connected/recover');
  }, 20_000);

  it('ad hoc with the env key: an unlinked agent is reported as needs-scan with an alert', async () => {
    const r = await runCliUntil(
      ['monitor', '--base-url', emu.baseUrl, '--agent', 'agent-unlinked', '--json', '--interval', '0.2'],
      { env: { CHANNEL_API_KEY: DEMO_KEY } },
      {
        until: (lines) => lines.some((l) => l.event === 'alert'),
      },
    );
    expect(r.code).toBe(0);
    expect(r.json()).toContainEqual(
      expect.objectContaining({ event: 'health', teamId: 'adhoc', agentId: 'agent-unlinked', health: 'needs-scan' }),
    );
    expect(r.json()).toContainEqual(expect.objectContaining({ event: 'alert', kind: 'needs-scan' }));
  }, 20_000);
});
