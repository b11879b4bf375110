// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TeamDTO } from '../../../src-shared/contract';
import { App } from '../../../src-renderer/src/App';
import { connectStore } from '../../../src-renderer/src/store';
import { afterPaint, agent, flush, incident, mount, setup, team } from './fixtures';

afterEach(cleanup);

describe('app frame', () => {
  it('first run: onboarding; a keychain error says what to do and keeps what was typed; success shows the agents', async () => {
    let teams: TeamDTO[] = [];
    let keychain = true;
    const { store, api } = setup({
      'teams.list': () => ({ ok: true, value: teams }),
      'agents.list': () => ({
        ok: true,
        value: teams.length ? [agent('a1', 'needs-scan'), agent('a2', 'connected')] : [],
      }),
      'teams.add': () => {
        if (keychain)
          return { ok: false, error: { kind: 'keychain', code: 'KEYCHAIN_UNAVAILABLE', message: 'no keychain' } };
        teams = [team({ agentIds: ['a1', 'a2'] })];
        return { ok: true, value: teams[0] };
      },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    expect(screen.getByRole('heading', { name: 'Channel Companion' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Team name'), { target: { value: 'Ops' } });
    fireEvent.change(screen.getByLabelText('Service address'), { target: { value: 'https://api.example.test' } });
    fireEvent.change(screen.getByLabelText('Team API key'), { target: { value: 'sk_live_123456789' } });
    fireEvent.change(screen.getByLabelText('Agent IDs (from the dashboard, comma separated)'), {
      target: { value: 'a1, a2' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('No OS keychain is reachable');
    expect((screen.getByLabelText('Team API key') as HTMLInputElement).value).toBe('sk_live_123456789');
    expect((screen.getByLabelText('Team name') as HTMLInputElement).value).toBe('Ops');
    expect(screen.getByRole('button', { name: /Try the demo/ })).toBeTruthy();

    keychain = false;
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    const list = screen.getByRole('list', { name: /agents, worst health first/ });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]!.textContent).toContain('Agent a1');
    expect(rows[0]!.textContent).toContain('Needs a QR scan');
    expect(rows[1]!.textContent).toContain('Connected');
  });

  it('"Add team" with empty fields marks each required field with its own message, focuses the first, and sends nothing', async () => {
    const { store, api, calls } = setup();
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    fireEvent.change(screen.getByLabelText('Service address'), { target: { value: 'https://api.example.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    expect(calls.some((c) => c.name === 'teams.add')).toBe(false);
    const name = screen.getByLabelText('Team name');
    const key = screen.getByLabelText('Team API key');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(key.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Service address').getAttribute('aria-invalid')).toBeNull();
    const described = (el: HTMLElement) =>
      (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described(name)).toContain('Give the team a name, e.g. Support.');
    expect(described(key)).toContain("Paste the team's API key from the dashboard.");
    expect(document.activeElement).toBe(name);
    // Typing in a field takes its message away.
    fireEvent.change(name, { target: { value: 'Ops' } });
    expect(name.getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByText('Give the team a name, e.g. Support.')).toBeNull();
    expect(key.getAttribute('aria-invalid')).toBe('true');
  });

  it('navigation: sections with aria-current, the open-alert count, routes render their screens', async () => {
    const { store, api, emit } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
      'alerts.list': { ok: true, value: [incident('i1')] },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Agents' }).getAttribute('aria-current')).toBe('page');
    expect(within(nav).getByRole('link', { name: 'Alerts, 1 open' })).toBeTruthy();

    // Scrolled down, then a new route: back to the top (the header in view), the app's loading line
    // (the list gone at once) while the screen's chunk loads, then focus on the page heading.
    document.documentElement.scrollTop = 400;
    act(() => store.getState().setRoute('#/alerts'));
    expect(screen.getByText('Loading…').getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByRole('list', { name: /agents, worst health first/ })).toBeNull();
    const heading = await screen.findByRole('heading', { level: 2, name: 'Alerts' }, { timeout: 5000 });
    expect(screen.queryByText('Loading…')).toBeNull();
    expect(
      within(nav)
        .getByRole('link', { name: /Alerts/ })
        .getAttribute('aria-current'),
    ).toBe('page');
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(heading.getAttribute('tabindex')).toBe('-1');
    expect(document.documentElement.scrollTop).toBe(0);

    act(() => emit('app.navigate', { route: '#/settings' }));
    const settings = await screen.findByRole('heading', { level: 2, name: 'Settings' }, { timeout: 5000 });
    await waitFor(() => expect(document.activeElement).toBe(settings));

    act(() => store.getState().setRoute('#/nowhere'));
    expect(screen.getByText('This page does not exist.')).toBeTruthy();
  });

  it('a route that opens a thread on the Messages screen: focus on the thread heading, the page where it is', async () => {
    const contact = (phone: string, name: string) => ({
      teamId: 't1',
      agentId: 'a1',
      contact: phone,
      name,
      lastAt: 1,
      last: {
        key: `${phone}-1`,
        teamId: 't1',
        agentId: 'a1',
        contact: phone,
        at: 1,
        direction: 'in' as const,
        fromMe: false,
        type: 'text' as const,
        text: 'hi',
      },
      unread: 0,
      count: 1,
    });
    const { store, api } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
      'messages.contacts': {
        ok: true,
        value: {
          contacts: [contact('+15550100001', 'Dana'), contact('+15550100002', 'Eli')],
          agents: [{ teamId: 't1', agentId: 'a1', unread: 0, gap: null, reason: null }],
          unread: 0,
          retentionDays: 90,
        },
      },
      'messages.thread': { ok: true, value: { messages: [], more: false } },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    act(() => store.getState().setRoute('#/messages?team=t1&agent=a1'));
    const page = await screen.findByRole('heading', { level: 2, name: 'Messages' }, { timeout: 5000 });
    await waitFor(() => expect(document.activeElement).toBe(page));

    // From the inbox to a thread, the page scrolled down: the thread's heading takes focus, the
    // scroll stays.
    document.documentElement.scrollTop = 300;
    act(() => store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100001'));
    const dana = screen.getByRole('heading', { level: 3, name: '+15550100001' });
    await waitFor(() => expect(document.activeElement).toBe(dana));
    expect(document.documentElement.scrollTop).toBe(300);

    // From one thread to another: the same, on the new thread's heading.
    act(() => store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100002'));
    const eli = screen.getByRole('heading', { level: 3, name: '+15550100002' });
    await waitFor(() => expect(document.activeElement).toBe(eli));
    expect(document.documentElement.scrollTop).toBe(300);

    // Focus moved by the person before the thread is painted stays where they put it.
    act(() => store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100001'));
    const search = screen.getByLabelText('Search');
    search.focus();
    // A wait for the next paint asked after the route's: it has had its turn.
    await afterPaint();
    expect(document.activeElement).toBe(search);

    // Another screen: its page heading, back at the top, as before.
    act(() => store.getState().setRoute('#/settings'));
    const settings = await screen.findByRole('heading', { level: 2, name: 'Settings' }, { timeout: 5000 });
    await waitFor(() => expect(document.activeElement).toBe(settings));
    expect(document.documentElement.scrollTop).toBe(0);
  });

  it('the skip link moves focus to the content', async () => {
    const { store, api } = setup();
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    fireEvent.click(screen.getByRole('link', { name: 'Skip to content' }));
    expect(document.activeElement?.id).toBe('main');
  });

  it('an alert event shows an in-app notice in a polite status region, openable and dismissable', async () => {
    const { store, api, emit } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    act(() =>
      emit('alert', {
        change: 'opened',
        incident: incident('i9', { title: 'Needs a QR scan', message: '<b>scan</b> now' }),
        notify: true,
      }),
    );
    const region = screen.getByRole('status', { name: 'Notifications' });
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(region.textContent).toContain('Urgent: Agent a1 (a1): Needs a QR scan');
    // text from the service is text, never HTML
    expect(region.textContent).toContain('<b>scan</b> now');
    expect(region.querySelector('b')).toBeNull();
    fireEvent.click(within(region).getByRole('link', { name: 'Agent a1 (a1): Needs a QR scan' }));
    expect(store.getState().route).toBe('#/agents/a1?team=t1');
    expect(region.textContent).toBe('');
  });

  it('notices sit in a bounded stack: urgent first, at most three, "+N more", and dismiss all', async () => {
    const { store, api, emit } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    act(() => {
      emit('alert', {
        change: 'opened',
        incident: incident('w1', { severity: 'warning', title: 'Reconnecting one' }),
        notify: true,
      });
      emit('alert', { change: 'opened', incident: incident('u1', { title: 'Needs a QR scan' }), notify: true });
      emit('alert', {
        change: 'opened',
        incident: incident('w2', { severity: 'warning', title: 'Reconnecting two' }),
        notify: true,
      });
      emit('alert', {
        change: 'opened',
        incident: incident('w3', { severity: 'warning', title: 'Reconnecting three' }),
        notify: true,
      });
      emit('alert', {
        change: 'opened',
        incident: incident('w4', { severity: 'warning', title: 'Reconnecting four' }),
        notify: true,
      });
    });
    const region = screen.getByRole('status', { name: 'Notifications' });
    const shown = () =>
      within(region)
        .queryAllByRole('listitem')
        .map((li) => li.querySelector('.toast-title')?.textContent);
    expect(shown()).toEqual([
      'Urgent: Agent a1 (a1): Needs a QR scan',
      'Warning: Agent a1 (a1): Reconnecting four',
      'Warning: Agent a1 (a1): Reconnecting three',
    ]);
    expect(region.textContent).toContain('+2 more');
    // Dismissing one brings the next one up.
    fireEvent.click(within(region).getByRole('button', { name: 'Dismiss: Agent a1 (a1): Reconnecting four' }));
    expect(shown()).toEqual([
      'Urgent: Agent a1 (a1): Needs a QR scan',
      'Warning: Agent a1 (a1): Reconnecting three',
      'Warning: Agent a1 (a1): Reconnecting two',
    ]);
    expect(region.textContent).toContain('+1 more');
    fireEvent.click(within(region).getByRole('button', { name: 'Dismiss all' }));
    expect(shown()).toEqual([]);
    expect(region.textContent).toBe('');
  });

  it('a warning notice stays 2 min (held while the pointer is on it), sooner gone once its incident resolves, or dismissed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { store, api, emit } = setup({
        'teams.list': { ok: true, value: [team()] },
        'agents.list': { ok: true, value: [agent('a1', 'connected')] },
      });
      connectStore(store, api);
      mount(store, <App />);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(0);
      });
      const warn = (id: string, title: string) =>
        act(() =>
          emit('alert', {
            change: 'opened',
            incident: incident(id, { severity: 'warning', title }),
            notify: true,
          }),
        );
      warn('w1', 'a1 is reconnecting');
      warn('w2', 'a1 is flapping');
      const region = screen.getByRole('status', { name: 'Notifications' });
      const titles = () =>
        within(region)
          .queryAllByRole('listitem')
          .map((li) => li.querySelector('.toast-title')?.textContent);
      act(() => vi.advanceTimersByTime(60_000));
      expect(titles()).toEqual(['Warning: Agent a1 (a1) is flapping', 'Warning: Agent a1 (a1) is reconnecting']);
      act(() =>
        emit('alert', {
          change: 'resolved',
          incident: incident('w1', { title: 'a1 is back to connected after 10 min', resolvedAt: 2000 }),
          notify: true,
        }),
      );
      expect(titles()).toEqual(['Warning: Agent a1 (a1) is flapping', 'Resolved: Agent a1 (a1): back to normal']);
      act(() => vi.advanceTimersByTime(12_000));
      expect(titles()).toEqual(['Warning: Agent a1 (a1) is flapping']);
      // Not lingering: 2 min after it came, it is gone on its own (the incident stays on the Alerts screen).
      act(() => vi.advanceTimersByTime(48_000));
      expect(titles()).toEqual([]);
      // Held while the pointer is on it; dismissed by its button.
      warn('w3', 'a1 needs attention');
      fireEvent.mouseEnter(within(region).getByRole('listitem'));
      act(() => vi.advanceTimersByTime(10 * 60_000));
      expect(titles()).toEqual(['Warning: Agent a1 (a1) needs attention']);
      fireEvent.click(within(region).getByRole('button', { name: 'Dismiss: Agent a1 (a1) needs attention' }));
      expect(titles()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a resolved incident replaces its urgent notice in place (no second notice), which then leaves on its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { store, api, emit } = setup({
        'teams.list': { ok: true, value: [team()] },
        'agents.list': { ok: true, value: [agent('a1', 'connected')] },
      });
      connectStore(store, api);
      mount(store, <App />);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(0);
      });
      act(() =>
        emit('alert', { change: 'opened', incident: incident('u1', { title: 'Needs a QR scan' }), notify: true }),
      );
      const region = screen.getByRole('status', { name: 'Notifications' });
      // Urgent: it stays however long it takes.
      act(() => vi.advanceTimersByTime(60_000));
      expect(within(region).getAllByRole('listitem')).toHaveLength(1);
      act(() =>
        emit('alert', {
          change: 'resolved',
          incident: incident('u1', { title: 'a1 is back to connected after 40 s', resolvedAt: 2000 }),
          notify: true,
        }),
      );
      const items = within(region).getAllByRole('listitem');
      expect(items).toHaveLength(1);
      expect(items[0]!.textContent).toContain('Resolved: Agent a1 (a1): back to normal');
      expect(items[0]!.textContent).toContain('a1 is back to connected after 40 s');
      act(() => vi.advanceTimersByTime(12_000));
      expect(within(region).queryAllByRole('listitem')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
