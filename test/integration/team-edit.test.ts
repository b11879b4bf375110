// A team is changed in place, through the contract (the Settings screen) and `team edit`: its label,
// base URL and key change, its id does not, and what is kept under the id (the open incident, the
// webhook registrations) stays with it. A key the service rejects, a label taken by another team or
// nothing to change is refused and changes nothing. The key is never a flag and never printed.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentDTO, TeamDTO } from '../../src-shared/contract';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { runCli } from '../helpers/cli';
import { startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { DEMO_KEY, startTestEmulator, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

describe('a team changed in place', () => {
  let emu: Emulator;
  let dir: string;
  let second: Emulator;
  let app: TestCompanion;
  const secrets = new MemorySecretStore();
  emulatorSuite('cc-team-edit-', (s) => ({ emu, dir } = s));
  beforeAll(async () => {
    second = await startTestEmulator();
    app = await startTestCompanion(dir, { secrets, poll: { intervalMs: 200, fastIntervalMs: 100 } });
  });
  afterAll(async () => {
    await app?.close();
    await second?.close();
  });

  it('keeps its id, its open incident and its registrations; a new base URL is polled at once', async () => {
    const team = await app.ok<TeamDTO>('teams.add', {
      label: 'Support',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: 'agent-connected' }, { agentId: 'agent-unlinked' }],
    });
    const open = await waitFor(
      async () => (await app.ok<IncidentDTO[]>('alerts.list')).find((i) => i.agentId === 'agent-unlinked'),
      8000,
      'the needs-scan incident',
    );
    await app.companion.registrations.append({
      teamId: team.teamId,
      agentId: 'agent-connected',
      url: 'https://hooks.example/a',
      source: 'cli-register',
      target: 'other',
    });

    const edited = await app.ok<TeamDTO>('teams.update', {
      teamId: team.teamId,
      label: 'Support desk',
      baseUrl: second.baseUrl,
    });
    expect(edited).toMatchObject({ teamId: team.teamId, label: 'Support desk', baseUrl: second.baseUrl });
    expect((await app.ok<TeamDTO[]>('teams.list')).map((t) => [t.teamId, t.label])).toEqual([
      [team.teamId, 'Support desk'],
    ]);
    // The team's agents are now read from the second service: a drop there is seen.
    await fetch(`${second.controlUrl}/agents/agent-connected/drop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 60 }),
    });
    await waitFor(
      () => app.companion.monitor().snapshotOf(team.teamId, 'agent-connected')?.health === 'reconnecting',
      8000,
      'the drop on the new base URL',
    );
    // What was kept under the id is still there.
    expect((await app.ok<IncidentDTO[]>('alerts.list')).find((i) => i.id === open.id)).toMatchObject({
      teamId: team.teamId,
      openedAt: open.openedAt,
      resolvedAt: null,
    });
    const kept = await app.companion.registrations.list(team.teamId, 'agent-connected');
    expect(kept.entries.map((e) => e.url)).toEqual(['https://hooks.example/a']);
  });

  it('refuses a rejected key, a taken label and an empty change, and changes nothing', async () => {
    const [team] = await app.ok<TeamDTO[]>('teams.list');
    const other = await app.ok<TeamDTO>('teams.add', {
      label: 'Other',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: 'agent-flaky' }],
    });
    const before = { teams: await app.ok<TeamDTO[]>('teams.list'), secrets: secrets.snapshot() };

    const rejected = await app.call('teams.update', { teamId: team!.teamId, apiKey: 'wrong-key-0123456789' });
    expect(rejected).toMatchObject({ ok: false, error: { code: 'KEY_REJECTED' } });
    const taken = await app.call('teams.update', { teamId: other.teamId, label: 'support DESK' });
    expect(taken).toMatchObject({ ok: false, error: { code: 'DUPLICATE' } });
    const empty = await app.call('teams.update', { teamId: team!.teamId });
    expect(empty).toMatchObject({ ok: false });

    expect(await app.ok<TeamDTO[]>('teams.list')).toEqual(before.teams);
    expect(secrets.snapshot()).toEqual(before.secrets);
    await app.ok('teams.remove', { teamId: other.teamId });
  });

  it('`team edit` changes the label, the base URL and the key (from the environment), never printing the key', async () => {
    const [team] = await app.ok<TeamDTO[]>('teams.list');
    const cli = (args: string[], env: Record<string, string> = {}) =>
      runCli(['team', 'edit', ...args], { env, configDir: path.join(dir, 'config'), secretStore: secrets });

    const nothing = await cli([team!.teamId]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');
    const noKey = await cli([team!.teamId, '--key-from-env']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('CHANNEL_API_KEY');
    const wrong = await cli([team!.teamId, '--key-from-env'], { CHANNEL_API_KEY: 'wrong-key-0123456789' });
    expect(wrong.code).toBe(4);

    const r = await cli(['Support desk', '--label', 'Support', '--base-url', emu.baseUrl, '--key-from-env', '--json'], {
      CHANNEL_API_KEY: DEMO_KEY,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()[0]).toMatchObject({ label: 'Support', baseUrl: emu.baseUrl });
    expect(r.stdout + r.stderr + wrong.stdout + wrong.stderr).not.toContain(DEMO_KEY);
    expect(await readFile(path.join(dir, 'config', 'config.json'), 'utf8')).not.toContain(DEMO_KEY);
    // The running app follows the file: the same id, the new label and base URL, its client made again.
    await waitFor(
      async () =>
        (await app.ok<TeamDTO[]>('teams.list')).find((t) => t.teamId === team!.teamId && t.label === 'Support'),
      8000,
      'the app to follow the edit',
    );
    expect((await app.companion.clientFor(team!.teamId)).baseUrl).toBe(emu.baseUrl);
  });
});
