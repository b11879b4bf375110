// Incidents and alerts → IncidentDTOs and 'alert' events, with every title and message worded by
// the monitor (the alert's words, or incidentText for an incident whose alert was held).
import { describe, expect, it } from 'vitest';
import { IncidentFeed } from '../../../src-main/app/contract/alerts';
import { IncidentHistory } from '../../../src-main/core/monitor/incident-history';
import type { Alert, Incident } from '../../../src-main/core/monitor';
import { incidentText } from '../../../src-main/core/monitor/policy-text';
import type { AlertEventDTO } from '../../../src-shared/contract';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const RULES = { escalateAfterMin: 5, flapCount: 3, flapWindowMinutes: 10 };

function incident(over: Partial<Incident> = {}): Incident {
  return {
    id: 'inc-1',
    teamId: 't1',
    agentId: 'a1',
    agentIds: ['a1'],
    kind: 'needs-scan',
    openedAt: T0,
    delivered: false,
    raised: true,
    acknowledgedAt: null,
    resolvedAt: null,
    lastAlertAt: null,
    ...over,
  };
}

function alertOf(incidentId: string, title: string): Alert {
  return {
    id: `al-${incidentId}`,
    kind: 'reconnecting',
    urgent: true,
    teamId: 't1',
    teamLabel: 'Team one',
    agentIds: ['a1'],
    title,
    body: '',
    at: T0,
    incidentId,
  };
}

function setup(now = T0) {
  const published: AlertEventDTO[] = [];
  let clock = now;
  const feed = new IncidentFeed(
    (e) => published.push(e),
    () => clock,
    () => RULES,
  );
  return { feed, published, setNow: (t: number) => (clock = t) };
}

describe('IncidentFeed', () => {
  it.each([
    incident({ kind: 'needs-scan' }),
    incident({ kind: 'reconnecting' }),
    incident({ kind: 'unreachable' }),
    incident({ kind: 'flapping' }),
    incident({ kind: 'unreachable', agentId: null, agentIds: ['a1', 'a2'] }),
    incident({ kind: 'key-rejected', agentId: null, agentIds: ['a1', 'a2'] }),
  ])("an incident whose alert was held gets the monitor's words for it ($kind, agent $agentId)", (i) => {
    const { feed } = setup();
    const t = incidentText(i, RULES);
    expect(feed.toDTO(i)).toMatchObject({
      title: t.title,
      message: t.body,
      severity: 'warning',
      agentId: i.agentId ?? 'a1',
    });
    expect(feed.toDTO(i).teamWide).toBe(i.agentId === null ? true : undefined);
  });

  it('an alert words its incident; the update waits for it in the same step and is published once', async () => {
    const { feed, published } = setup();
    const i = incident();
    feed.onIncident({ change: 'opened', incident: i });
    const alert: Alert = {
      id: 'al-1',
      kind: 'needs-scan',
      urgent: true,
      teamId: 't1',
      teamLabel: 'Team one',
      agentIds: ['a1'],
      title: 'a1 was unlinked',
      body: 'Scan again.',
      at: T0,
      incidentId: 'inc-1',
    };
    feed.onAlert(alert);
    expect(published).toEqual([]);
    await Promise.resolve();
    expect(published).toEqual([
      {
        change: 'opened',
        incident: expect.objectContaining({
          id: 'inc-1',
          title: 'a1 was unlinked',
          message: 'Scan again.',
          severity: 'urgent',
        }),
        notify: true,
        // A lone alert's notice reads as the incident does.
        notice: {
          id: 'al-1',
          key: 'inc-1',
          title: 'a1 was unlinked',
          body: 'Scan again.',
          urgent: true,
          resolved: false,
          several: false,
        },
      },
    ]);
  });

  it('one event, one incident each: the parts of a grouped alert word their own incidents (not the group title)', async () => {
    const { feed, published } = setup();
    const i1 = incident({ id: 'inc-1', agentId: 'a1', agentIds: ['a1'] });
    const i2 = incident({ id: 'inc-2', agentId: 'a2', agentIds: ['a2'], kind: 'reconnecting' });
    feed.onIncident({ change: 'opened', incident: i1 });
    feed.onIncident({ change: 'opened', incident: i2 });
    const part = (id: string, agentId: string, title: string, urgent: boolean): Alert => ({
      ...alertOf(id, title),
      agentIds: [agentId],
      urgent,
    });
    feed.onAlert({
      ...alertOf('inc-1', '2 agents need a QR scan'),
      kind: 'grouped',
      agentIds: ['a1', 'a2'],
      incidentId: undefined,
      group: 'grp-1',
      parts: [part('inc-1', 'a1', 'a1 was unlinked', true), part('inc-2', 'a2', 'a2 is reconnecting', false)],
    });
    await Promise.resolve();
    expect(published.map((e) => [e.incident.id, e.incident.title, e.incident.severity, e.notify])).toEqual([
      ['inc-1', 'a1 was unlinked', 'urgent', true],
      ['inc-2', 'a2 is reconnecting', 'warning', true],
    ]);
    // Both carry the one notice of the alert: the group's words, keyed by the group.
    expect(published[0]!.notice).toEqual({
      id: 'al-inc-1',
      key: 'grp-1',
      title: '2 agents need a QR scan',
      body: '',
      urgent: true,
      resolved: false,
      several: true,
    });
    expect(published[1]!.notice).toEqual(published[0]!.notice);
  });

  it('notify: only when an alert reached the person in that step (or the incident turned urgent after one)', async () => {
    const { feed, published, setNow } = setup();
    // Tracked, not alerted (a pairing started on purpose): no notification.
    feed.onIncident({ change: 'opened', incident: incident({ id: 'quiet' }) });
    await Promise.resolve();
    // Alerted, then resolved with a recovery notice, then one resolved silently.
    const loud = incident({ id: 'loud', kind: 'reconnecting' });
    feed.onIncident({ change: 'opened', incident: loud });
    feed.onAlert({ ...alertOf('loud', 'a1 is reconnecting'), urgent: false });
    await Promise.resolve();
    feed.onIncident({ change: 'updated', incident: loud });
    await Promise.resolve();
    feed.onIncident({ change: 'resolved', incident: { ...loud, resolvedAt: T0 + 60_000 } });
    feed.onAlert({ ...alertOf('loud', 'a1 is back to connected after 1 min'), kind: 'recovered', urgent: false });
    feed.onIncident({ change: 'resolved', incident: incident({ id: 'quiet', resolvedAt: T0 + 60_000 }) });
    await Promise.resolve();
    expect(published.map((e) => [e.incident.id, e.change, e.notify])).toEqual([
      ['quiet', 'opened', false],
      ['loud', 'opened', true],
      ['loud', 'updated', false],
      ['loud', 'resolved', true],
      ['quiet', 'resolved', false],
    ]);
    expect(published[3]!.incident.title).toBe('a1 is back to connected after 1 min');
    // An alerted unreachable agent that turns urgent after escalateAfterMin notifies again; once.
    const slow = incident({ id: 'slow', kind: 'unreachable' });
    feed.onIncident({ change: 'opened', incident: slow });
    feed.onAlert({ ...alertOf('slow', 'a1 cannot be checked'), kind: 'unreachable', urgent: false });
    await Promise.resolve();
    setNow(T0 + 5 * 60_000);
    feed.onIncident({ change: 'updated', incident: slow });
    await Promise.resolve();
    feed.onIncident({ change: 'updated', incident: slow });
    await Promise.resolve();
    expect(published.slice(5).map((e) => [e.incident.severity, e.notify])).toEqual([
      ['warning', true],
      ['urgent', true],
      ['urgent', false],
    ]);
  });

  it('a team-wide incident held in quiet hours is worded with the team label', () => {
    const published: AlertEventDTO[] = [];
    const feed = new IncidentFeed(
      (e) => published.push(e),
      () => T0,
      () => RULES,
      (id) => (id === 't1' ? 'Support desk' : id),
    );
    expect(feed.toDTO(incident({ kind: 'unreachable', agentId: null, agentIds: ['a1', 'a2'] })).title).toBe(
      'Service unreachable for team Support desk',
    );
  });

  it('needs-scan turns urgent once open for escalateAfterMin; reconnecting never does', () => {
    const { feed, setNow } = setup();
    setNow(T0 + 4 * 60_000);
    expect(feed.toDTO(incident()).severity).toBe('warning');
    setNow(T0 + 5 * 60_000);
    expect(feed.toDTO(incident()).severity).toBe('urgent');
    expect(feed.toDTO(incident({ kind: 'reconnecting' })).severity).toBe('warning');
  });
});

describe('IncidentFeed history', () => {
  it('keeps each resolved incident with the words of its last alert; open ones are not kept', () => {
    const history = new IncidentHistory({ file: null });
    const feed = new IncidentFeed(
      () => undefined,
      () => T0 + 90_000,
      () => RULES,
      (id) => id,
      history,
    );
    const open = incident({ kind: 'reconnecting' });
    feed.onIncident({ change: 'opened', incident: open });
    feed.onAlert(alertOf('inc-1', 'a1 is reconnecting'));
    feed.flush();
    expect(history.list()).toEqual([]);
    // Seen back 60 s after it started; closed once the agent had stayed connected 30 s more.
    feed.onIncident({ change: 'resolved', incident: { ...open, endedAt: T0 + 60_000, resolvedAt: T0 + 90_000 } });
    feed.flush();
    expect(history.list()).toEqual([
      {
        id: 'inc-1',
        teamId: 't1',
        agentId: 'a1',
        kind: 'reconnecting',
        severity: 'urgent',
        title: 'a1 is reconnecting',
        message: '',
        openedAt: T0,
        acknowledgedAt: null,
        resolvedAt: T0 + 90_000,
        endedAt: T0 + 60_000,
        durationMs: 60_000,
      },
    ]);
  });
});
