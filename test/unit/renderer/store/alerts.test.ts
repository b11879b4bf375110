// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { AlertEventDTO, AlertStatusDTO } from '../../../../src-shared/contract';
import { connectStore } from '../../../../src-renderer/src/store';
import { noticeStack } from '../../../../src-renderer/src/store/notices';
import { countOpen } from '../../../../src-renderer/src/store/alerts';
import { inQuietHours, isHHMM, isSnoozed } from '../../../../src-renderer/src/features/alerts/quietHours';
import { agent, flush, incident, setup, team } from '../fixtures';

const status = (over: Partial<AlertStatusDTO> = {}): AlertStatusDTO => ({
  snoozedUntil: null,
  quietHours: { enabled: false, start: '22:00', end: '07:00' },
  alertsPostedBy: null,
  ...over,
});

describe('alerts slice', () => {
  it('loads open incidents, keeps a log for the timeline, and counts open ones', async () => {
    const { store, api, emit } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'needs-scan')] },
      'alerts.list': {
        ok: true,
        value: [incident('i1', { openedAt: 1 }), incident('i2', { openedAt: 2, resolvedAt: 3 })],
      },
    });
    connectStore(store, api);
    await flush();
    expect(store.getState().incidents.map((i) => i.id)).toEqual(['i1']);
    expect(store.getState().incidentLog.map((i) => i.id)).toEqual(['i2', 'i1']);
    expect(countOpen(store.getState())).toBe(1);

    emit('alert', {
      change: 'opened',
      incident: incident('i3', { openedAt: 5, severity: 'warning', title: 'Reconnecting' }),
      notify: true,
    });
    expect(countOpen(store.getState())).toBe(2);
    expect(store.getState().notices.at(-1)).toMatchObject({
      tone: 'warning',
      title: 'Agent a1 (a1): Reconnecting',
      route: '#/agents/a1?team=t1',
    });

    emit('alert', { change: 'resolved', incident: incident('i3', { openedAt: 5 }), notify: true });
    expect(store.getState().incidents.map((i) => i.id)).toEqual(['i1']);
    // the log keeps it, marked resolved, for the agent timeline
    expect(store.getState().incidentLog.find((i) => i.id === 'i3')?.resolvedAt).toBe(100_000);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'success', title: 'Agent a1 (a1): back to normal' });
  });

  it('acknowledges one and all; an error leaves incidents as they were', async () => {
    let fail = true;
    const { store } = setup({
      'alerts.acknowledge': () =>
        fail
          ? { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'x' } }
          : { ok: true, value: null },
      'alerts.acknowledgeAll': { ok: true, value: { count: 1 } },
    });
    store.getState().setIncidents([incident('i1'), incident('i2', { openedAt: 2 })]);
    expect(await store.getState().acknowledge('i1')).toMatchObject({ kind: 'network-error' });
    expect(store.getState().incidents.every((i) => i.acknowledgedAt === null)).toBe(true);
    fail = false;
    expect(await store.getState().acknowledge('i1')).toBeNull();
    expect(store.getState().incidents.find((i) => i.id === 'i1')?.acknowledgedAt).toBe(100_000);
    expect(await store.getState().acknowledgeAll()).toBeNull();
    expect(store.getState().incidents.every((i) => i.acknowledgedAt !== null)).toBe(true);
  });

  it('snoozes (minutes or until tomorrow), unsnoozes and sets quiet hours from the replies', async () => {
    const { store, calls } = setup({
      'alerts.snooze': (a: unknown) => ({
        ok: true,
        value: status({ snoozedUntil: 'minutes' in (a as object) ? 200_000 : 900_000 }),
      }),
      'alerts.unsnooze': { ok: true, value: status() },
      'alerts.setQuietHours': (q: unknown) => ({
        ok: true,
        value: status({ quietHours: q as AlertStatusDTO['quietHours'] }),
      }),
    });
    await store.getState().snooze({ minutes: 15 });
    expect(store.getState().alertStatus?.snoozedUntil).toBe(200_000);
    expect(isSnoozed(store.getState().alertStatus, 100_000)).toBe(true);
    await store.getState().snooze({ until: 'tomorrow' });
    expect(calls.filter((c) => c.name === 'alerts.snooze').map((c) => c.args)).toEqual([
      { minutes: 15 },
      { until: 'tomorrow' },
    ]);
    await store.getState().unsnooze();
    expect(isSnoozed(store.getState().alertStatus, 100_000)).toBe(false);
    await store.getState().setQuietHours({ enabled: true, start: '23:00', end: '06:30' });
    expect(store.getState().alertStatus?.quietHours).toEqual({ enabled: true, start: '23:00', end: '06:30' });
  });

  it('a snooze error is returned and changes nothing', async () => {
    const { store } = setup({
      'alerts.snooze': {
        ok: false,
        error: { kind: 'validation', code: 'INVALID_ARGUMENTS', message: 'minutes: too big', field: 'minutes' },
      },
    });
    store.setState({ alertStatus: status() });
    expect(await store.getState().snooze({ minutes: 99999 })).toMatchObject({ field: 'minutes' });
    expect(store.getState().alertStatus).toEqual(status());
  });

  it("an incident's notice follows it: re-worded in place by an update, resolved in place (never a second notice)", () => {
    const { store } = setup();
    const s = () => store.getState();
    s().applyAlertNotice(
      { change: 'opened', incident: incident('i1', { severity: 'warning', title: 'Reconnecting' }), notify: true },
      'Bot',
    );
    const id = s().notices[0]!.id;
    s().applyAlertNotice(
      {
        change: 'updated',
        incident: incident('i1', { severity: 'urgent', title: 'Still reconnecting' }),
        notify: true,
      },
      'Bot',
    );
    expect(s().notices).toHaveLength(1);
    expect(s().notices[0]).toMatchObject({ id, tone: 'urgent', title: 'Bot (a1): Still reconnecting' });
    s().applyAlertNotice(
      { change: 'resolved', incident: incident('i1', { title: 'Still reconnecting', resolvedAt: 5 }), notify: true },
      'Bot',
    );
    expect(s().notices).toHaveLength(1);
    expect(s().notices[0]).toMatchObject({
      id,
      tone: 'success',
      title: 'Bot (a1): back to normal',
      body: 'Still reconnecting',
    });
    // A plain update (one the policy does not tell of) of an incident no notice shows adds none.
    s().applyAlertNotice({ change: 'updated', incident: incident('i2'), notify: false }, 'Bot');
    expect(s().notices).toHaveLength(1);
  });

  it("a notice names the agent once: no label before the title when the label is the agent's ID", () => {
    const { store } = setup();
    const s = () => store.getState();
    s().applyAlertNotice(
      {
        change: 'opened',
        incident: incident('i1', {
          agentId: 'rl-agent',
          title: 'rl-agent (+15550109999) was unlinked — a QR scan is needed',
        }),
        notify: true,
      },
      'rl-agent',
    );
    expect(s().notices[0]?.title).toBe('rl-agent (+15550109999) was unlinked — a QR scan is needed');
    s().applyAlertNotice(
      { change: 'opened', incident: incident('i2', { agentId: 'a7', title: 'a7 is reconnecting' }), notify: true },
      'Support bot',
    );
    expect(s().notices[1]?.title).toBe('Support bot (a7) is reconnecting');
  });

  it('notices name an agent one way: its label, then its id in parentheses when they differ', () => {
    const { store } = setup();
    const s = () => store.getState();
    s().applyAlertNotice(
      {
        change: 'opened',
        incident: incident('i1', { agentId: 'a7', title: 'a7 (+15550109999) needs a QR scan' }),
        notify: true,
      },
      'Support bot',
    );
    expect(s().notices[0]?.title).toBe('Support bot (a7, +15550109999) needs a QR scan');
    s().applyAlertNotice(
      {
        change: 'resolved',
        incident: incident('i1', { agentId: 'a7', title: 'a7 is back to connected after 4 s', resolvedAt: 9 }),
        notify: true,
      },
      'Support bot',
    );
    expect(s().notices[0]?.title).toBe('Support bot (a7): back to normal');
    s().applyAlertNotice(
      {
        change: 'opened',
        incident: incident('i2', { agentId: 'a7', title: 'Still down after quiet hours: 1 incident' }),
        notify: true,
      },
      'Support bot',
    );
    expect(s().notices[1]?.title).toBe('Support bot (a7): Still down after quiet hours: 1 incident');
    s().cancelPairing('t1', 'a7', 'Support bot');
    expect(s().notices[2]?.title).toBe('Stopped waiting for the scan of Support bot (a7)');
    s().cancelPairing('t1', 'a8', 'a8');
    expect(s().notices[3]?.title).toBe('Stopped waiting for the scan of a8');
  });

  it('a team-wide incident is not put under one agent: no agent label on its notice, nor on its recovery', () => {
    const { store } = setup();
    const s = () => store.getState();
    const outage = incident('t1', {
      agentId: 'a1',
      teamWide: true,
      severity: 'urgent',
      title: 'Service unreachable for team Demo',
    });
    s().applyAlertNotice({ change: 'opened', incident: outage, notify: true }, 'Support bot');
    expect(s().notices.at(-1)).toMatchObject({ title: 'Service unreachable for team Demo' });
    s().applyAlertNotice({ change: 'resolved', incident: { ...outage, resolvedAt: 9 }, notify: true }, 'Support bot');
    expect(s().notices).toHaveLength(1);
    expect(s().notices[0]).toMatchObject({
      tone: 'success',
      title: 'Back to normal',
      body: 'Service unreachable for team Demo',
    });
  });

  it('an urgent notice that resolves keeps its place at the top of the stack', () => {
    const { store } = setup();
    const s = () => store.getState();
    s().applyAlertNotice(
      { change: 'opened', incident: incident('u1', { title: 'Needs a QR scan' }), notify: true },
      'Bot',
    );
    for (const i of [1, 2, 3])
      s().applyAlertNotice(
        {
          change: 'opened',
          incident: incident(`w${i}`, { severity: 'warning', title: `Reconnecting ${i}` }),
          notify: true,
        },
        'Bot',
      );
    expect(noticeStack(s().notices).shown[0]!.title).toBe('Bot (a1): Needs a QR scan');
    s().applyAlertNotice(
      { change: 'resolved', incident: incident('u1', { title: 'Back after 9 s', resolvedAt: 5 }), notify: true },
      'Bot',
    );
    expect(noticeStack(s().notices).shown.map((n) => n.title)).toEqual([
      'Bot (a1): back to normal',
      'Bot (a1): Reconnecting 3',
      'Bot (a1): Reconnecting 2',
    ]);
  });

  it('keeps at most 10 notices, dropping the oldest non-urgent first', () => {
    const { store } = setup();
    const s = () => store.getState();
    s().pushNotice({ tone: 'urgent', title: 'oldest, urgent' });
    for (let i = 0; i < 25; i++) s().pushNotice({ tone: 'info', title: `info ${i}` });
    expect(s().notices).toHaveLength(10);
    expect(s().notices[0]!.title).toBe('oldest, urgent');
    expect(s().notices[1]!.title).toBe('info 16');
    expect(noticeStack(s().notices).shown.map((n) => n.title)).toEqual(['oldest, urgent', 'info 24', 'info 23']);
    expect(noticeStack(s().notices).more).toBe(7);
  });

  it('a refresh says "no longer open" (never "back to normal") for incidents that closed while nobody listened (not newer ones)', async () => {
    const now = { t: 1000 };
    const open = [incident('still')];
    const { store, api, emit } = setup({ 'alerts.list': () => ({ ok: true, value: open }) }, now);
    connectStore(store, api);
    await flush();
    emit('alert', { change: 'opened', incident: incident('gone', { title: 'Needs a QR scan' }), notify: true });
    emit('alert', { change: 'opened', incident: incident('still', { title: 'Unreachable' }), notify: true });
    now.t = 2000;
    await store.getState().refresh();
    const byIncident = (id: string) => store.getState().notices.find((n) => n.incident?.id === id);
    expect(byIncident('gone')).toMatchObject({ tone: 'info', title: 'a1: no longer open', body: 'Needs a QR scan' });
    expect(byIncident('still')?.tone).toBe('urgent');
    // An incident opened after the list was asked for is left alone.
    let release: () => void = () => undefined;
    (
      api['alerts.list'] as unknown as { mockImplementationOnce(f: () => Promise<unknown>): void }
    ).mockImplementationOnce(() => new Promise((r) => (release = () => r({ ok: true, value: open }))));
    const pending = store.getState().refresh();
    now.t = 3000;
    emit('alert', { change: 'opened', incident: incident('late', { title: 'Needs a QR scan' }), notify: true });
    release();
    await pending;
    expect(byIncident('late')?.tone).toBe('urgent');
  });

  it('a resolve the policy keeps quiet about closes its notice; an update without notify re-words it in place', () => {
    const { store } = setup();
    const s = () => store.getState();
    s().applyAlertNotice(
      { change: 'opened', incident: incident('q1', { severity: 'warning', title: 'Reconnecting' }), notify: true },
      'Bot',
    );
    s().applyAlertNotice(
      {
        change: 'updated',
        incident: incident('q1', { severity: 'warning', title: 'Still reconnecting' }),
        notify: false,
      },
      'Bot',
    );
    expect(s().notices.map((n) => n.title)).toEqual(['Bot (a1): Still reconnecting']);
    s().applyAlertNotice(
      { change: 'resolved', incident: incident('q1', { title: 'Back after 4 s', resolvedAt: 5 }), notify: false },
      'Bot',
    );
    expect(s().notices).toEqual([]);
  });

  it('gives a notice only for what the alert policy told the person about (notify)', () => {
    /** The notice a store with none shows for this event of agent "A" (null: none). */
    const noticeFor = (e: AlertEventDTO) => {
      const { store } = setup();
      store.getState().applyAlertNotice(e, 'A');
      expect(store.getState().notices.length).toBeLessThanOrEqual(1);
      return store.getState().notices[0] ?? null;
    };
    expect(noticeFor({ change: 'updated', incident: incident('i1'), notify: false })).toBeNull();
    expect(noticeFor({ change: 'opened', incident: incident('i1'), notify: false })).toBeNull();
    expect(noticeFor({ change: 'resolved', incident: incident('i1'), notify: false })).toBeNull();
    expect(
      noticeFor({
        change: 'updated',
        incident: incident('i1', { severity: 'warning', title: 'is flapping' }),
        notify: true,
      }),
    ).toMatchObject({ tone: 'warning', title: 'A (a1): is flapping' });
    expect(noticeFor({ change: 'opened', incident: incident('i1', { severity: 'info' }), notify: true })).toMatchObject(
      { tone: 'info' },
    );
  });
});

describe('quiet hours', () => {
  const at = (h: number, m = 0) => new Date(2024, 0, 1, h, m);
  it('handles windows across midnight and the same day', () => {
    const night = { enabled: true, start: '22:00', end: '07:00' };
    expect(inQuietHours(night, at(23))).toBe(true);
    expect(inQuietHours(night, at(6, 59))).toBe(true);
    expect(inQuietHours(night, at(7))).toBe(false);
    expect(inQuietHours(night, at(12))).toBe(false);
    const lunch = { enabled: true, start: '12:00', end: '13:30' };
    expect(inQuietHours(lunch, at(13, 15))).toBe(true);
    expect(inQuietHours(lunch, at(13, 30))).toBe(false);
    expect(inQuietHours({ ...night, enabled: false }, at(23))).toBe(false);
    expect(inQuietHours({ enabled: true, start: 'xx', end: '07:00' }, at(23))).toBe(false);
    expect(isHHMM('07:05')).toBe(true);
    expect(isHHMM('24:00')).toBe(false);
  });
});
