// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { PairingTimesDTO } from '../../../../src-shared/contract';
import { pairingCountdown, pairingPhase, type PairingView } from '../../../../src-renderer/src/store/pairing';
import { PNG, session, setup } from '../fixtures';

/** A pairing started here at 100 000 (ms epoch), as the main side times it. */
const TIMES: PairingTimesDTO = {
  startedAt: 100_000,
  startedHere: true,
  qrAnchorAt: 100_000,
  qrEveryMs: 20_000,
  expiresAt: 220_000,
};

/** The pairing view of t1/a1 after a store read each of these sessions in turn. */
async function polled(...sessions: ReturnType<typeof session>[]): Promise<PairingView> {
  const replies = [...sessions];
  const { store } = setup({ 'pairing.session': () => ({ ok: true, value: replies.shift()! }) });
  for (let i = 0; i < sessions.length; i++) await store.getState().pollPairing('t1', 'a1');
  return store.getState().pairing['t1/a1']!;
}

describe('pairing slice', () => {
  it('goes needs-scan → preparing → qr (rotating) → linked, and celebrates only after a scan was needed', async () => {
    let reply = session();
    const { store, now } = setup({
      'pairing.session': () => ({ ok: true, value: reply }),
      'pairing.start': () => ({ ok: true, value: session({ state: 'pairing' }) }),
    });
    const view = () => store.getState().pairing['t1/a1']!;
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('needs-scan');

    expect(await store.getState().startPairing('t1', 'a1')).toBeNull();
    expect(pairingPhase(view())).toBe('preparing');

    now.t += 1000;
    reply = session({ state: 'pairing', qr: PNG(1), pairing: TIMES });
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('qr');
    expect(view().session?.pairing).toEqual(TIMES);

    now.t = 121_000; // rotated
    reply = session({ state: 'pairing', qr: PNG(2), pairing: TIMES });
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('qr');

    now.t = 125_000;
    reply = session({ state: 'open', connected: true, linked: true, needsScan: false, phone: '15550001111' });
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('linked');
    expect(view().linkedAt).toBe(125_000);
    expect(view().session?.pairing).toBeUndefined();
  });

  it('says expired when the QR disappears while a scan is still needed', async () => {
    expect(
      pairingPhase(await polled(session({ qr: PNG(1) }), session({ qr: null, needsScan: true, state: 'unlinked' }))),
    ).toBe('expired');
  });

  it('decides from needsScan/qr, never from the state name', async () => {
    // a state named "connected" that still needs a scan is a needs-scan
    expect(pairingPhase(await polled(session({ state: 'connected', needsScan: true })))).toBe('needs-scan');
    // an unknown state with needsScan false and not connected: recovering on its own
    expect(pairingPhase(await polled(session({ state: 'weird-new-state', needsScan: false, linked: true })))).toBe(
      'recovering',
    );
    // already linked when first seen: no celebration
    const v = await polled(session({ connected: true, linked: true, needsScan: false, phone: '1' }));
    expect(pairingPhase(v)).toBe('linked');
    expect(v.linkedAt).toBeNull();
  });

  it('counts down from the main side times: the next code modulo its period, the expiry, the last code', () => {
    // started at 100 000: codes change at 120 000, 140 000, …; it expires at 220 000
    expect(pairingCountdown(TIMES, 100_000)).toEqual({
      nextQrMs: 20_000,
      expiresInMs: 120_000,
      expiresAt: 220_000,
      totalMs: 120_000,
      exact: true,
    });
    expect(pairingCountdown(TIMES, 145_000)).toMatchObject({ nextQrMs: 15_000, expiresInMs: 75_000 });
    // a clock read a moment before the start (a render between ticks) never counts more than the whole
    expect(pairingCountdown(TIMES, 99_400)?.expiresInMs).toBe(120_000);
    // the same whenever it is asked: nothing depends on when a window first saw the QR
    expect(pairingCountdown(TIMES, 145_000)).toEqual(pairingCountdown({ ...TIMES }, 145_000));
    expect(pairingCountdown(TIMES, 205_000)).toMatchObject({ nextQrMs: null, expiresInMs: 15_000 }); // the pairing ends first
    expect(pairingCountdown(TIMES, 230_000)).toMatchObject({ nextQrMs: null, expiresInMs: 0 });
    expect(pairingCountdown({ ...TIMES, startedHere: false }, 145_000)?.exact).toBe(false);
    expect(pairingCountdown(undefined, 1)).toBeNull();
  });

  it('cancel stops waiting, goes back to the agent, and says the code stays valid until it expires', async () => {
    const { store } = setup({
      'pairing.start': () => ({ ok: true, value: session({ state: 'pairing', qr: PNG(1), pairing: TIMES }) }),
    });
    await store.getState().startPairing('t1', 'a1');
    store.getState().cancelPairing('t1', 'a1', 'Agent a1');
    expect(store.getState().route).toBe('#/agents/a1?team=t1');
    expect(store.getState().pairing['t1/a1']).toMatchObject({ starting: false, startedAt: null });
    const n = store.getState().notices.at(-1)!;
    expect(n.title).toBe('Stopped waiting for the scan of Agent a1 (a1)');
    expect(n.body).toContain('no way to cancel a pairing');
    expect(n.body).toContain(`until ${new Date(TIMES.expiresAt).toLocaleTimeString()}`);
    expect(n.route).toBe('#/agents/a1/pairing?team=t1');
  });

  it('keeps the error of a failed start and of a failed poll', async () => {
    const { store } = setup({
      'pairing.start': {
        ok: false,
        error: { kind: 'key-rejected', code: 'UNAUTHORIZED', message: 'bad key', status: 401 },
      },
      'pairing.session': { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'x' } },
    });
    expect(await store.getState().startPairing('t1', 'a1')).toMatchObject({ kind: 'key-rejected' });
    expect(store.getState().pairing['t1/a1']).toMatchObject({
      starting: false,
      startedAt: null,
      error: { kind: 'key-rejected' },
    });
    await store.getState().pollPairing('t1', 'a1');
    expect(store.getState().pairing['t1/a1']?.error?.kind).toBe('network-error');
  });

  it('a failed read keeps when the session was last read; asking only while a read is in flight', async () => {
    let answer: (() => void) | null = null;
    let ok = true;
    const { store, now } = setup({
      'pairing.session': () =>
        new Promise((resolve) => {
          answer = () =>
            resolve(
              ok
                ? { ok: true, value: session() }
                : { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'reset' } },
            );
        }),
    });
    const view = () => store.getState().pairing['t1/a1']!;
    const read = async () => {
      const p = store.getState().pollPairing('t1', 'a1');
      expect(view().asking).toBe(true);
      answer!();
      await p;
      expect(view().asking).toBe(false);
    };
    await read();
    expect(view()).toMatchObject({ readAt: 100_000, error: null });
    now.t = 160_000;
    ok = false;
    await read();
    expect(view()).toMatchObject({ readAt: 100_000, error: { kind: 'network-error' } });
    expect(view().session).not.toBeNull();
  });
});
