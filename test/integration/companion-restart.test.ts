// The companion started again over the same folders: an incident open when it closed is listed again
// with the same id and stays open while the agent still needs a scan (no "resolved" event, nothing
// to tell); removing the agent then closes it as removed, quietly, and a third start lists nothing
// open but keeps it in the history; availability counts only the time the companion watched.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, AvailabilityDTO, IncidentDTO, Result } from '../../src-shared/contract';
import { createHandlers, type Handlers } from '../../src-main/app/handlers';
import { implementContract, type CompanionContract } from '../../src-main/app/contract';
import { createCompanion, type Companion } from '../../src-main/app/companion/companion';
import { MemorySecretStore } from '../../src-main/core/secrets';
import type { Emulator } from '../../src-main/emulator';
import { DEMO_KEY, startTestEmulator, waitFor } from '../helpers/emulator';

describe('companion across a restart', () => {
  let emu: Emulator;
  let dir: string;
  const secrets = new MemorySecretStore();
  let running: { companion: Companion; contract: CompanionContract; handlers: Handlers; events: AnyEvent[] } | null =
    null;

  async function start() {
    const companion = await createCompanion({
      configDir: path.join(dir, 'config'),
      dataDir: path.join(dir, 'data'),
      secrets,
      poll: { intervalMs: 300, fastIntervalMs: 150 },
    });
    const contract = implementContract(companion);
    const events: AnyEvent[] = [];
    contract.events.onAny((e) => events.push(e));
    running = { companion, contract, handlers: createHandlers(contract.implementations), events };
    return running;
  }
  async function stop() {
    running?.contract.dispose();
    await running?.companion.close();
    running = null;
  }
  async function ok<T>(name: string, args: unknown = {}): Promise<T> {
    const r = await (running!.handlers[name as keyof Handlers] as (a: unknown) => Promise<Result<unknown>>)(args);
    if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
    return r.value as T;
  }
  const alertEvents = () => running!.events.flatMap((e) => (e.name === 'alert' ? [e.payload] : []));

  beforeAll(async () => {
    emu = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'cc-restart-'));
  });
  afterAll(async () => {
    await stop();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
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
