// @vitest-environment jsdom
// The Alerts screen in the order an on-call engineer reads it: open incidents urgent first (then the
// newest), Snooze right under them (above the history); and the sidebar says when alerts are snoozed.
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertStatusDTO } from '../../../src-shared/contract';
import { Nav } from '../../../src-renderer/src/components/Nav';
import { AlertsScreen } from '../../../src-renderer/src/features/alerts/AlertsScreen';
import { appSettings, incident, mount, setup } from './fixtures';

afterEach(cleanup);

const status = (over: Partial<AlertStatusDTO> = {}): AlertStatusDTO => ({
  snoozedUntil: null,
  quietHours: { enabled: false, start: '22:00', end: '07:00' },
  alertsPostedBy: null,
  ...over,
});

describe('alerts: order and snooze', () => {
  it('lists open incidents urgent first, then warning, then info, newest first within each; live ones join in place', () => {
    const { store } = setup();
    store.setState({ alertStatus: status(), settings: appSettings() });
    store
      .getState()
      .setIncidents([
        incident('w-new', { severity: 'warning', title: 'Warning new', openedAt: 5000 }),
        incident('u-old', { severity: 'urgent', title: 'Urgent old', openedAt: 1000 }),
        incident('i-new', { severity: 'info', title: 'Info new', openedAt: 6000 }),
        incident('u-new', { severity: 'urgent', title: 'Urgent new', openedAt: 3000 }),
        incident('w-old', { severity: 'warning', title: 'Warning old', openedAt: 2000 }),
      ]);
    store.getState().applyAlert({
      change: 'opened',
      incident: incident('w-live', { severity: 'warning', title: 'Warning live', openedAt: 7000 }),
      notify: true,
    });
    mount(store, <AlertsScreen />);
    const open = screen.getByRole('region', { name: /Open incidents/ });
    expect(
      within(open)
        .getAllByRole('listitem')
        .map((li) => /— (.*)$/.exec(li.querySelector('strong')?.textContent ?? '')?.[1]),
    ).toEqual(['Urgent new', 'Urgent old', 'Warning live', 'Warning new', 'Warning old', 'Info new']);
  });

  it('puts Snooze right under the open incidents, above the history', () => {
    const { store } = setup();
    store.setState({ alertStatus: status(), settings: appSettings() });
    mount(store, <AlertsScreen />);
    const headings = screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent?.replace(/ \(.*$/, ''));
    expect(headings.slice(0, 3)).toEqual(['Open incidents', 'Snooze', 'History']);
  });

  it('the sidebar says alerts are snoozed, until when, and stops saying so when the snooze ends', () => {
    const { store } = setup();
    const until = Date.now() + 3_600_000;
    store.setState({ alertStatus: status({ snoozedUntil: until }) });
    mount(store, <Nav route={{ name: 'home' }} />);
    const alerts = within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: /^Alerts/ });
    expect(alerts.textContent).toContain('snoozed');
    expect(alerts.textContent).toMatch(/, snoozed until \d{1,2}:\d\d/);
    cleanup();
    store.setState({ alertStatus: status({ snoozedUntil: Date.now() - 1000 }) });
    mount(store, <Nav route={{ name: 'home' }} />);
    expect(screen.getByRole('link', { name: /^Alerts/ }).textContent).not.toContain('snoozed');
  });
});
