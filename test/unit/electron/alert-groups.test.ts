// The alert policy's incident groups through the contract's alert events to native notifications:
// 20 agents unlinked in one poll round are 20 incidents and ONE notification ("20 agents need a QR
// scan"); it closes once every one of them is acknowledged or resolved, each on its own.
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { IncidentFeed } from '../../../src-main/app/contract/alerts';
import { AlertPolicy, type PolicyOutput } from '../../../src-main/core/monitor/policy';
import type { Health } from '../../../src-main/core/monitor/health';
import { createAlertNotifier, type NotificationOptionsLike } from '../../../src-main/electron/notifications';
import type { AlertEventDTO } from '../../../src-shared/contract';
import { utcLocalTime } from '../../helpers/local-time';
import { recordingNotifications } from './fixtures';

const T0 = Date.UTC(2024, 0, 10, 12, 0, 0);
const RULES = { escalateAfterMin: 5, flapCount: 3, flapWindowMinutes: 10 };

function setup(agents: string[]) {
  const policy = new AlertPolicy({ localTime: utcLocalTime });
  const { shown, Notification } = recordingNotifications<NotificationOptionsLike>();
  const openRoute = vi.fn();
  const notifier = createAlertNotifier({ Notification, openRoute, enabled: () => true });
  const events: AlertEventDTO[] = [];
  let now = T0;
  const feed = new IncidentFeed(
    (e) => {
      events.push(e);
      notifier.handle(e);
    },
    () => now,
    () => RULES,
  );
  /** As the app does: each update, then each alert of the step; published once the step is over. */
  const apply = (out: PolicyOutput) => {
    for (const u of out.incidents) feed.onIncident(u);
    for (const a of out.alerts) feed.onAlert(a);
    feed.flush();
  };
  const round = (changes: Array<[string, Health, Health]>, at: number) => {
    now = at;
    apply(
      policy.ingest(
        changes.map(([agentId, from, to]) => ({ teamId: 't1', agentId, from, to, at })),
        at,
      ),
    );
  };
  round(
    agents.map((a) => [a, 'unknown', 'connected']),
    T0,
  );
  return { policy, shown, openRoute, events, round, apply, at: (t: number) => (now = t) };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `a${i + 1}`);

describe('incident groups on native notifications', () => {
  it('20 agents unlinked in one poll round: 20 incident events, ONE notification that opens the Alerts screen', () => {
    const h = setup(ids(20));
    h.round(
      ids(20).map((a) => [a, 'connected', 'needs-scan']),
      T0 + 15_000,
    );
    expect(h.events.filter((e) => e.change === 'opened' && e.notify)).toHaveLength(20);
    expect(new Set(h.events.map((e) => e.incident.id)).size).toBe(20);
    expect(h.shown).toHaveLength(1);
    expect(h.shown[0]!.options).toMatchObject({
      title: '20 agents need a QR scan',
      urgency: 'critical',
      timeoutType: 'never',
    });
    expect(h.shown[0]!.options.body).toContain('a1 needs a QR scan again');
    h.shown[0]!.handlers.get('click')!();
    expect(h.openRoute).toHaveBeenCalledWith('#/alerts');
  });

  it('acknowledging one leaves the group notification up; it closes once all are acknowledged', () => {
    const h = setup(ids(3));
    h.round(
      ids(3).map((a) => [a, 'connected', 'needs-scan']),
      T0 + 15_000,
    );
    expect(h.shown).toHaveLength(1);
    const [first, ...rest] = h.policy.openIncidents().map((i) => i.id);
    h.apply(h.policy.acknowledge(first!, T0 + 20_000).output);
    expect(h.shown[0]!.closed).toBe(false);
    expect(h.policy.openIncidents().filter((i) => i.acknowledgedAt === null)).toHaveLength(2);
    for (const id of rest) h.apply(h.policy.acknowledge(id, T0 + 21_000).output);
    expect(h.shown[0]!.closed).toBe(true);
    expect(h.shown).toHaveLength(1);
  });

  it('two kinds at once: two notifications; a group of one reads as its own incident', () => {
    const h = setup(ids(4));
    h.round(
      [
        ['a1', 'connected', 'needs-scan'],
        ['a2', 'connected', 'needs-scan'],
        ['a3', 'connected', 'reconnecting'],
      ],
      T0 + 15_000,
    );
    expect(h.shown.map((n) => [n.options.title, n.options.urgency])).toEqual([
      ['2 agents need a QR scan', 'critical'],
      ['a3 is reconnecting', 'normal'],
    ]);
    h.shown[1]!.handlers.get('click')!();
    expect(h.openRoute).toHaveBeenCalledWith('#/agents/a3?team=t1');
  });

  it("one of the group recovering shows its quiet notice without closing the others' notification", () => {
    const h = setup(ids(3));
    h.round(
      ids(3).map((a) => [a, 'connected', 'needs-scan']),
      T0 + 15_000,
    );
    h.round([['a1', 'needs-scan', 'connected']], T0 + 60_000);
    expect(h.shown.map((n) => [n.options.title, n.options.urgency, n.closed])).toEqual([
      ['3 agents need a QR scan', 'critical', false],
      ['a1 is back to connected after 45 s', 'low', false],
    ]);
    h.round(
      [
        ['a2', 'needs-scan', 'connected'],
        ['a3', 'needs-scan', 'connected'],
      ],
      T0 + 90_000,
    );
    expect(h.shown[0]!.closed).toBe(true);
    expect(h.shown.at(-1)!.options).toMatchObject({ title: '2 agents are back to normal', urgency: 'low' });
  });
});
