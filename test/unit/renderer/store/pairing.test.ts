// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { applySession, emptyPairing, nextRotationMs, pairingPhase, QR_ROTATION_MS } from '../../../../src-renderer/src/store/pairing';
import { PNG, session, setup } from '../fixtures';

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
    reply = session({ state: 'pairing', qr: PNG(1) });
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('qr');
    expect(view().qrChangedAt).toBe(101_000);
    expect(nextRotationMs(view(), 106_000)).toBe(15_000);

    now.t += 1500; // same QR: its change time stays
    await store.getState().pollPairing('t1', 'a1');
    expect(view().qrChangedAt).toBe(101_000);

    now.t = 121_000; // rotated
    reply = session({ state: 'pairing', qr: PNG(2) });
    await store.getState().pollPairing('t1', 'a1');
    expect(view().qrChangedAt).toBe(121_000);

    now.t = 125_000;
    reply = session({ state: 'open', connected: true, linked: true, needsScan: false, phone: '15550001111' });
    await store.getState().pollPairing('t1', 'a1');
    expect(pairingPhase(view())).toBe('linked');
    expect(view().linkedAt).toBe(125_000);
    expect(view().qrChangedAt).toBeNull();
  });

  it('says expired when the QR disappears while a scan is still needed', () => {
    let v = applySession({ ...emptyPairing(), sawScanNeeded: true }, session({ qr: PNG(1) }), 1);
    v = applySession(v, session({ qr: null, needsScan: true, state: 'unlinked' }), 2);
    expect(pairingPhase(v)).toBe('expired');
  });

  it('decides from needsScan/qr, never from the state name', () => {
    // a state named "connected" that still needs a scan is a needs-scan
    expect(pairingPhase(applySession(emptyPairing(), session({ state: 'connected', needsScan: true }), 1))).toBe('needs-scan');
    // an unknown state with needsScan false and not connected: recovering on its own
    expect(pairingPhase(applySession(emptyPairing(), session({ state: 'weird-new-state', needsScan: false, linked: true }), 1))).toBe('recovering');
    // already linked when first seen: no celebration
    const v = applySession(emptyPairing(), session({ connected: true, linked: true, needsScan: false, phone: '1' }), 1);
    expect(pairingPhase(v)).toBe('linked');
    expect(v.linkedAt).toBeNull();
  });

  it('estimates the next rotation modulo the 20 s cycle', () => {
    const v = { ...emptyPairing(), qrChangedAt: 0 };
    expect(nextRotationMs(v, 0)).toBe(QR_ROTATION_MS);
    expect(nextRotationMs(v, 25_000)).toBe(15_000);
    expect(nextRotationMs(emptyPairing(), 5)).toBeNull();
  });

  it('keeps the error of a failed start and of a failed poll', async () => {
    const { store } = setup({
      'pairing.start': { ok: false, error: { kind: 'unauthorized', code: 'UNAUTHORIZED', message: 'bad key', status: 401 } },
      'pairing.session': { ok: false, error: { kind: 'network-error', code: 'HOST_UNREACHABLE', message: 'x' } },
    });
    expect(await store.getState().startPairing('t1', 'a1')).toMatchObject({ kind: 'unauthorized' });
    expect(store.getState().pairing['t1/a1']).toMatchObject({ starting: false, startedAt: null, error: { kind: 'unauthorized' } });
    await store.getState().pollPairing('t1', 'a1');
    expect(store.getState().pairing['t1/a1']?.error?.kind).toBe('network-error');
  });
});
