// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamDTO } from '../../../src-shared/contract';
import { App } from '../../../src-renderer/src/App';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, incident, mount, setup, team } from './fixtures';

afterEach(cleanup);

describe('app frame', () => {
  it('first run: onboarding; a keychain error says what to do and keeps what was typed; success shows the agents', async () => {
    let teams: TeamDTO[] = [];
    let keychain = true;
    const { store, api } = setup({
      'teams.list': () => ({ ok: true, value: teams }),
      'agents.list': () => ({ ok: true, value: teams.length ? [agent('a1', 'needs-scan'), agent('a2', 'connected')] : [] }),
      'teams.add': () => {
        if (keychain) return { ok: false, error: { kind: 'keychain', code: 'KEYCHAIN_UNAVAILABLE', message: 'no keychain' } };
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
    fireEvent.change(screen.getByLabelText('Agent IDs (from the dashboard, comma separated)'), { target: { value: 'a1, a2' } });
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

    act(() => store.getState().setRoute('#/alerts'));
    expect(screen.getByRole('heading', { level: 2, name: 'Alerts' })).toBeTruthy();
    expect(within(nav).getByRole('link', { name: /Alerts/ }).getAttribute('aria-current')).toBe('page');
    expect(document.activeElement?.id).toBe('main');

    act(() => emit('app.navigate', { route: '#/settings' }));
    expect(screen.getByRole('heading', { level: 2, name: 'Settings' })).toBeTruthy();

    act(() => store.getState().setRoute('#/nowhere'));
    expect(screen.getByText('This page does not exist.')).toBeTruthy();
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
    const { store, api, emit } = setup({ 'teams.list': { ok: true, value: [team()] }, 'agents.list': { ok: true, value: [agent('a1', 'connected')] } });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    act(() => emit('alert', { change: 'opened', incident: incident('i9', { title: 'Needs a QR scan', message: '<b>scan</b> now' }), notify: true }));
    const region = screen.getByRole('status', { name: 'Notifications' });
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(region.textContent).toContain('Urgent: Agent a1: Needs a QR scan');
    // text from the service is text, never HTML
    expect(region.textContent).toContain('<b>scan</b> now');
    expect(region.querySelector('b')).toBeNull();
    fireEvent.click(within(region).getByRole('button', { name: 'Open' }));
    expect(store.getState().route).toBe('#/agents/a1?team=t1');
    expect(region.textContent).toBe('');
  });
});
