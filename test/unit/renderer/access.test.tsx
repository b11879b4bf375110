// @vitest-environment jsdom
// A browser tab the companion refuses before ever answering it (opened without its token, or with an
// old one) shows one access message and nothing else: no welcome form, no second or third warning.
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src-renderer/src/App';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup } from './fixtures';

afterEach(cleanup);

const NO_TOKEN = {
  ok: false as const,
  error: {
    kind: 'forbidden' as const,
    code: 'NO_TOKEN',
    message: 'Open the full link printed by `channel-companion serve` (it carries the access token).',
  },
};

describe('a tab without its access link', () => {
  it('shows one clear access message in place of the screens', async () => {
    const t = setup({ 'teams.list': NO_TOKEN, 'agents.list': NO_TOKEN, 'settings.get': NO_TOKEN });
    t.store.getState().setLinkHost('browser');
    connectStore(t.store, t.api);
    mount(t.store, <App />);
    await flush();
    act(() => t.store.getState().linkFailed(NO_TOKEN.error));
    await flush();
    const main = screen.getByRole('main');
    expect(
      screen.getByRole('heading', { level: 2, name: 'This page was opened without its access link.' }),
    ).toBeTruthy();
    expect(main.textContent).toContain('Open the full link printed by channel-companion serve');
    expect(screen.queryByRole('heading', { name: 'Welcome' })).toBeNull();
    expect(screen.queryByLabelText('Team name')).toBeNull();
    // Said once: no banner above it, no error box repeating it.
    expect(document.body.textContent?.match(/access link|access token/g)).toHaveLength(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a tab that was answered before keeps its screens under the banner when its link stops being accepted', async () => {
    const t = setup({ 'teams.list': { ok: true, value: [] } });
    t.store.getState().setLinkHost('browser');
    connectStore(t.store, t.api);
    t.store.getState().linkAnswered({ at: 1, upSince: 1 });
    mount(t.store, <App />);
    await flush();
    act(() =>
      t.store
        .getState()
        .linkFailed({ kind: 'forbidden', code: 'BAD_TOKEN', message: 'Missing or wrong access token.' }),
    );
    expect(screen.getByRole('region', { name: /access link is no longer accepted/ })).toBeTruthy();
    expect(screen.queryByRole('heading', { level: 2, name: /access link/ })).toBeNull();
  });
});
