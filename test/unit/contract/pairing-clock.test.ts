// The pairing's clock on the main side: started here (exact) or first seen (an estimate), QR changes,
// the end of a pairing, and a new pairing after the counted expiry.
import { describe, expect, it } from 'vitest';
import { PairingClock } from '../../../src-main/app/contract/pairing';

const QR = (n: number) => ({ qr: `data:image/png;base64,QR${n}` });
const NONE = { qr: null };

describe('PairingClock', () => {
  it('a pairing started here is timed from the request: expiry and QR changes counted from it', () => {
    const c = new PairingClock();
    c.begin('t1', 'a1', 10_000);
    expect(c.observe('t1', 'a1', QR(1), 10_050)).toEqual({
      startedAt: 10_000,
      startedHere: true,
      qrAnchorAt: 10_000,
      qrEveryMs: 20_000,
      expiresAt: 130_000,
    });
    // a later read, after a rotation, keeps the same clock
    expect(c.observe('t1', 'a1', QR(2), 31_000)).toMatchObject({
      startedAt: 10_000,
      qrAnchorAt: 10_000,
      expiresAt: 130_000,
    });
  });

  it('asking again while the pairing runs keeps its clock (the service changes nothing)', () => {
    const c = new PairingClock();
    c.begin('t1', 'a1', 10_000);
    c.observe('t1', 'a1', QR(1), 10_050);
    c.begin('t1', 'a1', 70_000);
    expect(c.observe('t1', 'a1', QR(3), 70_040)).toMatchObject({ startedAt: 10_000, expiresAt: 130_000 });
  });

  it('a pairing started elsewhere is timed from when it was first seen, its QR from when the QR was first read', () => {
    const c = new PairingClock();
    expect(c.observe('t1', 'a1', QR(1), 50_000)).toEqual({
      startedAt: 50_000,
      startedHere: false,
      qrAnchorAt: 50_000,
      qrEveryMs: 20_000,
      expiresAt: 170_000,
    });
    expect(c.observe('t1', 'a1', QR(1), 52_000)?.qrAnchorAt).toBe(50_000);
    expect(c.observe('t1', 'a1', QR(2), 61_500)).toMatchObject({ startedAt: 50_000, qrAnchorAt: 61_500 });
  });

  it('forgets the pairing when no QR is on offer (linked, expired), and starts over for the next one', () => {
    const c = new PairingClock();
    c.begin('t1', 'a1', 0);
    c.observe('t1', 'a1', QR(1), 10);
    expect(c.observe('t1', 'a1', NONE, 5_000)).toBeUndefined();
    c.begin('t1', 'a1', 9_000);
    expect(c.observe('t1', 'a1', QR(2), 9_020)).toMatchObject({ startedAt: 9_000, startedHere: true });
  });

  it('a QR still read after the counted expiry belongs to a new pairing', () => {
    const c = new PairingClock();
    c.begin('t1', 'a1', 0);
    c.observe('t1', 'a1', QR(1), 10);
    expect(c.observe('t1', 'a1', QR(9), 121_000)).toMatchObject({ startedAt: 121_000, startedHere: false });
  });

  it('keeps agents apart, and forgets a start that never showed a QR', () => {
    const c = new PairingClock();
    c.begin('t1', 'a1', 0);
    c.begin('t2', 'a1', 0);
    expect(c.observe('t2', 'a1', QR(1), 100)?.startedHere).toBe(true);
    expect(c.observe('t1', 'a1', NONE, 1_000)).toBeUndefined();
    expect(c.observe('t1', 'a1', QR(1), 90_000)).toMatchObject({ startedAt: 90_000, startedHere: false });
  });
});
