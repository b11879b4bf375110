// One agent handed from one watcher to another (hub replicas sharing the polling): the watcher that lets
// it go drops it without a word (no resolve, Alertmanager told nothing), and the one that takes it up
// continues its open incident (same id, same start, its acknowledgement) without raising it again.
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../../src-main/core/api/types';
import { AlertmanagerSink, Monitor, type Alert, type IncidentUpdate } from '../../../../src-main/core/monitor';
import { FakeClock } from '../../../helpers/fake-clock';
import { UNLINKED } from '../../../helpers/session-status';
import { utcLocalTime } from '../../../helpers/local-time';
import { startHttpSink, type HttpSink } from '../../../helpers/http-sink';

let alertmanager: HttpSink | null = null;
afterEach(async () => {
  await alertmanager?.close();
  alertmanager = null;
});

function watcher(clock: FakeClock, holds: () => boolean, status: () => SessionStatus) {
  const monitor = new Monitor({
    targets: () => (holds() ? [{ teamId: 't1', agentId: 'a1' }] : []),
    watchedElsewhere: () => !holds(),
    readSession: async () => status(),
    clock,
    random: () => 0.5,
    localTime: utcLocalTime,
  });
  const alerts: Alert[] = [];
  const updates: IncidentUpdate[] = [];
  monitor.on('alert', (a) => alerts.push(a));
  monitor.on('incident', (u) => updates.push({ change: u.change, incident: { ...u.incident } }));
  return { monitor, alerts, updates };
}

describe('Monitor handover between watchers', () => {
  it('the one letting go says nothing; the one taking up continues the incident, acknowledged, unraised again', async () => {
    const clock = new FakeClock();
    let holder: 'a' | 'b' = 'a';
    const a = watcher(
      clock,
      () => holder === 'a',
      () => UNLINKED,
    );
    const b = watcher(
      clock,
      () => holder === 'b',
      () => UNLINKED,
    );
    alertmanager = await startHttpSink();
    const posts = alertmanager.requests;
    const am = new AlertmanagerSink(alertmanager.url.replace(/\/hook$/, '/'), { clock, resendMs: 1000 });
    am.attach(a.monitor);
    a.monitor.start();
    b.monitor.start();
    await clock.advance(0);
    const opened = a.updates.find((u) => u.change === 'opened')!.incident;
    expect(opened.kind).toBe('needs-scan');
    expect(a.alerts).toHaveLength(1);
    a.monitor.acknowledge(opened.id, 'bob');
    await clock.advance(0);
    await am.flush();
    expect(posts.length).toBeGreaterThan(0);
    const postsBefore = posts.length;

    holder = 'b';
    a.monitor.refresh();
    await clock.advance(0);
    // Let go silently: no resolve, no alert, nothing more to Alertmanager.
    expect(a.updates.filter((u) => u.change === 'resolved')).toEqual([]);
    expect(a.alerts).toHaveLength(1);
    expect(a.monitor.incidents()).toEqual([]);
    // Resent every second while it fired here: not once it is let go (the new holder resends it).
    await clock.advance(5_000);
    await am.flush();
    expect(posts).toHaveLength(postsBefore);

    b.monitor.takeUp([{ ...opened, acknowledgedAt: clock.now(), acknowledgedBy: 'bob' }]);
    b.monitor.refresh();
    await clock.advance(15_000);
    expect(b.alerts).toEqual([]);
    expect(b.updates.map((u) => u.change)).not.toContain('opened');
    expect(b.monitor.incidents()).toEqual([
      expect.objectContaining({ id: opened.id, openedAt: opened.openedAt, acknowledgedBy: 'bob' }),
    ]);
    await a.monitor.stop();
    await b.monitor.stop();
  });
});
