// The demo across a restart of the companion (`serve --emulator` started again on its data folder):
// the demo team keeps its id, the emulator its port and its agents' session states (an unlinked agent
// is still unlinked, a linked one keeps its phone), and an incident open at the stop is taken up with
// its id, severity and start. When the port of the last run is taken, the emulator takes another one
// and the demo team's base URL follows.
import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDTO, AvailabilityDTO, IncidentDTO, TeamDTO } from '../../src-shared/contract';
import { startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';

const POLL = { intervalMs: 200, fastIntervalMs: 100 };

describe('the demo across a restart', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function folder(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cc-demo-restart-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async function start(dir: string): Promise<TestCompanion & { baseUrl: string; teamId: string }> {
    const c = await startTestCompanion(dir, { demo: true, poll: POLL });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await c.close();
    };
    cleanup.push(close);
    const { team, baseUrl } = await c.ok<{ team: TeamDTO; baseUrl: string }>('demo.start');
    return { ...c, close, baseUrl, teamId: team.teamId };
  }

  it('keeps the team id, the port, the agents’ sessions and the open incident', async () => {
    const dir = await folder();
    const first = await start(dir);
    const emu = { controlUrl: `${first.baseUrl}/_emulator` };
    await control(emu, 'POST', '/agents/agent-connected/unlink');
    const open = await waitFor(
      async () => (await first.ok<IncidentDTO[]>('alerts.list')).find((i) => i.agentId === 'agent-connected'),
      8000,
      'the needs-scan incident',
    );
    expect(open).toMatchObject({ teamId: first.teamId, kind: 'needs-scan', severity: 'urgent' });
    // Every open incident as it was at the stop (the seed's unlinked agent has one too).
    const before = (await first.ok<IncidentDTO[]>('alerts.list')).map((i) => [i.id, i.kind, i.severity, i.openedAt]);
    expect(before).toHaveLength(2);
    await first.close();

    const second = await start(dir);
    expect(second.teamId).toBe(first.teamId);
    expect(second.baseUrl).toBe(first.baseUrl);
    expect((await second.ok<TeamDTO[]>('teams.list')).map((t) => t.teamId)).toEqual([first.teamId]);
    // The agent is still unlinked in the emulator, and the incident goes on: same id, severity and start.
    const session = await control<{ state: string }>(emu, 'GET', '/agents/agent-connected/session');
    expect(session.state).toBe('unlinked');
    const listed = await second.ok<IncidentDTO[]>('alerts.list');
    expect(listed.map((i) => [i.id, i.kind, i.severity, i.openedAt])).toEqual(before);
    expect(listed.find((i) => i.id === open.id)).toMatchObject({ teamId: first.teamId, resolvedAt: null });
    // Polled again: the agent reads as needing a scan, and the incident is still the same one.
    await waitFor(
      async () =>
        (await second.ok<AgentDTO[]>('agents.list', { teamId: second.teamId })).find(
          (a) => a.agentId === 'agent-connected' && a.health.health === 'needs-scan',
        ),
      8000,
      'the first poll after the restart',
    );
    expect((await second.ok<IncidentDTO[]>('alerts.list')).map((i) => i.id)).toEqual(before.map(([id]) => id));
    // Its availability counts the time it needed a scan before the restart: not "100 % connected".
    const availability = await second.ok<AvailabilityDTO>('health.availability', {
      teamId: second.teamId,
      agentId: 'agent-connected',
    });
    expect(availability.windows.every((w) => w.observedMs > 0 && w.upMs < w.observedMs)).toBe(true);
    // The other agents kept theirs: the flaky line is linked with its phone.
    const flaky = await control<{ state: string; phone: string | null }>(emu, 'GET', '/agents/agent-flaky/session');
    expect(flaky.phone).toBe('15550100003');
  });

  it('a companion started by any shell (a command, the desktop app) resumes the kept demo: its incident stays open', async () => {
    const dir = await folder();
    const first = await start(dir);
    const open = await waitFor(
      async () => (await first.ok<IncidentDTO[]>('alerts.list')).find((i) => i.agentId === 'agent-unlinked'),
      8000,
      'the seed’s needs-scan incident',
    );
    await first.close();
    // Not asked for the demo (no demo option), as a command or the desktop app starts it.
    const plain = await startTestCompanion(dir, { poll: POLL });
    cleanup.push(() => plain.close());
    expect((await plain.ok<TeamDTO[]>('teams.list')).map((t) => t.teamId)).toEqual([first.teamId]);
    // Polled since the start: the agent reads as needing a scan again.
    await waitFor(
      async () =>
        (await plain.ok<AgentDTO[]>('agents.list', { teamId: first.teamId })).find(
          (a) => a.agentId === 'agent-unlinked' && a.health.checkedAt !== null && a.health.health === 'needs-scan',
        ),
      8000,
      'a poll after the start',
    );
    const listed = await plain.ok<IncidentDTO[]>('alerts.list');
    expect(listed.find((i) => i.id === open.id)).toMatchObject({ resolvedAt: null, openedAt: open.openedAt });
    expect(listed.find((i) => i.id === open.id)?.removed).toBeUndefined();
  });

  it('takes another port when the last one is taken, and the team’s base URL follows', async () => {
    const dir = await folder();
    const first = await start(dir);
    const port = Number(new URL(first.baseUrl).port);
    await first.close();
    const holder: Server = createServer();
    await new Promise<void>((resolve, reject) => {
      holder.once('error', reject);
      holder.listen(port, '127.0.0.1', resolve);
    });
    cleanup.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    const second = await start(dir);
    expect(second.teamId).toBe(first.teamId);
    expect(second.baseUrl).not.toBe(first.baseUrl);
    const [team] = await second.ok<TeamDTO[]>('teams.list');
    expect(team?.baseUrl).toBe(second.baseUrl);
    // The demo team answers through the new address.
    await waitFor(
      async () =>
        (await second.ok<AgentDTO[]>('agents.list', { teamId: second.teamId })).find(
          (a) => a.agentId === 'agent-connected' && a.health.health === 'connected',
        ),
      8000,
      'a poll through the new port',
    );
  });
});
