// Incidents and alerts → IncidentDTOs and 'alert' events, with every title and message worded by
// the monitor (the alert's words, or incidentText for an incident whose alert was held).
import { describe, expect, it } from 'vitest';
import { IncidentFeed } from '../../../src-main/app/contract/alerts';
import { incidentText, type Alert, type Incident } from '../../../src-main/core/monitor';
import type { AlertEventDTO } from '../../../src-shared/contract';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const RULES = { escalateAfterMin: 5, flapCount: 3, flapWindowMinutes: 10 };

function incident(over: Partial<Incident> = {}): Incident {
  return { id: 'inc-1', teamId: 't1', agentId: 'a1', agentIds: ['a1'], kind: 'needs-scan', openedAt: T0, delivered: false, raised: true, acknowledgedAt: null, resolvedAt: null, lastAlertAt: null, ...over };
}

function setup(now = T0) {
  const published: AlertEventDTO[] = [];
  let clock = now;
  const feed = new IncidentFeed((e) => published.push(e), () => clock, () => RULES);
  return { feed, published, setNow: (t: number) => (clock = t) };
}

describe('IncidentFeed', () => {
  it.each([
    incident({ kind: 'needs-scan' }),
    incident({ kind: 'reconnecting' }),
    incident({ kind: 'unreachable' }),
    incident({ kind: 'flapping' }),
    incident({ kind: 'unreachable', agentId: null, agentIds: ['a1', 'a2'] }),
    incident({ kind: 'auth-error', agentId: null, agentIds: ['a1', 'a2'] }),
  ])('an incident whose alert was held gets the monitor\'s words for it ($kind, agent $agentId)', (i) => {
    const { feed } = setup();
    const t = incidentText(i, RULES);
    expect(feed.toDTO(i)).toMatchObject({ title: t.title, message: t.body, severity: 'warning', agentId: i.agentId ?? 'a1' });
  });

  it('an alert words its incident; the update waits for it in the same step and is published once', async () => {
    const { feed, published } = setup();
    const i = incident();
    feed.onIncident({ change: 'opened', incident: i });
    const alert: Alert = { id: 'al-1', kind: 'needs-scan', urgent: true, teamId: 't1', teamLabel: 'Team one', agentIds: ['a1'], title: 'a1 was unlinked', body: 'Scan again.', at: T0, incidentId: 'inc-1' };
    feed.onAlert(alert);
    expect(published).toEqual([]);
    await Promise.resolve();
    expect(published).toEqual([{ change: 'opened', incident: expect.objectContaining({ id: 'inc-1', title: 'a1 was unlinked', message: 'Scan again.', severity: 'urgent' }) }]);
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
