// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionDTO } from '../../../src-shared/contract';
import { PairingScreen } from '../../../src-renderer/src/features/pairing/PairingScreen';
import { agent, mount, PNG, session, setup } from './fixtures';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

function pairing(first: SessionDTO) {
  let reply = first;
  const clock = { t: 0 };
  const s = setup({ 'pairing.session': () => ({ ok: true, value: reply }), 'pairing.start': () => ({ ok: true, value: session({ state: 'pairing' }) }) }, clock);
  // the store's clock follows the fake timers
  Object.defineProperty(clock, 't', { get: () => Date.now() });
  s.store.getState().setAgents([agent('a1', 'needs-scan')]);
  return { ...s, set: (r: SessionDTO) => (reply = r) };
}

describe('pairing screen', () => {
  it('needs-scan → start → QR with instructions and countdown → rotates → linked with the phone', async () => {
    const p = pairing(session());
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(screen.getByText(/This number is not linked/)).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Start pairing' }));
    await advance(0);
    expect(p.calls.some((c) => c.name === 'pairing.start')).toBe(true);
    expect(screen.getByText(/Waiting for the QR code/)).toBeTruthy();

    p.set(session({ state: 'pairing', qr: PNG(1) }));
    await advance(1500);
    const img = screen.getByRole('img', { name: 'Pairing QR code for Agent a1' });
    expect(img.getAttribute('src')).toBe(PNG(1));
    expect(screen.getByText(/Settings → Linked devices → Link a device/)).toBeTruthy();
    expect(screen.getByText(/next change in about 20 s/)).toBeTruthy();
    await advance(6000);
    expect(screen.getByText(/next change in about 1[45] s/)).toBeTruthy();

    p.set(session({ state: 'pairing', qr: PNG(2) }));
    await advance(1500);
    expect(screen.getByRole('img', { name: /Pairing QR code/ }).getAttribute('src')).toBe(PNG(2));
    expect(screen.getByText(/next change in about 20 s/)).toBeTruthy();

    p.set(session({ state: 'open', connected: true, linked: true, needsScan: false, phone: '15550001111' }));
    await advance(1500);
    const heading = screen.getByRole('heading', { level: 3 });
    expect(heading.textContent).toContain('Linked!');
    expect(heading.textContent).toContain('+15550001111');
    expect(screen.queryByRole('img', { name: /Pairing QR code/ })).toBeNull();
  });

  it('reconnecting (needsScan false, not connected) says nothing to do, whatever the state is called', async () => {
    const p = pairing(session({ state: 'needs-scan-lol', needsScan: false, linked: true }));
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(screen.getByText(/Nothing to do, it recovers on its own/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Start pairing/ })).toBeNull();
  });

  it('an expired pairing offers to start again; a start error is explained', async () => {
    const p = pairing(session({ state: 'pairing', qr: PNG(1) }));
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    p.set(session());
    await advance(1500);
    expect(screen.getByText(/The pairing code expired/)).toBeTruthy();
    p.api['pairing.start'] = async () => ({ ok: false, error: { kind: 'unauthorized', code: 'UNAUTHORIZED', message: 'no', status: 401 } });
    fireEvent.click(screen.getByRole('button', { name: 'Start pairing again' }));
    await advance(0);
    expect(screen.getByRole('alert').textContent).toContain('key rejected');
  });

  it('stops polling when the screen closes', async () => {
    const p = pairing(session());
    const view = mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(3000);
    const polls = p.calls.filter((c) => c.name === 'pairing.session').length;
    expect(polls).toBeGreaterThanOrEqual(2);
    view.unmount();
    await advance(6000);
    expect(p.calls.filter((c) => c.name === 'pairing.session').length).toBe(polls);
  });
});
