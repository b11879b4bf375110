// @vitest-environment jsdom
// Settings → Team hub: connecting sends the URL and token once and then says which hub, as whom (the header
// too); a refused token is said beside the form with what to do; Disconnect goes back to this computer.
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubConnectionDTO } from '../../../src-shared/contract';
import { HubConnection, HubIndicator } from '../../../src-renderer/src/features/settings/HubConnection';
import { connectStore } from '../../../src-renderer/src/store';
import { describeError } from '../../../src-renderer/src/components/errors';
import { flush, mount, setup } from './fixtures';

afterEach(cleanup);

const NONE: HubConnectionDTO = { url: null, member: null, role: null, publicUrl: null, problem: null };
const VIC: HubConnectionDTO = {
  url: 'https://hub.example.test',
  member: 'vic',
  role: 'viewer',
  publicUrl: null,
  problem: null,
};

describe('team hub settings', () => {
  it('connects with the URL and token, then names the hub and the member; Disconnect goes back', async () => {
    // The main side's answers: what it is connected to now.
    let at = NONE;
    const t = setup({
      'hub.status': () => ({ ok: true, value: at }),
      'hub.connect': () => ({ ok: true, value: (at = VIC) }),
      'hub.disconnect': () => ({ ok: true, value: (at = NONE) }),
    });
    connectStore(t.store, t.api);
    mount(
      t.store,
      <>
        <HubIndicator />
        <HubConnection />
      </>,
    );
    await flush();
    expect(screen.queryByTestId('hub-indicator')).toBeNull();
    fireEvent.change(screen.getByLabelText('Hub address'), { target: { value: ' https://hub.example.test ' } });
    fireEvent.change(screen.getByLabelText('Member token'), { target: { value: 'cch_secret' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Connect' })));
    await flush();
    expect(t.calls.filter((c) => c.name === 'hub.connect')).toEqual([
      { name: 'hub.connect', args: { url: 'https://hub.example.test', token: 'cch_secret' } },
    ]);
    expect(screen.getByTestId('hub-indicator').textContent).toBe(
      'Connected to hub https://hub.example.test as vic (viewer)',
    );
    expect(screen.getByTestId('hub-connected').textContent).toContain('as vic (viewer)');
    // Every screen reads afresh from the hub.
    expect(t.calls.filter((c) => c.name === 'teams.list').length).toBeGreaterThanOrEqual(2);
    // The token is not kept by the window.
    expect(JSON.stringify(t.store.getState())).not.toContain('cch_secret');

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Disconnect' })));
    await flush();
    expect(t.calls.some((c) => c.name === 'hub.disconnect')).toBe(true);
    expect(screen.queryByTestId('hub-indicator')).toBeNull();
    expect(screen.getByRole('button', { name: 'Connect' })).toBeTruthy();
  });

  it('a refused token is said beside the form, and the token field is marked', async () => {
    const t = setup({
      'hub.status': { ok: true, value: NONE },
      'hub.connect': {
        ok: false,
        error: {
          kind: 'forbidden',
          code: 'HUB_BAD_TOKEN',
          message: 'The hub at https://hub.example.test refused the token: missing, wrong or revoked.',
        },
      },
    });
    connectStore(t.store, t.api);
    mount(t.store, <HubConnection />);
    await flush();
    fireEvent.change(screen.getByLabelText('Hub address'), { target: { value: 'https://hub.example.test' } });
    fireEvent.change(screen.getByLabelText('Member token'), { target: { value: 'cch_old' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Connect' })));
    await flush();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('refused the token: missing, wrong or revoked.');
    expect(alert.textContent).toContain('Ask a hub admin for a new token.');
    expect(screen.getByLabelText('Member token').getAttribute('aria-invalid')).toBe('true');
  });

  it('a saved hub that is not in use says why; the hub’s role refusal reads as the role', async () => {
    const t = setup({
      'hub.status': { ok: true, value: { ...NONE, url: 'https://hub.example.test', problem: 'It does not answer.' } },
    });
    connectStore(t.store, t.api);
    mount(t.store, <HubConnection />);
    await flush();
    expect(screen.getByRole('status').textContent).toBe(
      'The saved hub https://hub.example.test is not in use: It does not answer.',
    );
    expect(
      describeError({
        kind: 'forbidden',
        code: 'ROLE_FORBIDDEN',
        message: 'send.message needs the role developer or above; vic is viewer.',
      }),
    ).toEqual({
      what: 'The hub does not allow this: send.message needs the role developer or above; vic is viewer.',
      todo: 'Ask a hub admin for a role that allows it.',
    });
  });
});
