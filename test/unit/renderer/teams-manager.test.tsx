// @vitest-environment jsdom
// Settings, teams: a team just added comes into view and says it was added; an agent whose label is
// its id reads once ("acme-sales"), never "acme-sales (acme-sales)".
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TeamDTO } from '../../../src-shared/contract';
import { TeamsManager } from '../../../src-renderer/src/features/settings/TeamsManager';
import { agent, flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

describe('teams and keys', () => {
  it('an added team scrolls into view with a confirmation, and takes focus', async () => {
    let teams: TeamDTO[] = [team()];
    const added = team({ teamId: 't2', label: 'Acme', agentIds: ['acme-sales', 'acme-help'] });
    const scrolled: Element[] = [];
    const spy = vi.fn(function (this: Element) {
      scrolled.push(this);
    });
    Element.prototype.scrollIntoView = spy;
    const { store } = setup({
      'teams.add': () => {
        teams = [...teams, added];
        return { ok: true, value: added };
      },
      'teams.list': () => ({ ok: true, value: teams }),
      'agents.list': () => ({ ok: true, value: [] }),
    });
    store.setState({ teams });
    mount(store, <TeamsManager />);
    fireEvent.click(screen.getByRole('button', { name: 'Add a team…' }));
    fireEvent.change(screen.getByLabelText('Team name'), { target: { value: 'Acme' } });
    fireEvent.change(screen.getByLabelText('Service address'), { target: { value: 'https://api.acme.test' } });
    fireEvent.change(screen.getByLabelText('Team API key'), { target: { value: 'acme-key-0123456789' } });
    fireEvent.change(screen.getByLabelText(/^Agent IDs/), { target: { value: 'acme-sales, acme-help' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add team' }));
    await flush();
    await flush();
    const card = screen.getByRole('article', { name: 'Team Acme' });
    const said = within(card).getByText('Team Acme added with 2 agents. Its key is in the system keychain.');
    expect(said.getAttribute('role')).toBe('status');
    expect(scrolled).toContain(card);
    expect(document.activeElement).toBe(card);
    // The first team says nothing of the kind.
    expect(screen.getByRole('article', { name: 'Team Ops' }).textContent).not.toContain('added');
  });

  it('an agent reads by its label, with its id beside it only when the two differ', () => {
    const { store } = setup();
    store.setState({ teams: [team({ agentIds: ['acme-sales', 'a1'] })] });
    store
      .getState()
      .setAgents([{ ...agent('acme-sales', 'connected'), label: 'acme-sales' }, agent('a1', 'connected')]);
    mount(store, <TeamsManager />);
    const items = within(screen.getByRole('article', { name: 'Team Ops' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent?.replace(/Remove$/, '').trim());
    expect(items).toEqual(['acme-sales', 'Agent a1 (a1)']);
  });
});
