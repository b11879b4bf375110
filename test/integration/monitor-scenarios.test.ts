// End-to-end monitor scenarios: the monitor against the emulator over real loopback HTTP, with ONE
// fake clock driving both (test/helpers/stepped-clock.ts).
import { describe, expect, it } from 'vitest';
import { type Alert } from '../../src-main/core/monitor';
import { formatDuration } from '../../src-main/core/monitor/time';
import { decodeQrPng, pngFromDataUrl } from '../../src-main/cli/qr';
import { steppedRig, trackHttp } from '../helpers/stepped-clock';
import { monitorRig, type SeedAgents } from '../helpers/monitor-rig';

const KEY = 'scenario-monitor-key-1';
const TEAM = 'team-acc';
const START = Date.UTC(2024, 4, 6, 9, 0, 0);

// ----- fixture -----------------------------------------------------------------------------------

trackHttp();
const rig = monitorRig();

// The app's poll settings (team store schema defaults: fast 2 s; jitter, backoff, per-team cap and
// timeout are the poller's defaults), the interval as given, and the default alert rules.
const setup = (agents: SeedAgents, o: { emulatorSeed: number; monitorSeed: number; intervalMs: number }) =>
  steppedRig(rig, {
    start: START,
    key: KEY,
    teamId: TEAM,
    agents,
    tmpPrefix: 'monitor-acc-',
    seeds: { emulator: o.emulatorSeed, monitor: o.monitorSeed },
    intervalMs: o.intervalMs,
    monitor: { idPrefix: 'acc-' },
  });

const brief = (a: Alert) => [a.kind, a.urgent, [...a.agentIds].sort().join(',')];

describe('monitor scenarios (emulator + client + monitor on one fake clock)', () => {
  it('1: pairing one, dropping one for 20 s and unlinking one give exactly one urgent unlink alert, one reconnecting alert and one recovery notice', async () => {
    const h = await setup(
      [
        { agentId: 'pairme', state: 'unlinked' },
        { agentId: 'unlinkme', state: 'connected', phone: '15550100002' },
        { agentId: 'dropme', state: 'connected', phone: '15550100003' },
      ],
      { emulatorSeed: 1, monitorSeed: 7, intervalMs: 15_000 },
    );

    // A person starts pairing through the client and is shown the QR.
    const started = (await h.client.startPairing('pairme')) ?? (await h.client.getSession('pairme'));
    expect(started).toMatchObject({ state: 'pairing', needsScan: true });
    const png = pngFromDataUrl(started.qr ?? '');
    expect(png).not.toBeNull();
    const qrText = decodeQrPng(png!);
    expect(qrText).toBeTruthy();

    h.monitor.start();
    await h.clock.runTo(0);
    expect(h.healthOf('pairme')).toBe('needs-scan');
    expect(h.healthOf('unlinkme')).toBe('connected');
    expect(h.healthOf('dropme')).toBe('connected');
    expect(h.monitor.snapshot().find((s) => s.agentId === 'pairme')).toMatchObject({ pairing: true, state: 'pairing' });

    // The phone scans the QR it was shown, 3 s later; the fast poll (2 s) sees the link.
    await h.clock.runTo(3000);
    await h.emu.control.scan('pairme', { phone: '15550100001', token: qrText! });
    const pairedIn = await h.clock.runUntil('paired', () => h.healthOf('pairme') === 'connected', 5000);
    expect(pairedIn).toBeLessThanOrEqual(2200 + 250);
    expect(h.alerts).toEqual([]); // a pairing started on purpose raises nothing

    // Someone unlinks a number from the phone.
    await h.clock.runTo(20_000);
    await h.emu.control.unlink('unlinkme');
    const unlinkSeenIn = await h.clock.runUntil('unlink alert', () => h.alerts.length >= 1, 20_000);
    expect(unlinkSeenIn).toBeLessThanOrEqual(15_000 * 1.1 + 250);
    expect(h.alerts.map(brief)).toEqual([['needs-scan', true, 'unlinkme']]);
    expect(h.alerts[0]!.title).toBe('unlinkme (+15550100002) needs a QR scan again');

    // Another drops for 20 s, just before its next poll is due (so the drop is seen at once).
    await h.clock.runTo(60_000);
    const lastDropPoll = h.polls.filter((p) => p.agentId === 'dropme').at(-1)!;
    const dueAt = lastDropPoll.at + lastDropPoll.nextPollInMs - START;
    await h.clock.runTo(dueAt - 1100); // a cycle may take an agent early (coalesceMs)
    expect(h.polls.filter((p) => p.agentId === 'dropme').at(-1)).toBe(lastDropPoll);
    const droppedAt = h.clock.now();
    await h.emu.control.drop('dropme', { seconds: 20 });
    await h.clock.runUntil('reconnecting', () => h.healthOf('dropme') === 'reconnecting', 2000);
    await h.clock.runUntil('recovered', () => h.alerts.some((a) => a.kind === 'recovered'), 25_000 + 30_000);
    // Several more minutes (short of the 15 min re-alert): nothing else may arrive.
    await h.clock.runFor(5 * 60_000);

    expect(h.alerts.map(brief)).toEqual([
      ['needs-scan', true, 'unlinkme'],
      ['reconnecting', false, 'dropme'],
      ['recovered', false, 'dropme'],
    ]);
    const [, reconnecting, recovered] = h.alerts as [Alert, Alert, Alert];
    expect(reconnecting.at - droppedAt).toBeLessThanOrEqual(1100);
    expect(reconnecting.title).toBe('dropme (+15550100003) is reconnecting');
    expect(recovered.incidentId).toBe(reconnecting.incidentId);
    // The recovery notice waits until the number has stayed connected for 30 s (recoverAfterSec),
    // and the drop's length runs from the poll that saw it to the one that saw it back.
    const backSeen = h.health.find(
      (e) => e.agentId === 'dropme' && e.health === 'connected' && e.previous === 'reconnecting',
    )!.since;
    expect(recovered.at - backSeen).toBe(30_000);
    expect(backSeen - droppedAt).toBeGreaterThan(20_000);
    expect(backSeen - droppedAt).toBeLessThanOrEqual(22_200); // one fast poll (2 s + 10 %)
    const lengthMs = backSeen - reconnecting.at;
    expect(recovered.title).toBe(`dropme (+15550100003) is back to connected after ${formatDuration(lengthMs)}`);
    expect(new Set(h.alerts.map((a) => a.id)).size).toBe(3);
    // Every health change was announced once.
    expect(
      h.health.filter((e) => e.previous !== 'unknown').map((e) => `${e.agentId}:${e.previous}>${e.health}`),
    ).toEqual([
      'pairme:needs-scan>connected',
      'unlinkme:connected>needs-scan',
      'dropme:connected>reconnecting',
      'dropme:reconnecting>connected',
    ]);
    // The unlink stays open (it needs a person); the drop is closed.
    expect(h.monitor.incidents().map((i) => [i.kind, i.agentId])).toEqual([['needs-scan', 'unlinkme']]);

    await h.monitor.flush();
    const path = async (id: string) =>
      (await h.monitor.timeline(id)).map((e) => `${e.from}>${e.to}@${Math.round((e.at - START) / 100) / 10}`);
    const pairme = await h.monitor.timeline('pairme');
    expect(pairme.map((e) => `${e.from}>${e.to}`)).toEqual(['unknown>needs-scan', 'needs-scan>connected']);
    expect(pairme[0]).toMatchObject({ at: START, state: 'pairing', status: { state: 'pairing', needsScan: true } });
    expect(pairme[1]).toMatchObject({ state: 'connected', status: { state: 'connected', phone: '15550100001' } });
    expect(pairme[1]!.at - START).toBeGreaterThan(3000);

    const unlinkme = await h.monitor.timeline('unlinkme');
    expect(unlinkme.map((e) => `${e.from}>${e.to}`)).toEqual(['unknown>connected', 'connected>needs-scan']);
    expect(unlinkme[1]).toMatchObject({ state: 'unlinked', incidentId: h.alerts[0]!.incidentId, at: h.alerts[0]!.at });

    const dropme = await h.monitor.timeline('dropme');
    expect(dropme.map((e) => `${e.from}>${e.to}`)).toEqual([
      'unknown>connected',
      'connected>reconnecting',
      'reconnecting>connected',
    ]);
    expect(dropme[1]).toMatchObject({
      at: reconnecting.at,
      incidentId: reconnecting.incidentId,
      status: { state: 'reconnecting', linked: true, connected: false, needsScan: false },
    });
    expect(dropme[2]).toMatchObject({ at: backSeen, state: 'connected' });
    // Back within one fast poll (2 s + 10 % jitter) of the emulator's reconnect.
    expect(dropme[2]!.at - (droppedAt + 20_000)).toBeGreaterThan(0);
    expect(dropme[2]!.at - (droppedAt + 20_000)).toBeLessThanOrEqual(2200);
    expect(await path('dropme')).toHaveLength(3);

    // The diagnostics export tells each agent's health and changes, and never the API key.
    const diag = await h.monitor.exportDiagnostics();
    expect(diag).toContain(`Agent unlinkme (team ${TEAM})`);
    expect(diag).toContain('health: needs-scan');
    expect(diag).toContain('connected → reconnecting');
    expect(diag).not.toContain(KEY);
  });

  it('2: 500/429/resets on 30 % of polls for 2 min raise no unlink; the whole team down raises exactly one unreachable alert', async () => {
    const ids = ['f1', 'f2', 'f3'];
    const h = await setup(
      ids.map((agentId, i) => ({ agentId, state: 'connected' as const, phone: `1555010001${i}` })),
      { emulatorSeed: 42, monitorSeed: 3, intervalMs: 5000 },
    );
    h.monitor.start();
    await h.clock.runTo(0);
    expect(ids.map(h.healthOf)).toEqual(['connected', 'connected', 'connected']);

    // Phase 1: two minutes of fake time; each call fails with p = 1 − 0.9 × 0.8889 × 0.875 = 0.3.
    const polls0 = h.polls.length;
    h.emu.control.addFault({ kind: '500', probability: 0.1, durationMs: 120_000 });
    h.emu.control.addFault({ kind: '429', probability: 0.1111, durationMs: 120_000, retryAfterSeconds: 1 });
    h.emu.control.addFault({ kind: 'reset', probability: 0.125, durationMs: 120_000 });
    await h.clock.runFor(119_999);
    // Each kind hit: resets too (the client retries a GET once after a network error, so a reset
    // only fails the poll when the retry fails as well).
    const hits = Object.fromEntries((await h.emu.control.state()).faults.map((f) => [f.kind, f.hits]));
    expect(hits['500']).toBeGreaterThan(3);
    expect(hits['429']).toBeGreaterThan(3);
    expect(hits['reset']).toBeGreaterThan(3);
    await h.clock.runFor(1);
    expect((await h.emu.control.state()).faults).toEqual([]);
    const phase1 = h.polls.slice(polls0);
    const failed = phase1.filter((p) => p.error !== undefined);
    expect(phase1.length).toBeGreaterThanOrEqual(40);
    expect(failed.length / phase1.length).toBeGreaterThan(0.1);
    expect(failed.length / phase1.length).toBeLessThan(0.5);
    for (const p of failed)
      expect(['server-error', 'rate-limited', 'network-error']).toContain((p.error as { kind?: string }).kind);
    // Nothing ever says "unlinked": health only moves between connected and (briefly) unreachable.
    expect(h.alerts.filter((a) => a.kind !== 'unreachable' && a.kind !== 'recovered')).toEqual([]);
    expect(h.health.every((e) => e.health === 'connected' || e.health === 'unreachable')).toBe(true);
    expect(h.monitor.incidents().filter((i) => i.kind === 'needs-scan')).toEqual([]);

    // The faults ended with the two minutes: every agent is connected again within the backoff.
    await h.clock.runUntil('all connected', () => ids.every((id) => h.healthOf(id) === 'connected'), 150_000, 1000);
    await h.clock.runFor(30_000);
    expect(h.monitor.incidents()).toEqual([]);
    const phase1Alerts = h.alerts.length;

    // Phase 2: every call of the team fails.
    h.emu.control.addFault({ kind: 'reset', probability: 1 });
    const downIn = await h.clock.runUntil('team unreachable', () => h.alerts.length > phase1Alerts, 60_000);
    // The first failure at the next poll (≤ 5 s), unreachable at the second, one interval later.
    expect(downIn).toBeLessThanOrEqual(2 * 5000 + 250);
    await h.clock.runFor(5 * 60_000); // the backoff reaches its 2-min ceiling; still one alert
    const during = h.alerts.slice(phase1Alerts);
    expect(during.map(brief)).toEqual([['unreachable', true, 'f1,f2,f3']]);
    expect(during[0]!.title).toBe(`Service unreachable for team ${TEAM}`);
    expect(ids.map(h.healthOf)).toEqual(['unreachable', 'unreachable', 'unreachable']);
    expect(h.health.some((e) => e.health === 'needs-scan')).toBe(false);
    const open = h.monitor.incidents();
    expect(open.filter((i) => i.agentId === null).map((i) => i.kind)).toEqual(['unreachable']);
    // The last known state is kept in the snapshot.
    expect(h.monitor.snapshot().map((s) => s.state)).toEqual(['connected', 'connected', 'connected']);

    h.emu.control.clearFaults();
    await h.clock.runUntil('team back', () => h.alerts.length > phase1Alerts + 1, 150_000, 1000);
    await h.clock.runFor(60_000);
    expect(h.alerts.slice(phase1Alerts).map(brief)).toEqual([
      ['unreachable', true, 'f1,f2,f3'],
      ['recovered', false, 'f1,f2,f3'],
    ]);
    expect(h.alerts.at(-1)!.title).toMatch(new RegExp(`^Service reachable again for team ${TEAM} after \\d`));
    expect(ids.map(h.healthOf)).toEqual(['connected', 'connected', 'connected']);
    expect(h.monitor.incidents()).toEqual([]);
    // The API key never reaches the diagnostics.
    expect(await h.monitor.exportDiagnostics()).not.toContain(KEY);
  });
});
