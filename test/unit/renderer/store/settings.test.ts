// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { AppSettingsDTO } from '../../../../src-shared/contract';
import { appSettings, setup } from '../fixtures';

const settings = appSettings();

describe('settings slice', () => {
  it('loads and updates app settings from the replies; errors keep the old values', async () => {
    const { store, calls } = setup({
      'settings.get': { ok: true, value: settings },
      'settings.update': (a: unknown) => {
        const { patch } = a as { patch: Partial<AppSettingsDTO> };
        if ((patch.pollIntervalSec ?? 30) < 5)
          return {
            ok: false,
            error: {
              kind: 'validation',
              code: 'INVALID_ARGUMENTS',
              message: 'patch.pollIntervalSec: too small',
              field: 'patch.pollIntervalSec',
            },
          };
        return { ok: true, value: { ...settings, ...patch } };
      },
    });
    expect(await store.getState().loadSettings()).toBeNull();
    expect(store.getState().settings).toEqual(settings);
    expect(await store.getState().updateSettings({ pollIntervalSec: 1 })).toMatchObject({ kind: 'validation' });
    expect(store.getState().settings?.pollIntervalSec).toBe(30);
    expect(await store.getState().updateSettings({ pollIntervalSec: 60 })).toBeNull();
    expect(store.getState().settings?.pollIntervalSec).toBe(60);
    expect(calls.filter((c) => c.name === 'settings.update').map((c) => c.args)).toEqual([
      { patch: { pollIntervalSec: 1 } },
      { patch: { pollIntervalSec: 60 } },
    ]);
  });

  it('a failed settings.get is kept for the screen', async () => {
    const { store } = setup({
      'settings.get': { ok: false, error: { kind: 'internal', code: 'NOT_WIRED', message: 'x' } },
    });
    await store.getState().loadSettings();
    expect(store.getState().settingsError?.code).toBe('NOT_WIRED');
  });

  it('channel switches show what the service replied, per agent', async () => {
    let fail = false;
    const { store } = setup({
      'channel.updateSettings': (a: unknown) => {
        const { patch } = a as { patch: object };
        return fail
          ? { ok: false, error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'x', status: 503 } }
          : { ok: true, value: { groups: false, readReceipts: false, deliveryReceipts: false, ...patch } };
      },
    });
    expect(await store.getState().updateChannel('t1', 'a1', { readReceipts: true })).toBeNull();
    expect(store.getState().channel['t1/a1']).toEqual({
      value: { groups: false, readReceipts: true, deliveryReceipts: false },
      pending: false,
      error: null,
    });
    fail = true;
    expect(await store.getState().updateChannel('t1', 'a1', { groups: true })).toMatchObject({ kind: 'reconnecting' });
    expect(store.getState().channel['t1/a1']?.value?.groups).toBe(false);
    expect(store.getState().channel['t1/a1']?.error?.code).toBe('CHANNEL_RECONNECTING');
  });

  it('adds and removes agents through the bridge, then reloads', async () => {
    const { store, calls } = setup({
      'agents.add': { ok: false, error: { kind: 'not-found', code: 'AGENT_NOT_FOUND', message: 'x' } },
    });
    expect(await store.getState().addAgent('t1', 'zz', 'Zed')).toMatchObject({ kind: 'not-found' });
    expect(calls.map((c) => c.name)).toEqual(['agents.add']);
    expect(await store.getState().removeAgent('t1', 'a1')).toBeNull();
    expect(calls.map((c) => c.name)).toContain('teams.list');
  });
});
