// The companion started again over the same folders: an incident open when it closed is listed again
// with the same id and stays open while the agent still needs a scan (no "resolved" event, nothing
// to tell); removing the agent then closes it as removed, quietly, and a third start lists nothing
// open but keeps it in the history; availability counts only the time the companion watched.
import { afterAll, describe, expect, it } from 'vitest';
import type { AnyEvent, AvailabilityDTO, IncidentDTO } from '../../src-shared/contract';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { startTestCompanion, type TestCompanion } from '../helpers/companion-suite';
import { contractCaller } from '../helpers/contract-call';
import { DEMO_KEY, waitFor } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

describe('companion across a restart', () => {
  let emu: Emulator;
  let dir: string;
  const secrets = new MemorySecretStore();
  let running: (TestCompanion & { events: AnyEvent[] }) | null = null;

  async function start() {
    const events: AnyEvent[] = [];
    running = {
      ...(await startTestCompanion(dir, {
        secrets,
        poll: { intervalMs: 300, fastIntervalMs: 150 },
        onEvent: (e) => events.push(e),
      })),
      events,
    };
    return running;
  }
  async function stop() {
    await running?.close();
    running = null;
  }
  const { ok } = contractCaller(() => running!.handlers);
  const alertEvents = () => running!.events.flatMap((e) => (e.name === 'alert' ? [e.payload] : []));

  emulatorSuite('cc-restart-', (s) => ({ emu, dir } = s));
  afterAll(async () => {
    await stop();
  });

  it('keeps the open incident open while the agent still needs a scan, and closes it as removed when the agent goes', async () => {
    await start();
    const team = await ok<{ teamId: string }>('teams.add', {
      label: 'Emulated',
      baseUrl: emu.baseUrl,
      apiKey: DEMO_KEY,
      agents: [{ agentId: 'agent-connected' }, { agentId: 'agent-unlinked' }],
    });
    const open = await waitFor(
      async () => (await ok<IncidentDTO[]>('alerts.list')).find((i) => i.agentId === 'agent-unlinked'),
      8000,
      'the unlink incident',
    );
    await stop();

    await start();
    expect((await ok<IncidentDTO[]>('alerts.list')).map((i) => [i.id, i.kind, i.resolvedAt])).toEqual([
      [open.id, open.kind, null],
    ]);
    // Several polls of the still unlinked agent later: still open, nothing resolved, nothing to tell.
    const before = await waitFor(
      () => running!.companion.monitor().snapshotOf(team.teamId, 'agent-unlinked')?.lastPollAt,
      8000,
      'the first poll',
    );
    expect(running!.companion.monitor().snapshotOf(team.teamId, 'agent-unlinked')?.health).toBe('needs-scan');
    await waitFor(
      () => (running!.companion.monitor().snapshotOf(team.teamId, 'agent-unlinked')?.lastPollAt ?? 0) > before,
      8000,
      'another poll',
    );
    expect(alertEvents()).toEqual([]);
    expect((await ok<IncidentDTO[]>('alerts.list')).map((i) => i.id)).toEqual([open.id]);

    await ok('agents.remove', { teamId: team.teamId, agentId: 'agent-unlinked' });
    const closed = await waitFor(() => alertEvents().find((e) => e.change === 'resolved'), 8000, 'the close');
    expect(closed).toMatchObject({ notify: false, incident: { id: open.id, removed: true } });
    expect(await ok<IncidentDTO[]>('alerts.list')).toEqual([]);
    await stop();

    await start();
    expect(await ok<IncidentDTO[]>('alerts.list')).toEqual([]);
    // The closed incident is in the history kept in the data folder.
    const history = await ok<IncidentDTO[]>('alerts.history', { agentId: 'agent-unlinked' });
    expect(history.map((i) => [i.id, i.kind, i.removed, i.resolvedAt !== null])).toEqual([
      [open.id, open.kind, true, true],
    ]);
    expect(await ok<IncidentDTO[]>('alerts.history', { kind: 'reconnecting' })).toEqual([]);
    // The connected agent was up for all the time it was watched; the time between runs is not counted.
    const availability = await ok<AvailabilityDTO>('health.availability', {
      teamId: team.teamId,
      agentId: 'agent-connected',
    });
    expect(availability.windows.map((w) => w.windowMs)).toEqual([24, 7 * 24, 30 * 24].map((h) => h * 3_600_000));
    for (const w of availability.windows) {
      expect(w.observedMs).toBeGreaterThan(0);
      expect(w.upMs).toBe(w.observedMs);
    }
  });
});
