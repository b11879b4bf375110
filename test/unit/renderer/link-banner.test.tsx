// @vitest-environment jsdom
// While the main side does not answer: the banner (what, last heard, what to do), agents and the
// sidebar's worst health shown as unknown instead of their last state; all back when it answers.
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../src-renderer/src/App';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

function app(host: 'browser' | 'desktop' = 'browser') {
  const now = { t: 1_000_000 };
  const t = setup(
    {
      'teams.list': { ok: true, value: [team({ agentIds: ['a1', 'a2'] })] },
      'agents.list': { ok: true, value: [agent('a1', 'connected', { checkedAt: 999_000 }), agent('a2', 'needs-scan')] },
    },
    now,
  );
  connectStore(t.store, t.api);
  t.store.getState().setLinkHost(host);
  t.store.getState().linkAnswered({ at: now.t, upSince: 1 });
  mount(t.store, <App />);
  return { ...t, now };
}

const nav = () => screen.getByRole('navigation', { name: 'Main' });
const rows = () => within(screen.getByRole('list', { name: /agents, worst health first/ })).getAllByRole('listitem');

describe('link banner', () => {
  it('down: a banner with when it was last heard and what to do; agents and the worst health read unknown', async () => {
    const t = app();
    await flush();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(within(nav()).getByText('Needs a QR scan')).toBeTruthy();
    expect(rows()[1]!.textContent).toContain('Connected');

    t.now.t += 20_000;
    act(() => t.store.getState().linkFailed({ kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'x' }));
    const banner = screen.getByRole('region', { name: /The companion is not answering/ });
    expect(within(banner).getByRole('alert').textContent).toContain('The companion is not answering.');
    expect(banner.textContent).toContain('Last heard');
    expect(banner.textContent).toContain('Agents show as unknown meanwhile.');
    expect(banner.textContent).toContain('Is channel-companion serve still running?');
    expect(banner.textContent).toContain(
      'This page reconnects by itself when it is back: a restart keeps its address and access link.',
    );
    expect(within(nav()).getByText('Unknown')).toBeTruthy();
    expect(within(nav()).queryByText('Needs a QR scan')).toBeNull();
    for (const row of rows()) {
      expect(row.textContent).toContain('Unknown');
      expect(row.textContent).toContain('last heard');
      expect(row.textContent).not.toMatch(/Connected|Needs a QR scan|polled/);
    }

    act(() => void t.store.getState().linkAnswered({ at: t.now.t, upSince: 1 }));
    expect(screen.queryByRole('region', { name: /not answering/ })).toBeNull();
    // Current only once everything shown was read again.
    expect(screen.getByText('The companion answers again; reading what changed meanwhile…')).toBeTruthy();
    expect(screen.queryByText('The companion answers again; what is shown is current.')).toBeNull();
    act(() => t.store.getState().linkReloaded(true));
    expect(screen.getByText('The companion answers again; what is shown is current.')).toBeTruthy();
    expect(within(nav()).getByText('Needs a QR scan')).toBeTruthy();
    expect(rows()[1]!.textContent).toContain('Connected');
  });

  it('refused in a browser: the token changed; it says why and to open the new link', async () => {
    const t = app();
    await flush();
    act(() =>
      t.store
        .getState()
        .linkFailed({ kind: 'forbidden', code: 'BAD_TOKEN', message: 'Missing or wrong access token.' }),
    );
    const banner = screen.getByRole('region', { name: /access link is no longer accepted/ });
    expect(banner.textContent).toContain(
      'started with a new access token (--new-token, or another --token-env value) and printed a new link',
    );
    expect(banner.textContent).toContain('Open that link; this tab is fine.');
    expect(banner.textContent).not.toContain('was restarted');
    expect(within(nav()).getByText('Unknown')).toBeTruthy();
  });

  it('in the desktop app it names the background process and says to restart if it lasts', async () => {
    const t = app('desktop');
    await flush();
    act(() => t.store.getState().linkFailed({ kind: 'timeout', code: 'NO_ANSWER', message: 'x' }));
    const banner = screen.getByRole('region', { name: /background process is not answering/ });
    expect(banner.textContent).toContain('quit Channel Companion and start it again');
  });
});
