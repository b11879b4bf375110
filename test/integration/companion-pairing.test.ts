// A pairing through the contract over the companion and the emulator, with the monitor polling only
// once a minute: the pairing's clock comes from the main side, and a scan that a pairing read shows
// reaches health, the tray's worst state and the alerts at once (not at the next poll). app.ping
// answers the main side's clock and start.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AgentHealthDTO, AnyEvent, PingDTO, SessionDTO } from '../../src-shared/contract';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';

describe('pairing over the companion', () => {
  let emu: Emulator;
  const events: Array<AnyEvent & { at: number }> = [];
  let teamId = '';
  const { ok } = companionSuite(
    'cc-pairing-',
    {
      agents: [{ agentId: 'agent-unlinked' }],
      companion: {
        // Only a read on demand can explain a change seen within seconds.
        poll: { intervalMs: 60_000, fastIntervalMs: 60_000 },
        onEvent: (e) => events.push({ ...e, at: Date.now() }),
      },
    },
    (s) => ({ emu, teamId } = s),
  );

  beforeAll(async () => {
    // The first poll: the agent needs a scan, and an incident is open for it.
    await waitFor(() => events.some((e) => e.name === 'health.changed' && e.payload.health === 'needs-scan'), 8000);
  });

  it('app.ping answers the main side clock and when it started', async () => {
    const before = Date.now();
    const p = await ok<PingDTO>('app.ping');
    expect(p.at).toBeGreaterThanOrEqual(before);
    expect(p.upSince).toBeLessThanOrEqual(p.at);
    expect((await ok<PingDTO>('app.ping')).upSince).toBe(p.upSince);
  });

  it('pairing times come from the start; a scan seen by a pairing read updates health and alerts at once', async () => {
    const t0 = Date.now();
    const started = await ok<SessionDTO>('pairing.start', { teamId, agentId: 'agent-unlinked' });
    expect(started.qr).toMatch(/^data:image\/png;base64,/);
    expect(started.pairing?.startedHere).toBe(true);
    expect(started.pairing!.startedAt).toBeGreaterThanOrEqual(t0);
    expect(started.pairing!.expiresAt - started.pairing!.startedAt).toBe(120_000);
    expect(started.pairing!.qrEveryMs).toBe(20_000);
    const again = await ok<SessionDTO>('pairing.session', { teamId, agentId: 'agent-unlinked' });
    expect(again.pairing).toEqual(started.pairing);

    await control(emu, 'POST', '/agents/agent-unlinked/scan', { phone: '15550109999' });
    const mark = events.length;
    const requestsBefore = (await emu.control.state()).counters.serviceRequests;
    const linked = await ok<SessionDTO>('pairing.session', { teamId, agentId: 'agent-unlinked' });
    expect(linked).toMatchObject({ connected: true, needsScan: false, phone: '15550109999' });
    expect(linked.pairing).toBeUndefined();

    // Health and the alert move with two calls to the service: the pairing read, and the one poll of
    // that agent the read asked for (the scheduled polls are a minute apart).
    const after = () => events.slice(mark);
    const health = await waitFor(
      () =>
        after().find(
          (e): e is AnyEvent & { at: number; payload: AgentHealthDTO } =>
            e.name === 'health.changed' && e.payload.health === 'connected',
        ),
      3000,
    );
    expect(health.payload).toMatchObject({ agentId: 'agent-unlinked', health: 'connected' });
    await waitFor(() => after().find((e) => e.name === 'alert' && e.payload.change === 'resolved'), 3000);
    expect((await emu.control.state()).counters.serviceRequests - requestsBefore).toBe(2);
    expect((await ok<{ worst: string }>('health.snapshot')).worst).toBe('connected');
  });
});
