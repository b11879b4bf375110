// The monitor against the emulator over real loopback HTTP, with compressed intervals (real time).
import { describe, expect, it } from 'vitest';
import type { MonitorOptions } from '../../src-main/core/monitor';
import { monitorRig, mulberry32, type SeedAgents } from '../helpers/monitor-rig';
import { waitFor } from '../helpers/wait';

const KEY = 'integration-monitor-key-1';

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rig = monitorRig();

function setup(agents: SeedAgents, extra: Partial<MonitorOptions> = {}, random?: () => number) {
  return rig({
    key: KEY,
    teamId: 'team-1',
    agents,
    tmpPrefix: 'monitor-int-',
    emulator: { random },
    client: { timeoutMs: 2000 },
    monitor: {
      poll: { intervalMs: 100, fastIntervalMs: 50, jitter: 0.1, coalesceMs: 30, pollTimeoutMs: 1500, backoff: { baseMs: 40, maxMs: 200, jitter: 0.1 } },
      // A drop is over once connected for 0.3 s (the intervals are compressed too).
      rules: { recoverAfterSec: 0.3 },
      ...extra,
    },
  });
}

describe('Monitor against the emulator', () => {
  it('pairing, unlink and a drop give exactly: urgent unlink alert, one reconnecting alert, one recovery notice', async () => {
    const h = await setup([
      { agentId: 'pairme', state: 'unlinked' },
      { agentId: 'unlinkme', state: 'connected', phone: '15550100002' },
      { agentId: 'dropme', state: 'connected', phone: '15550100003' },
    ]);
    // A person starts pairing (the app does this through the client), then the monitor watches.
    await h.client.startPairing('pairme');
    h.monitor.start();
    await waitFor(() => h.healthOf('pairme') === 'needs-scan' && h.healthOf('unlinkme') === 'connected' && h.healthOf('dropme') === 'connected', 5000, 'first polls');
    expect(h.monitor.snapshot().find((s) => s.agentId === 'pairme')).toMatchObject({ pairing: true, state: 'pairing' });

    await h.emu.control.scan('pairme', { phone: '15550100001' });
    await waitFor(() => h.healthOf('pairme') === 'connected', 5000, 'paired');

    await h.emu.control.unlink('unlinkme');
    await waitFor(() => h.alerts.length >= 1, 5000, 'unlink alert');

    await h.emu.control.drop('dropme', { seconds: 1 });
    await waitFor(() => h.healthOf('dropme') === 'reconnecting', 5000, 'reconnecting');
    await waitFor(() => h.alerts.some((a) => a.kind === 'recovered'), 4000, 'recovered');
    await sleepMs(400); // a few more cycles: nothing else may arrive

    expect(h.alerts.map((a) => [a.kind, a.urgent, a.agentIds.join()])).toEqual([
      ['needs-scan', true, 'unlinkme'],
      ['reconnecting', false, 'dropme'],
      ['recovered', false, 'dropme'],
    ]);
    expect(h.alerts[2]!.title).toMatch(/dropme \(\+15550100003\) is back to connected after 1 s/);
    expect(h.alerts[2]!.incidentId).toBe(h.alerts[1]!.incidentId);

    await h.monitor.flush();
    const path = async (id: string) => (await h.monitor.timeline(id)).map((e) => `${e.from}>${e.to}`);
    expect(await path('pairme')).toEqual(['unknown>needs-scan', 'needs-scan>connected']);
    expect(await path('unlinkme')).toEqual(['unknown>connected', 'connected>needs-scan']);
    expect(await path('dropme')).toEqual(['unknown>connected', 'connected>reconnecting', 'reconnecting>connected']);
    const dropTimeline = await h.monitor.timeline('dropme');
    expect(dropTimeline[1]!.status).toMatchObject({ state: 'reconnecting', linked: true, connected: false, needsScan: false });
    expect(dropTimeline[1]!.incidentId).toBe(h.alerts[1]!.incidentId);

    const diag = await h.monitor.exportDiagnostics();
    expect(diag).toContain('Agent unlinkme (team team-1)');
    expect(diag).toContain('health: needs-scan');
    expect(diag).toContain('connected → reconnecting');
    expect(diag).not.toContain(KEY);
  });

  it('faults on ~30% of polls: no crash, no false unlink; whole team down → exactly one unreachable alert', async () => {
    const h = await setup(
      [
        { agentId: 'f1', state: 'connected', phone: '15550100011' },
        { agentId: 'f2', state: 'connected', phone: '15550100012' },
        { agentId: 'f3', state: 'connected', phone: '15550100013' },
      ],
      { rules: { recoverAfterSec: 0.3, unreachableAfterFailures: 3, unreachableAfterSec: 30, agentUnreachableDelaySec: 30 } },
      mulberry32(42),
    );
    h.monitor.start();
    await waitFor(() => ['f1', 'f2', 'f3'].every((id) => h.healthOf(id) === 'connected'), 5000, 'all connected');

    // Phase 1 — "two minutes" compressed: 500, 429 and connection resets on ~30% of calls.
    let polls = 0;
    let failed = 0;
    const off = h.monitor.on('poll', (p) => {
      polls++;
      if (p.error) failed++;
    });
    h.emu.control.addFault({ kind: '500', probability: 0.1, durationMs: 1500 });
    h.emu.control.addFault({ kind: '429', probability: 0.11, durationMs: 1500, retryAfterSeconds: 0 });
    h.emu.control.addFault({ kind: 'reset', probability: 0.125, durationMs: 1500 });
    await sleepMs(1600);
    off();
    expect(polls).toBeGreaterThan(20);
    expect(failed).toBeGreaterThan(0);
    expect(h.alerts.filter((a) => a.kind === 'needs-scan' || a.kind === 'realert' || a.kind === 'key-rejected')).toEqual([]);
    expect(h.health.every((e) => e.health === 'connected' || e.health === 'unreachable')).toBe(true);
    h.emu.control.clearFaults();
    await waitFor(() => ['f1', 'f2', 'f3'].every((id) => h.healthOf(id) === 'connected'), 4000, 'all connected again');
    await sleepMs(200);

    // Phase 2 — the whole team is down.
    const before = h.alerts.length;
    h.emu.control.addFault({ kind: '500', probability: 1, durationMs: 60_000 });
    await waitFor(() => h.alerts.slice(before).some((a) => a.kind === 'unreachable'), 5000, 'team unreachable');
    await sleepMs(800); // many more failing polls: still one alert
    const during = h.alerts.slice(before);
    expect(during.map((a) => [a.kind, a.urgent, [...a.agentIds].sort().join()])).toEqual([['unreachable', true, 'f1,f2,f3']]);
    expect(['f1', 'f2', 'f3'].every((id) => h.healthOf(id) === 'unreachable')).toBe(true);
    // The last known state is kept: no agent was ever reported unlinked.
    expect(h.health.some((e) => e.health === 'needs-scan')).toBe(false);

    h.emu.control.clearFaults();
    await waitFor(() => h.alerts.slice(before).some((a) => a.kind === 'recovered'), 4000, 'team back');
    await sleepMs(200);
    expect(h.alerts.slice(before).map((a) => a.kind)).toEqual(['unreachable', 'recovered']);
    expect(h.monitor.incidents()).toEqual([]);
  });
});
