// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlertStatusDTO, AppSettingsDTO } from '../../../src-shared/contract';
import { AlertsScreen } from '../../../src-renderer/src/features/alerts/AlertsScreen';
import {
  connectBrowserNotifications,
  type NotificationCtor,
} from '../../../src-renderer/src/features/alerts/browserNotifications';
import { connectStore } from '../../../src-renderer/src/store';
import { alertsPostedElsewhereWords } from '../../../src-shared/vocabulary';
import { agent, appSettings, flush, incident, mount, setup, team } from './fixtures';

afterEach(cleanup);

const status = (over: Partial<AlertStatusDTO> = {}): AlertStatusDTO => ({
  snoozedUntil: null,
  quietHours: { enabled: false, start: '22:00', end: '07:00' },
  alertsPostedBy: null,
  ...over,
});
const settings = appSettings();

describe('alerts screen', () => {
  it('acknowledges one, then all; shows the open count', async () => {
    const { store, calls } = setup({
      'alerts.acknowledge': { ok: true, value: null },
      'alerts.acknowledgeAll': { ok: true, value: { count: 2 } },
    });
    store.setState({ alertStatus: status(), settings });
    store.getState().setAgents([agent('a1', 'needs-scan')]);
    store
      .getState()
      .setIncidents([
        incident('i1'),
        incident('i2', { openedAt: 2000, title: 'Unreachable', kind: 'unreachable', severity: 'warning' }),
        incident('i3', { openedAt: 3000, title: 'Third' }),
      ]);
    mount(store, <AlertsScreen />);
    expect(screen.getByRole('heading', { name: /Open incidents/ }).textContent).toContain('(3)');
    const first = screen.getAllByRole('listitem').find((li) => li.textContent?.includes('Unreachable'))!;
    fireEvent.click(within(first).getByRole('button', { name: /Acknowledge/ }));
    await flush();
    expect(calls.find((c) => c.name === 'alerts.acknowledge')?.args).toEqual({ incidentId: 'i2' });
    expect(within(first).queryByRole('button', { name: /Acknowledge/ })).toBeNull();
    expect(first.textContent).toContain('acknowledged');
    fireEvent.click(screen.getByRole('button', { name: 'Acknowledge all (2)' }));
    await flush();
    expect(calls.some((c) => c.name === 'alerts.acknowledgeAll')).toBe(true);
    expect(screen.queryByRole('button', { name: /Acknowledge/ })).toBeNull();
  });

  it('incidents of one group are listed under its header, each acknowledged on its own or all of the group at once', async () => {
    const { store, calls } = setup({ 'alerts.acknowledge': { ok: true, value: null } });
    store.setState({ alertStatus: status(), settings });
    store.getState().setAgents([agent('a1', 'needs-scan'), agent('a2', 'needs-scan'), agent('a3', 'needs-scan')]);
    store
      .getState()
      .setIncidents([
        incident('g1', { agentId: 'a1', title: 'a1 needs a QR scan', group: 'grp-1' }),
        incident('g2', { agentId: 'a2', title: 'a2 needs a QR scan', group: 'grp-1' }),
        incident('g3', { agentId: 'a3', title: 'a3 needs a QR scan', group: 'grp-1' }),
        incident('lone', { agentId: 'a1', title: 'a1 is reconnecting', kind: 'reconnecting', group: 'grp-2' }),
      ]);
    mount(store, <AlertsScreen />);
    const group = screen.getByRole('list', { name: '3 agents need a QR scan' });
    expect(within(group).getAllByRole('listitem')).toHaveLength(3);
    // A group of one reads as a lone incident: no header.
    expect(screen.queryByRole('list', { name: /1 agent/ })).toBeNull();
    const a2 = within(group)
      .getAllByRole('listitem')
      .find((li) => li.textContent?.includes('a2 needs a QR scan'))!;
    fireEvent.click(within(a2).getByRole('button', { name: /Acknowledge/ }));
    await flush();
    expect(calls.filter((c) => c.name === 'alerts.acknowledge').map((c) => c.args)).toEqual([{ incidentId: 'g2' }]);
    expect(within(group).getAllByRole('button', { name: /^Acknowledge a\d needs/ })).toHaveLength(2);
    fireEvent.click(screen.getByRole('button', { name: 'Acknowledge all 2: 3 agents need a QR scan' }));
    await flush();
    expect(
      calls
        .filter((c) => c.name === 'alerts.acknowledge')
        .map((c) => (c.args as { incidentId: string }).incidentId)
        .sort(),
    ).toEqual(['g1', 'g2', 'g3']);
    expect(within(group).queryAllByRole('button', { name: /Acknowledge/ })).toEqual([]);
    // The lone incident is still open.
    expect(screen.getAllByRole('button', { name: /Acknowledge/ })).toHaveLength(1);
  });

  it('snoozes and unsnoozes', async () => {
    const { store, calls } = setup({
      'alerts.snooze': { ok: true, value: status({ snoozedUntil: Date.now() + 3_600_000 }) },
      'alerts.unsnooze': { ok: true, value: status() },
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    fireEvent.click(screen.getByRole('button', { name: 'Snooze 1 h' }));
    await flush();
    expect(calls.find((c) => c.name === 'alerts.snooze')?.args).toEqual({ minutes: 60 });
    expect(screen.getByText(/Alerts are snoozed until/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Resume alerts now' }));
    await flush();
    expect(screen.getByText('Alerts are on.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Snooze until tomorrow' }));
    await flush();
    expect(calls.filter((c) => c.name === 'alerts.snooze').at(-1)?.args).toEqual({ until: 'tomorrow' });
  });

  it('quiet hours: a bad time is refused here; a service error is shown; values stay', async () => {
    const { store, calls } = setup({
      'alerts.setQuietHours': {
        ok: false,
        error: { kind: 'validation', code: 'INVALID_ARGUMENTS', message: 'end: invalid', field: 'end' },
      },
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    fireEvent.click(screen.getByLabelText('Keep non-urgent alerts silent during quiet hours'));
    fireEvent.change(screen.getByLabelText('Quiet from'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save quiet hours' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('The start time must look like 22:00.');
    expect(screen.getByLabelText('Quiet from').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.name === 'alerts.setQuietHours')).toBe(false);

    fireEvent.change(screen.getByLabelText('Quiet from'), { target: { value: '23:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save quiet hours' }));
    await flush();
    expect(calls.find((c) => c.name === 'alerts.setQuietHours')?.args).toEqual({
      enabled: true,
      start: '23:00',
      end: '07:00',
    });
    expect(screen.getByLabelText('Quiet until').getAttribute('aria-invalid')).toBe('true');
    expect((screen.getByLabelText('Quiet from') as HTMLInputElement).value).toBe('23:00');
  });

  it('alert rules: one form saves escalation and the four rules together; bad values are refused here and marked, what was typed stays', async () => {
    const { store, calls } = setup({
      'settings.update': (a: unknown) => ({
        ok: true,
        value: { ...settings, ...(a as { patch: Partial<AppSettingsDTO> }).patch },
      }),
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    const save = () => fireEvent.click(screen.getByRole('button', { name: 'Save alert rules' }));
    fireEvent.change(screen.getByLabelText('Flapping after (drops)'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('Remind every (minutes)'), { target: { value: 'soon' } });
    save();
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('some values are out of range');
    expect(screen.getByText('Flapping after (drops) must be between 2 and 100.')).toBeTruthy();
    expect(screen.getByText('Remind every (minutes) must be a whole number.')).toBeTruthy();
    expect(screen.getByLabelText('Flapping after (drops)').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Reconnect grace (seconds)').getAttribute('aria-invalid')).toBeNull();
    expect((screen.getByLabelText('Remind every (minutes)') as HTMLInputElement).value).toBe('soon');
    expect(calls.some((c) => c.name === 'settings.update')).toBe(false);

    fireEvent.change(screen.getByLabelText('Flapping after (drops)'), { target: { value: '5' } });
    fireEvent.change(screen.getByLabelText('Remind every (minutes)'), { target: { value: '30' } });
    fireEvent.change(screen.getByLabelText('Reconnect grace (seconds)'), { target: { value: '45' } });
    expect((screen.getByLabelText('Repeat drop grace (seconds)') as HTMLInputElement).value).toBe('60');
    expect(screen.getByText(/Drops shorter than about 30 s can be missed at a 30 s poll/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Repeat drop grace (seconds)'), { target: { value: '90' } });
    fireEvent.change(screen.getByLabelText('Escalate after (minutes)'), { target: { value: '7' } });
    save();
    await flush();
    expect(calls.filter((c) => c.name === 'settings.update')).toHaveLength(1);
    expect(calls.find((c) => c.name === 'settings.update')?.args).toEqual({
      patch: {
        escalateAfterMin: 7,
        alertRules: {
          reconnectGraceSec: 45,
          repeatDropGraceSec: 90,
          realertMinutes: 30,
          flapCount: 5,
          flapWindowMinutes: settings.alertRules.flapWindowMinutes,
        },
      },
    });
    expect(store.getState().settings?.alertRules).toEqual({
      reconnectGraceSec: 45,
      repeatDropGraceSec: 90,
      realertMinutes: 30,
      flapCount: 5,
      flapWindowMinutes: 10,
    });
    expect(store.getState().settings?.escalateAfterMin).toBe(7);
    expect(screen.getByText('Saved; the monitor uses them now.')).toBeTruthy();
    expect(screen.getByLabelText('Flapping after (drops)').getAttribute('aria-invalid')).toBeNull();
  });

  it('alert rules: a save the main process refuses keeps the typed values and marks the field it names', async () => {
    const { store } = setup({
      'settings.update': () => ({
        ok: false,
        error: {
          kind: 'validation',
          code: 'INVALID_SETTINGS',
          message: 'flapWindowMinutes is too large for this build.',
          field: 'alertRules.flapWindowMinutes',
        },
      }),
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    fireEvent.change(screen.getByLabelText('Flap window (minutes)'), { target: { value: '1440' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save alert rules' }));
    await flush();
    // The message says what is wrong, not the internal code.
    expect(screen.getByRole('alert').textContent).toContain('flapWindowMinutes is too large for this build.');
    expect(screen.getByRole('alert').textContent).not.toContain('INVALID_SETTINGS');
    expect(screen.getByLabelText('Flap window (minutes)').getAttribute('aria-invalid')).toBe('true');
    expect((screen.getByLabelText('Flap window (minutes)') as HTMLInputElement).value).toBe('1440');
    expect(store.getState().settings?.alertRules.flapWindowMinutes).toBe(settings.alertRules.flapWindowMinutes);
  });

  it('alert webhook: refuses a non-http or user:password URL here; saves and removes it through settings.update', async () => {
    const { store, calls } = setup({
      'settings.update': (a: unknown) => ({
        ok: true,
        value: { ...settings, ...(a as { patch: Partial<AppSettingsDTO> }).patch },
      }),
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    const box = () => screen.getByLabelText('Alert webhook URL') as HTMLInputElement;
    fireEvent.change(box(), { target: { value: 'ftp://hooks.example.test/x' } });
    expect(box().getAttribute('aria-invalid')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Save webhook' }));
    await flush();
    fireEvent.change(box(), { target: { value: 'https://me:pw@hooks.example.test/x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save webhook' }));
    await flush();
    expect(calls.some((c) => c.name === 'settings.update')).toBe(false);

    fireEvent.change(box(), { target: { value: ' https://hooks.example.test/alerts ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save webhook' }));
    await flush();
    expect(calls.find((c) => c.name === 'settings.update')?.args).toEqual({
      patch: { alertWebhookUrl: 'https://hooks.example.test/alerts' },
    });
    expect(store.getState().settings?.alertWebhookUrl).toBe('https://hooks.example.test/alerts');
    fireEvent.click(screen.getByRole('button', { name: 'Remove webhook' }));
    await flush();
    expect(calls.filter((c) => c.name === 'settings.update')[1]?.args).toEqual({ patch: { alertWebhookUrl: null } });
    expect(box().value).toBe('');
  });

  it('alert webhook and Alertmanager: each says so while another app on the data folder posts the alerts, until this one does', async () => {
    const { store, api, emit } = setup();
    connectStore(store, api);
    store.setState({
      alertStatus: status(),
      settings: { ...settings, alertWebhookUrl: 'https://hooks.example.test/a' },
    });
    mount(store, <AlertsScreen />);
    const words = alertsPostedElsewhereWords(4242);
    const said = () => screen.queryAllByText(words);
    expect(said()).toHaveLength(0);
    act(() => emit('alerts.status', status({ alertsPostedBy: { pid: 4242, since: 0 } })));
    expect(said().map((n) => n.getAttribute('role'))).toEqual(['status']);
    // Under each URL that is set, and under none that is not.
    act(() =>
      store.setState({ settings: { ...settings, alertWebhookUrl: null, alertmanagerUrl: 'http://am.test:9093' } }),
    );
    expect(said()).toHaveLength(1);
    expect(within(said()[0]!.closest('form')!).getByLabelText('Alertmanager URL')).toBeTruthy();
    act(() =>
      store.setState({
        settings: {
          ...settings,
          alertWebhookUrl: 'https://hooks.example.test/a',
          alertmanagerUrl: 'http://am.test:9093',
        },
      }),
    );
    expect(said()).toHaveLength(2);
    act(() => store.setState({ settings: { ...settings, alertWebhookUrl: null, alertmanagerUrl: null } }));
    expect(said()).toHaveLength(0);
    act(() => store.setState({ settings: { ...settings, alertWebhookUrl: 'https://hooks.example.test/a' } }));
    expect(said()).toHaveLength(1);
    act(() => emit('alerts.status', status()));
    expect(said()).toHaveLength(0);
  });

  it('Prometheus and Alertmanager: metrics off by default, turned on at a port shown as the scrape target; the Alertmanager URL saved', async () => {
    const { store, calls } = setup({
      'settings.update': (a: unknown) => ({
        ok: true,
        value: { ...store.getState().settings!, ...(a as { patch: Partial<AppSettingsDTO> }).patch },
      }),
    });
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    const sw = screen.getByRole('switch', { name: /Serve Prometheus metrics/ }) as HTMLInputElement;
    expect(sw.checked).toBe(false);
    expect(screen.queryByLabelText('Metrics port')).toBeNull();
    fireEvent.click(sw);
    await flush();
    expect(calls.find((c) => c.name === 'settings.update')?.args).toEqual({ patch: { metricsPort: 9464 } });
    expect(screen.getByText('http://127.0.0.1:9464/metrics')).toBeTruthy();
    const port = screen.getByLabelText('Metrics port') as HTMLInputElement;
    fireEvent.change(port, { target: { value: '70000' } });
    fireEvent.submit(port.closest('form')!);
    await flush();
    expect(port.getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.name === 'settings.update')).toHaveLength(1);
    fireEvent.change(port, { target: { value: '9500' } });
    fireEvent.submit(port.closest('form')!);
    await flush();
    expect(calls.filter((c) => c.name === 'settings.update')[1]?.args).toEqual({ patch: { metricsPort: 9500 } });
    expect(screen.getByText('http://127.0.0.1:9500/metrics')).toBeTruthy();

    const am = screen.getByLabelText('Alertmanager URL') as HTMLInputElement;
    fireEvent.change(am, { target: { value: 'http://127.0.0.1:9093' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Alertmanager' }));
    await flush();
    expect(calls.filter((c) => c.name === 'settings.update')[2]?.args).toEqual({
      patch: { alertmanagerUrl: 'http://127.0.0.1:9093' },
    });
    expect(screen.getByText('Incidents are now also posted to Alertmanager.')).toBeTruthy();
    fireEvent.click(sw);
    await flush();
    expect(calls.filter((c) => c.name === 'settings.update')[3]?.args).toEqual({ patch: { metricsPort: null } });
    expect(screen.queryByLabelText('Metrics port')).toBeNull();
  });

  it.each([
    ['granted', /answered “granted”: it shows desktop notifications/, false],
    ['denied', /answered “denied”: notifications are blocked/, false],
    ['default', /answered “default”: no choice was made/, true],
  ] as const)(
    'asks browser notification permission only from the button, and says what the browser answered (%s)',
    async (answer, words, askAgain) => {
      const requestPermission = vi.fn(async () => answer as NotificationPermission);
      const ctor = Object.assign(function () {}, { permission: 'default', requestPermission });
      vi.stubGlobal('Notification', ctor);
      try {
        const { store } = setup();
        store.setState({ alertStatus: status(), settings });
        mount(store, <AlertsScreen />);
        expect(requestPermission).not.toHaveBeenCalled();
        expect(screen.queryByText(/The browser answered/)).toBeNull();
        fireEvent.click(screen.getByRole('button', { name: 'Enable desktop notifications' }));
        await flush();
        expect(requestPermission).toHaveBeenCalledTimes(1);
        expect(screen.getByRole('status').textContent).toMatch(words);
        expect(screen.queryByRole('button', { name: 'Enable desktop notifications' }) !== null).toBe(askAgain);
      } finally {
        vi.unstubAllGlobals();
      }
    },
  );

  it('says so when the browser has no notifications, or when the request fails', async () => {
    const { store } = setup();
    store.setState({ alertStatus: status(), settings });
    const view = mount(store, <AlertsScreen />);
    expect(screen.getByRole('status').textContent).toContain('cannot show desktop notifications (“unsupported”)');
    view.unmount();
    const ctor = Object.assign(function () {}, {
      permission: 'default',
      requestPermission: vi.fn(async () => Promise.reject(new Error('blocked by policy'))),
    });
    vi.stubGlobal('Notification', ctor);
    try {
      mount(store, <AlertsScreen />);
      fireEvent.click(screen.getByRole('button', { name: 'Enable desktop notifications' }));
      await flush();
      expect(screen.getByRole('status').textContent).toContain('did not answer the request');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('quiet hours with the same start and end are refused with a message, and nothing is saved', async () => {
    const { store, calls } = setup();
    store.setState({ alertStatus: status(), settings });
    mount(store, <AlertsScreen />);
    fireEvent.change(screen.getByLabelText('Quiet from'), { target: { value: '07:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save quiet hours' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Quiet from 07:00 until 07:00 is no time at all');
    expect(screen.getByLabelText('Quiet until').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.name === 'alerts.setQuietHours')).toBe(false);
  });
});

describe('browser notifications', () => {
  function fakeCtor(permission: NotificationPermission) {
    const made: { title: string; body?: string; n: { onclick: null | (() => void); close: () => void } }[] = [];
    const ctor = function (this: unknown, title: string, opts?: { body?: string }) {
      const n = { onclick: null, close: vi.fn() };
      made.push({ title, body: opts?.body, n });
      return n;
    } as unknown as NotificationCtor;
    Object.assign(ctor, { permission, requestPermission: vi.fn() });
    return { ctor, made };
  }

  it('notifies on opened incidents when granted, not when snoozed, off, or (non-urgent) in quiet hours; click opens the agent', () => {
    const { store, api, emit } = setup();
    store.getState().setAgents([agent('a1', 'needs-scan')]);
    store.setState({ settings, alertStatus: status() });
    const { ctor, made } = fakeCtor('granted');
    const focus = vi.fn();
    const now = { d: new Date(2024, 0, 1, 12, 0) };
    connectBrowserNotifications(store, api, { ctor, now: () => now.d, focus });

    act(() => emit('alert', { change: 'opened', incident: incident('i1'), notify: true }));
    expect(made).toHaveLength(1);
    expect(made[0]!.title).toBe('Agent a1: Needs a QR scan');
    made[0]!.n.onclick!();
    expect(focus).toHaveBeenCalled();
    expect(store.getState().route).toBe('#/agents/a1?team=t1');

    act(() => emit('alert', { change: 'updated', incident: incident('i1'), notify: false }));
    expect(made).toHaveLength(1);

    store.setState({ alertStatus: status({ snoozedUntil: now.d.getTime() + 60_000 }) });
    act(() => emit('alert', { change: 'opened', incident: incident('i2'), notify: true }));
    expect(made).toHaveLength(1);

    store.setState({ alertStatus: status({ quietHours: { enabled: true, start: '11:00', end: '13:00' } }) });
    act(() => emit('alert', { change: 'opened', incident: incident('i3', { severity: 'warning' }), notify: true }));
    expect(made).toHaveLength(1);
    act(() => emit('alert', { change: 'opened', incident: incident('i4', { severity: 'urgent' }), notify: true }));
    expect(made).toHaveLength(2);

    store.setState({ settings: { ...settings, notifications: false }, alertStatus: status() });
    act(() => emit('alert', { change: 'opened', incident: incident('i5'), notify: true }));
    expect(made).toHaveLength(2);
  });

  it("an incident group's alert shows once, in the group's words; a click opens the Alerts screen", () => {
    const { store, api, emit } = setup();
    store.setState({ settings, alertStatus: status() });
    const { ctor, made } = fakeCtor('granted');
    connectBrowserNotifications(store, api, { ctor, now: () => new Date(2024, 0, 1, 12, 0), focus: () => undefined });
    const notice = {
      id: 'alert-9',
      key: 'grp-1',
      title: '3 agents need a QR scan',
      body: '- a1 needs a QR scan',
      urgent: true,
      resolved: false,
      several: true,
    };
    for (const id of ['g1', 'g2', 'g3'])
      act(() => emit('alert', { change: 'opened', incident: incident(id, { group: 'grp-1' }), notify: true, notice }));
    expect(made.map((m) => m.title)).toEqual(['3 agents need a QR scan']);
    made[0]!.n.onclick!();
    expect(store.getState().route).toBe('#/alerts');
  });

  it('without permission, never notifies', () => {
    const { store, api, emit } = setup();
    const { ctor, made } = fakeCtor('default');
    connectBrowserNotifications(store, api, { ctor, now: () => new Date(), focus: () => undefined });
    emit('alert', { change: 'opened', incident: incident('i1'), notify: true });
    expect(made).toHaveLength(0);
  });
});

describe('alerts history', () => {
  const T = Date.UTC(2025, 2, 1, 8, 0, 0);
  const resolved = [
    incident('h1', {
      kind: 'reconnecting',
      title: 'Reconnecting',
      message: 'Dropped, came back.',
      openedAt: T,
      // Seen back 4 min 30 s after it started, closed 30 s later.
      endedAt: T + 270_000,
      resolvedAt: T + 5 * 60_000,
      durationMs: 270_000,
    }),
    incident('h2', {
      agentId: 'a2',
      kind: 'needs-scan',
      title: 'Needs a QR scan',
      openedAt: T + 3_600_000,
      endedAt: T + 3_600_000 + 12 * 60_000,
      resolvedAt: T + 3_600_000 + 12 * 60_000,
      durationMs: 12 * 60_000,
    }),
    incident('h3', {
      teamId: 't2',
      agentId: 'b1',
      kind: 'unreachable',
      title: 'Unreachable',
      openedAt: T + 7_200_000,
      endedAt: T + 7_200_000 + 90_000,
      resolvedAt: T + 7_200_000 + 90_000,
      durationMs: 90_000,
      removed: true,
    }),
  ];

  function setupHistory() {
    const s = setup({ 'alerts.history': { ok: true, value: resolved } });
    s.store.setState({
      alertStatus: status(),
      settings,
      teams: [team(), team({ teamId: 't2', label: 'Sales', agentIds: ['b1'] })],
    });
    s.store
      .getState()
      .setAgents([agent('a1', 'connected'), agent('a2', 'connected'), agent('b1', 'connected', {}, 't2')]);
    return s;
  }
  const historyList = () => screen.getByRole('list', { name: 'Resolved incidents, latest first' });
  const titles = () =>
    within(historyList())
      .getAllByRole('listitem')
      .map((li) => li.querySelector('strong')!.textContent);

  it('lists resolved incidents latest first with start, end, duration and words; filters by team, agent and kind', async () => {
    const { store, calls } = setupHistory();
    mount(store, <AlertsScreen />);
    await flush();
    expect(calls.find((c) => c.name === 'alerts.history')?.args).toEqual({ limit: 1000 });
    expect(screen.getByRole('heading', { name: /History/ }).textContent).toContain('(3)');
    expect(titles()).toEqual(['Agent b1 — Unreachable', 'Agent a2 — Needs a QR scan', 'Agent a1 — Reconnecting']);
    const first = within(historyList()).getAllByRole('listitem')[2]!;
    expect(first.textContent).toContain('Dropped, came back.');
    expect(first.textContent).toContain('resolved after 4 min 30 s');
    expect([...first.querySelectorAll('time')].map((t) => t.getAttribute('datetime'))).toEqual([
      new Date(T).toISOString(),
      new Date(T + 270_000).toISOString(),
    ]);
    expect(within(historyList()).getAllByRole('listitem')[0]!.textContent).toContain(
      'closed after 1 min 30 s (agent removed)',
    );

    fireEvent.change(screen.getByLabelText('Team'), { target: { value: 't1' } });
    expect(titles()).toEqual(['Agent a2 — Needs a QR scan', 'Agent a1 — Reconnecting']);
    expect(screen.getByText('2 of 3 resolved, latest first.')).toBeTruthy();
    const agentOptions = [...(screen.getByLabelText('Agent') as HTMLSelectElement).options].map((o) => o.textContent);
    expect(agentOptions).toEqual(['All agents', 'Agent a2', 'Agent a1']);
    fireEvent.change(screen.getByLabelText('Agent'), { target: { value: JSON.stringify(['t1', 'a1']) } });
    expect(titles()).toEqual(['Agent a1 — Reconnecting']);
    fireEvent.change(screen.getByLabelText('Agent'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'needs-scan' } });
    expect(titles()).toEqual(['Agent a2 — Needs a QR scan']);
    fireEvent.change(screen.getByLabelText('Team'), { target: { value: 't2' } });
    expect(screen.queryByRole('list', { name: 'Resolved incidents, latest first' })).toBeNull();
    expect(screen.getByText('Nothing matches.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Export CSV (0)' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('an incident resolved while the screen is open joins the history at the top', async () => {
    const { store } = setupHistory();
    mount(store, <AlertsScreen />);
    await flush();
    const live = incident('h4', {
      kind: 'reconnecting',
      title: 'Back to normal',
      openedAt: T + 9_000_000,
      resolvedAt: T + 9_000_000 + 120_000,
    });
    act(() =>
      store.getState().applyAlert({ change: 'opened', incident: { ...live, resolvedAt: null }, notify: false }),
    );
    expect(titles()).toHaveLength(3);
    act(() => store.getState().applyAlert({ change: 'resolved', incident: live, notify: true }));
    expect(titles()[0]).toBe('Agent a1 — Back to normal');
    expect(screen.getByRole('heading', { name: /History/ }).textContent).toContain('(4)');
  });

  it('Export CSV saves the filtered rows', async () => {
    const { store } = setupHistory();
    const saved: Blob[] = [];
    const names: string[] = [];
    const before = { createObjectURL: URL.createObjectURL, revokeObjectURL: URL.revokeObjectURL };
    Object.assign(URL, { createObjectURL: vi.fn((b: Blob) => (saved.push(b), 'blob:csv')), revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    try {
      mount(store, <AlertsScreen />);
      await flush();
      fireEvent.change(screen.getByLabelText('Team'), { target: { value: 't1' } });
      fireEvent.click(screen.getByRole('button', { name: 'Export CSV (2)' }));
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^incident-history-.*\.csv$/);
      expect(saved[0]!.type).toBe('text/csv');
      const text = await saved[0]!.text();
      expect(text.split('\r\n')).toEqual([
        'team label,agent id,agent label,kind,opened at,ended at,duration seconds,title',
        `Ops,a2,Agent a2,needs-scan,${new Date(T + 3_600_000).toISOString()},${new Date(T + 3_600_000 + 12 * 60_000).toISOString()},720,Needs a QR scan`,
        `Ops,a1,Agent a1,reconnecting,${new Date(T).toISOString()},${new Date(T + 270_000).toISOString()},270,Reconnecting`,
        '',
      ]);
    } finally {
      click.mockRestore();
      Object.assign(URL, before);
    }
  });
});
