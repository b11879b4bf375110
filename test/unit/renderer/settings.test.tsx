// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppSettingsDTO } from '../../../src-shared/contract';
import { AgentSettingsScreen } from '../../../src-renderer/src/features/settings/AgentSettingsScreen';
import { checkWhole } from '../../../src-renderer/src/features/settings/NumberSetting';
import { SettingsScreen } from '../../../src-renderer/src/features/settings/SettingsScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { followSettingsTheme, readTheme } from '../../../src-renderer/src/components/theme';
import { describeError, errorText } from '../../../src-renderer/src/components/errors';
import { LABEL_MAX_LENGTH } from '../../../src-shared/limits';
import { agent, appSettings, flush, mount, setup, team } from './fixtures';

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

const settings = appSettings({ tunnel: { port: 0, forwardTo: 'http://127.0.0.1:3000/hook' } });

describe('settings screen', () => {
  it('settings changed elsewhere (another window or process) show at once; a number being edited is kept', async () => {
    const t = setup({ 'settings.get': { ok: true, value: settings }, 'teams.list': { ok: true, value: [] } });
    connectStore(t.store, t.api);
    mount(t.store, <SettingsScreen />);
    await flush();
    const poll = () => screen.getByLabelText('Poll interval (seconds)') as HTMLInputElement;
    expect(poll().value).toBe('30');
    act(() => t.emit('settings.changed', { settings: { ...settings, pollIntervalSec: 45 } }));
    expect(poll().value).toBe('45');
    fireEvent.change(poll(), { target: { value: '20' } });
    act(() => t.emit('settings.changed', { settings: { ...settings, pollIntervalSec: 60 } }));
    expect(poll().value).toBe('20');
    expect(t.store.getState().settings?.pollIntervalSec).toBe(60);
  });

  it('poll interval: a bad value is refused here and kept; a service validation error is shown; success saves', async () => {
    let reject = true;
    const { store, calls } = setup({
      'settings.update': (a: unknown) => {
        const { patch } = a as { patch: Partial<AppSettingsDTO> };
        if (reject)
          return {
            ok: false,
            error: {
              kind: 'validation',
              code: 'INVALID_ARGUMENTS',
              message: 'patch.pollIntervalSec: must be at most 600',
              field: 'patch.pollIntervalSec',
            },
          };
        return { ok: true, value: { ...settings, ...patch } };
      },
    });
    store.setState({ settings, teams: [] });
    mount(store, <SettingsScreen />);
    const input = screen.getByLabelText('Poll interval (seconds)') as HTMLInputElement;
    expect(input.value).toBe('30');
    fireEvent.change(input, { target: { value: '2x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Poll interval (seconds)' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Poll interval (seconds) must be a whole number.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.value).toBe('2x');
    expect(calls.some((c) => c.name === 'settings.update')).toBe(false);

    fireEvent.change(input, { target: { value: '4' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Poll interval (seconds)' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Poll interval (seconds) must be between 5 and 3600.');
    fireEvent.change(input, { target: { value: '700' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Poll interval (seconds)' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('must be at most 600');
    expect(input.value).toBe('700');

    reject = false;
    fireEvent.change(input, { target: { value: '60' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Poll interval (seconds)' }));
    await flush();
    expect(store.getState().settings?.pollIntervalSec).toBe(60);
    expect(screen.getByText('Saved.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('messages retention: shows the kept days, refuses out of range here, saves through messages.setRetention', async () => {
    let kept = 90;
    const { store, calls } = setup({
      'messages.contacts': () => ({ ok: true, value: { contacts: [], agents: [], unread: 0, retentionDays: kept } }),
      'messages.setRetention': (a: unknown) => {
        kept = (a as { days: number }).days;
        return { ok: true, value: { retentionDays: kept } };
      },
    });
    store.setState({ settings, teams: [] });
    mount(store, <SettingsScreen />);
    await flush();
    const input = screen.getByLabelText('Keep messages (days)') as HTMLInputElement;
    expect(input.value).toBe('90');
    fireEvent.change(input, { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Keep messages (days)' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('Keep messages (days) must be between 1 and 3650.');
    expect(calls.some((c) => c.name === 'messages.setRetention')).toBe(false);
    fireEvent.change(input, { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Keep messages (days)' }));
    await flush();
    expect(calls.filter((c) => c.name === 'messages.setRetention').map((c) => c.args)).toEqual([{ days: 30 }]);
    expect(store.getState().inbox.retentionDays).toBe(30);
    expect(input.value).toBe('30');
  });

  it('tunnel port keeps the rest of the tunnel settings; start at login toggles', async () => {
    const { store, calls } = setup({
      'settings.update': (a: unknown) => ({ ok: true, value: { ...settings, ...(a as { patch: object }).patch } }),
    });
    store.setState({ settings, teams: [] });
    mount(store, <SettingsScreen />);
    fireEvent.change(screen.getByLabelText('Tunnel port'), { target: { value: '8787' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Tunnel port' }));
    await flush();
    expect(calls.at(-1)?.args).toEqual({ patch: { tunnel: { port: 8787, forwardTo: 'http://127.0.0.1:3000/hook' } } });
    fireEvent.click(screen.getByRole('switch', { name: /Start at login/ }));
    await flush();
    expect(calls.at(-1)?.args).toEqual({ patch: { startAtLogin: true } });
    expect(store.getState().settings?.startAtLogin).toBe(true);
  });

  it('theme: applies data-theme on <html>, saves it in the app settings and keeps a local copy', async () => {
    const { store, calls } = setup({
      'settings.update': (a: unknown) => ({
        ok: true,
        value: { ...settings, ...(a as { patch: Partial<AppSettingsDTO> }).patch },
      }),
    });
    store.setState({ settings, teams: [] });
    mount(store, <SettingsScreen />);
    fireEvent.click(screen.getByRole('radio', { name: 'Dark' }));
    await flush();
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
    expect(readTheme(window.localStorage)).toBe('dark');
    expect(calls.find((c) => c.name === 'settings.update')?.args).toEqual({ patch: { theme: 'dark' } });
    expect(store.getState().settings?.theme).toBe('dark');
    fireEvent.click(screen.getByRole('radio', { name: 'Same as the system' }));
    await flush();
    expect(document.documentElement.getAttribute('data-theme')).toBe('system');
    expect(calls.filter((c) => c.name === 'settings.update').at(-1)?.args).toEqual({ patch: { theme: 'system' } });
  });

  it('theme: the saved setting wins over the local copy when it loads or changes elsewhere', () => {
    const { store } = setup();
    window.localStorage.setItem('cc.theme', 'light');
    const root = document.createElement('div');
    root.setAttribute('data-theme', 'light');
    const off = followSettingsTheme(store, root, window.localStorage);
    expect(root.getAttribute('data-theme')).toBe('light'); // nothing loaded yet: the copy stays
    store.setState({ settings: { ...settings, theme: 'dark' } });
    expect(root.getAttribute('data-theme')).toBe('dark');
    expect(readTheme(window.localStorage)).toBe('dark');
    off();
    store.setState({ settings: { ...settings, theme: 'light' } });
    expect(root.getAttribute('data-theme')).toBe('dark');
  });

  it('theme: a local choice from before the setting existed is saved once, not dropped', () => {
    const { store } = setup();
    window.localStorage.setItem('cc.theme', 'dark');
    const root = document.createElement('div');
    root.setAttribute('data-theme', 'dark');
    const saved: string[] = [];
    followSettingsTheme(store, root, window.localStorage, (t) => {
      saved.push(t);
      store.setState({ settings: { ...settings, theme: t } });
    });
    store.setState({ settings: { ...settings, theme: 'system' } });
    expect(saved).toEqual(['dark']);
    expect(root.getAttribute('data-theme')).toBe('dark');
    expect(store.getState().settings?.theme).toBe('dark');

    // Next start (same browser): the settings are the truth, even when they say 'system'.
    const { store: next } = setup();
    const again: string[] = [];
    followSettingsTheme(next, root, window.localStorage, (t) => again.push(t));
    next.setState({ settings: { ...settings, theme: 'system' } });
    expect(again).toEqual([]);
    expect(root.getAttribute('data-theme')).toBe('system');
    expect(readTheme(window.localStorage)).toBe('system');
  });

  it('teams: only the key hint is shown; remove asks first; add agent shows errors and keeps input', async () => {
    const { store, calls } = setup({
      'agents.add': {
        ok: false,
        error: { kind: 'not-found', code: 'AGENT_NOT_FOUND', message: 'unknown agent', status: 404 },
      },
      'teams.remove': { ok: true, value: null },
    });
    store.setState({ settings, teams: [team({ keyRejected: true })] });
    store.getState().setAgents([agent('a1', 'connected')]);
    mount(store, <SettingsScreen />);
    const card = screen.getByRole('article', { name: 'Team Ops' });
    expect(card.textContent).toContain('…9f2c');
    expect(card.textContent).toContain('key rejected');
    // Empty: the field is marked with its message, nothing is sent.
    fireEvent.click(within(card).getByRole('button', { name: 'Add agent' }));
    await flush();
    expect(within(card).getByLabelText('Agent ID').getAttribute('aria-invalid')).toBe('true');
    expect(within(card).getByText('Give the agent ID from the dashboard, e.g. agent-support.')).toBeTruthy();
    expect(document.activeElement).toBe(within(card).getByLabelText('Agent ID'));
    expect(calls.some((c) => c.name === 'agents.add')).toBe(false);
    fireEvent.change(within(card).getByLabelText('Agent ID'), { target: { value: 'zz' } });
    expect(within(card).queryByText('Give the agent ID from the dashboard, e.g. agent-support.')).toBeNull();
    fireEvent.click(within(card).getByRole('button', { name: 'Add agent' }));
    await flush();
    expect(within(card).getByRole('alert').textContent).toContain('Check the agent ID in the dashboard');
    // The agent was never added: no advice to remove it from the team.
    expect(within(card).getByRole('alert').textContent).not.toContain('remove the agent');
    expect(within(card).getByRole('alert').textContent).not.toContain('AGENT_NOT_FOUND');
    expect((within(card).getByLabelText('Agent ID') as HTMLInputElement).value).toBe('zz');
    // The label takes no more than a label may have.
    expect((within(card).getByLabelText('Label (optional)') as HTMLInputElement).maxLength).toBe(LABEL_MAX_LENGTH);

    fireEvent.click(within(card).getByRole('button', { name: 'Remove team Ops and its key' }));
    expect(calls.some((c) => c.name === 'teams.remove')).toBe(false);
    fireEvent.click(within(card).getByRole('button', { name: 'Yes, remove' }));
    await flush();
    expect(calls.find((c) => c.name === 'teams.remove')?.args).toEqual({ teamId: 't1' });
  });

  it('settings that fail to load say so and offer a retry', async () => {
    const { store } = setup({
      'settings.get': { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'x' } },
    });
    await store.getState().loadSettings();
    store.setState({ teams: [] });
    mount(store, <SettingsScreen />);
    expect(screen.getByRole('alert').textContent).toContain('could not be reached');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('checks whole numbers in range', () => {
    expect(checkWhole('10', 5, 60, 'X')).toBeNull();
    expect(checkWhole('-1', 0, 60, 'X')).toMatch(/whole number/);
    expect(checkWhole('61', 5, 60, 'X')).toMatch(/between 5 and 60/);
  });
});

describe('agent settings (channel switches)', () => {
  it('read "unknown until changed here" (the service cannot read them), then show what the service replied; an error is explained', async () => {
    let fail = false;
    const { store, calls } = setup({
      'channel.updateSettings': () =>
        fail
          ? { ok: false, error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'x', status: 503 } }
          : { ok: true, value: { groups: false, readReceipts: true, deliveryReceipts: false } },
    });
    store.getState().setAgents([agent('a1', 'connected')]);
    mount(store, <AgentSettingsScreen agentId="a1" teamId="t1" />);
    const switches = screen.getAllByRole('switch') as HTMLInputElement[];
    expect(switches.map((s) => [s.checked, s.indeterminate])).toEqual([
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect(switches.map((s) => s.labels?.[0]?.textContent)).toEqual([
      'Answer in groups (unknown until changed here)',
      'Send read receipts (unknown until changed here)',
      'Deliver receipt events (unknown until changed here)',
    ]);
    expect(document.body.textContent).not.toMatch(/\boff\b/);
    expect(screen.getByRole('status').textContent).toBe(
      'The service has no way to read these: each is unknown until it is changed here (it may have been set elsewhere).',
    );
    fireEvent.click(screen.getByRole('switch', { name: /Send read receipts/ }));
    await flush();
    expect(calls.at(-1)?.args).toEqual({ teamId: 't1', agentId: 'a1', patch: { readReceipts: true } });
    expect(
      screen.getByText('The service now reports: groups off, read receipts on, delivery receipts off.'),
    ).toBeTruthy();
    expect((screen.getByRole('switch', { name: /Send read receipts/ }) as HTMLInputElement).checked).toBe(true);
    expect(
      screen
        .getAllByRole('switch')
        .map((s) => [(s as HTMLInputElement).indeterminate, s.parentElement?.querySelector('label')?.textContent]),
    ).toEqual([
      [false, 'Answer in groups (off)'],
      [false, 'Send read receipts (on)'],
      [false, 'Deliver receipt events (off)'],
    ]);
    fail = true;
    fireEvent.click(screen.getByRole('switch', { name: /Answer in groups/ }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('recovers on its own');
    expect((screen.getByRole('switch', { name: /Answer in groups/ }) as HTMLInputElement).checked).toBe(false);
  });
});

describe('error words', () => {
  it('say what happened and what to do by kind', () => {
    expect(describeError({ kind: 'keychain', code: 'K', message: '' }).what).toContain('No OS keychain is reachable');
    expect(describeError({ kind: 'key-rejected', code: 'U', message: '' }).what).toContain('key rejected');
    expect(describeError({ kind: 'rate-limited', code: 'R', message: '', retryAfterSec: 7 }).todo).toBe(
      'Wait 7 s and try again.',
    );
    expect(describeError({ kind: 'needs-scan', code: 'C', message: '' }).todo).toContain('Pairing');
    // A failure inside a stream (no HTTP status) says what the service said; with a status, the status.
    expect(errorText({ kind: 'server-error', code: 'STREAM_FAILED', message: 'the reply stream failed' })).toBe(
      'The service reported a problem: the reply stream failed. Try again in a minute.',
    );
    expect(errorText({ kind: 'server-error', code: 'E', message: 'boom', status: 502 })).toBe(
      'The service had a problem (HTTP 502). Try again in a minute.',
    );
  });

  it('advise on an unknown agent by where it came from: one being added, or one saved in a team', () => {
    const unknown = {
      kind: 'not-found' as const,
      code: 'AGENT_NOT_FOUND',
      message: 'Agent "ghost-agent" was not found at http://127.0.0.1:1 with this key; nothing was stored.',
    };
    expect(describeError(unknown, 'adding').todo).toBe(
      "Check the agent ID in the dashboard (it must belong to this team's key) and try again.",
    );
    expect(describeError(unknown).todo).toBe(
      'Check the agent ID in the dashboard, or remove the agent from the team in Settings.',
    );
  });

  it('put what happened and what to do in one text, without internal codes', () => {
    expect(
      errorText({
        kind: 'rate-limited',
        code: 'RATE_LIMITED',
        message: 'injected fault: rate limited',
        status: 429,
        retryAfterSec: 30,
      }),
    ).toBe('Rate limit reached. Wait 30 s and try again.');
    expect(
      errorText({ kind: 'network-error', code: 'NETWORK_ERROR', message: 'The service could not be reached.' }),
    ).toBe('The service could not be reached. Check your connection and the service address, then try again.');
  });
});
