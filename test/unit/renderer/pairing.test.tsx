// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PairingTimesDTO, SessionDTO } from '../../../src-shared/contract';
import { PairingScreen } from '../../../src-renderer/src/features/pairing/PairingScreen';
import { agent, mount, PNG, session, setup } from './fixtures';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

/** A pairing the main side saw start at `at`: codes every 20 s from then, expiring 2 min later. */
const timesFrom = (at: number, startedHere = true): PairingTimesDTO => ({
  startedAt: at,
  startedHere,
  qrAnchorAt: at,
  qrEveryMs: 20_000,
  expiresAt: at + 120_000,
});

function pairing(first: SessionDTO) {
  let reply = first;
  const clock = { t: 0 };
  const s = setup(
    {
      'pairing.session': () => ({ ok: true, value: reply }),
      'pairing.start': () => ({ ok: true, value: session({ state: 'pairing' }) }),
    },
    clock,
  );
  // the store's clock follows the fake timers
  Object.defineProperty(clock, 't', { get: () => Date.now() });
  s.store.getState().setAgents([agent('a1', 'needs-scan')]);
  return { ...s, set: (r: SessionDTO) => (reply = r) };
}

describe('pairing screen', () => {
  it('needs-scan → start → QR with instructions and countdowns → rotates → linked with the phone', async () => {
    const p = pairing(session());
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(screen.getByText(/This number is not linked/)).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Start pairing' }));
    const t0 = Date.now();
    await advance(0);
    expect(p.calls.some((c) => c.name === 'pairing.start')).toBe(true);
    expect(screen.getByText(/Waiting for the QR code/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeTruthy();

    p.set(session({ state: 'pairing', qr: PNG(1), pairing: timesFrom(t0) }));
    await advance(1500);
    const img = screen.getByRole('img', { name: 'Pairing QR code for Agent a1' });
    expect(img.getAttribute('src')).toBe(PNG(1));
    expect(screen.getByText(/Settings → Linked devices → Link a device/)).toBeTruthy();
    expect(screen.getByText(/Next code in 19 s/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in 1 min 59 s/)).toBeTruthy();
    expect(screen.getByRole('meter', { name: /Time left to scan/ }).getAttribute('value')).toBe('119');
    await advance(6000);
    expect(screen.getByText(/Next code in 13 s/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in 1 min 53 s/)).toBeTruthy();

    // The code changes: the countdowns keep counting from the start, not from when this window saw it.
    await advance(13_500);
    p.set(session({ state: 'pairing', qr: PNG(2), pairing: timesFrom(t0) }));
    await advance(1500);
    expect(screen.getByRole('img', { name: /Pairing QR code/ }).getAttribute('src')).toBe(PNG(2));
    expect(screen.getByText(/Next code in 18 s/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in 1 min 38 s/)).toBeTruthy();

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
    p.api['pairing.start'] = async () => ({
      ok: false,
      error: { kind: 'key-rejected', code: 'UNAUTHORIZED', message: 'no', status: 401 },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start pairing again' }));
    await advance(0);
    expect(screen.getByRole('alert').textContent).toContain('key rejected');
  });

  it('opened again later (or in a new window), the countdowns are where the main side says they are', async () => {
    const t0 = Date.now();
    const p = pairing(session({ state: 'pairing', qr: PNG(1), pairing: timesFrom(t0 - 47_000) }));
    const first = mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(screen.getByText(/Next code in 13 s/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in 1 min 13 s/)).toBeTruthy();
    first.unmount();
    await advance(30_000);
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    // Before any new read: the kept times already give the right remaining time.
    expect(screen.getByText(/Next code in 3 s/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in 43 s/)).toBeTruthy();
  });

  it('a pairing started elsewhere says it may end sooner; the last code says so', async () => {
    const p = pairing(session({ state: 'pairing', qr: PNG(1), pairing: timesFrom(Date.now() - 105_000, false) }));
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(screen.getByText(/This is the last code of this pairing/)).toBeTruthy();
    expect(screen.getByText(/The pairing expires in at most 15 s/)).toBeTruthy();
    expect(screen.getByText(/started outside this app, so it may end sooner/)).toBeTruthy();
  });

  it('Cancel stops waiting and goes back to the agent, saying the service keeps the code until it expires', async () => {
    const t0 = Date.now();
    const p = pairing(session({ state: 'pairing', qr: PNG(1), pairing: timesFrom(t0) }));
    mount(p.store, <PairingScreen agentId="a1" teamId="t1" />);
    await advance(0);
    expect(
      screen.getByText(/The service has no way to cancel a pairing: the code stays valid until it expires/),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(p.store.getState().route).toBe('#/agents/a1?team=t1');
    expect(p.store.getState().notices.at(-1)?.body).toContain(`until ${new Date(t0 + 120_000).toLocaleTimeString()}`);
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
