// @vitest-environment jsdom
// A screen off the first paint is a chunk of its own: should it fail to load (e.g. the app was
// updated under an open tab), the screen says so and offers a reload; the rest of the app stays.
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src-renderer/src/App';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

vi.mock('../../../src-renderer/src/features/settings/SettingsScreen', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

afterEach(cleanup);

describe('a screen whose chunk does not load', () => {
  it('says so with a reload in place of the screen; the navigation and the other screens still work', async () => {
    const { store, api } = setup({
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    });
    connectStore(store, api);
    mount(store, <App />);
    await flush();
    act(() => store.getState().setRoute('#/settings'));
    const main = screen.getByRole('main');
    await within(main).findByText('This screen could not be loaded.', undefined, { timeout: 5000 });
    expect(within(main).getByRole('button', { name: 'Reload the app' })).toBeTruthy();
    expect(within(main).queryByText('Loading…')).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();

    act(() => store.getState().setRoute('#/'));
    expect(screen.getByRole('list', { name: /agents, worst health first/ }).textContent).toContain('Agent a1');
  });
});
