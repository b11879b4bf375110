import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LEGACY_HEADER, V1_HEADER, signDelivery, verifyDelivery } from '../../../../src-main/core/signature';

const secret = 'whsec_test_secret';
const body =
  '{"event":"message.received","from":"15550102000","message":{"id":"m1","type":"text","text":"hi","fromMe":false},"timestamp":"2026-11-22T06:00:00Z"}';
const now = 1_795_000_000;

describe('signing', () => {
  it('computes the legacy header as HMAC-SHA256 hex over the raw body', () => {
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(signDelivery(secret, body, now)[LEGACY_HEADER]).toBe(`sha256=${expected}`);
  });

  it('computes the v1 header over `<t>.<raw body>`', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signDelivery(secret, body, now)[V1_HEADER]).toBe(`t=${now},v1=${expected}`);
  });

  it('signs bytes and strings identically', () => {
    expect(signDelivery(secret, Buffer.from(body), now)).toEqual(signDelivery(secret, body, now));
  });
});

describe('the v1 header', () => {
  const good = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
  const other = createHmac('sha256', 'another secret').update(`${now}.${body}`).digest('hex');
  const verifyV1 = (value: string) =>
    verifyDelivery({ headers: { [V1_HEADER]: value }, rawBody: body, secrets: [secret], now });

  it('may carry several v1 entries, in any case, and keys it ignores', () => {
    const v = verifyV1(`t=${now},v1=${other},v0=zz,v1=${good.toUpperCase()}`);
    expect(v).toMatchObject({ ok: true, reason: 'verified', timestamp: now });
    expect(v.steps).toContain(`${V1_HEADER}: t=${now}, 2 v1 signature(s)`);
    // The same t twice (the header sent twice, joined with a comma) is one t.
    expect(verifyV1(`t=${now},v1=${other},t=${now},v1=${good}`)).toMatchObject({ ok: true, reason: 'verified' });
  });

  it.each(['t=1', 'v1=ab', 't=x,v1=ab', 't=1,v1=xyz', 'garbage', 't=1,t=2,v1=ab', '=1,v1=ab'])(
    'is malformed as %j',
    (v) => {
      expect(verifyV1(v)).toMatchObject({ ok: false, reason: 'malformed-header', scheme: 'v1' });
    },
  );

  it('is missing when empty', () => {
    expect(verifyV1('')).toMatchObject({ ok: false, reason: 'missing-signature', scheme: 'none' });
  });
});

describe('the legacy signature', () => {
  const legacy = signDelivery(secret, body, now)[LEGACY_HEADER]!;
  const verifyLegacy = (value: string) =>
    verifyDelivery({ headers: { [LEGACY_HEADER]: value }, rawBody: body, secrets: [secret], now });

  it('is compared by length first: shorter or longer never matches (and never throws)', () => {
    expect(verifyLegacy(legacy)).toMatchObject({ ok: true, reason: 'verified-legacy-only' });
    expect(verifyLegacy(legacy.slice(0, -1))).toMatchObject({ ok: false, reason: 'signature-mismatch' });
    expect(verifyLegacy(`${legacy}0`)).toMatchObject({ ok: false, reason: 'signature-mismatch' });
    const last = legacy.at(-1) === '0' ? '1' : '0';
    expect(verifyLegacy(`${legacy.slice(0, -1)}${last}`)).toMatchObject({ ok: false, reason: 'signature-mismatch' });
  });
});

describe('verifyDelivery', () => {
  const headers = signDelivery(secret, body, now);
  const verify = (
    h: Record<string, string | undefined>,
    b: string | Buffer = body,
    extra: Partial<Parameters<typeof verifyDelivery>[0]> = {},
  ) => verifyDelivery({ headers: h, rawBody: b, secrets: [secret], now, ...extra });

  it('verifies a fresh v1 delivery', () => {
    const v = verify(headers);
    expect(v).toMatchObject({ ok: true, reason: 'verified', scheme: 'v1', timestamp: now });
  });

  it('rejects a body changed by one byte', () => {
    const tampered = body.replace('"hi"', '"hj"');
    expect(verify(headers, tampered).reason).toBe('signature-mismatch');
  });

  it('rejects a re-serialised body (key order / whitespace)', () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(verify(headers, reserialised).reason).toBe('signature-mismatch');
  });

  it('rejects a timestamp 301 s old and accepts 300 s', () => {
    expect(verify(headers, body, { now: now + 301 }).reason).toBe('stale-timestamp');
    expect(verify(headers, body, { now: now + 300 }).ok).toBe(true);
  });

  it('rejects a timestamp too far in the future', () => {
    expect(verify(headers, body, { now: now - 301 }).reason).toBe('future-timestamp');
  });

  it('honours a configured tolerance', () => {
    expect(verify(headers, body, { now: now + 100, toleranceSec: 60 }).reason).toBe('stale-timestamp');
  });

  it('rejects a signature of another length', () => {
    const h = { [V1_HEADER]: `t=${now},v1=${'ab'.repeat(31)}` };
    const v = verify(h);
    expect(v.reason).toBe('signature-mismatch');
    expect(v.steps.join(' ')).toMatch(/length/);
  });

  it('accepts when any of several v1 entries matches (rotation)', () => {
    const good = headers[V1_HEADER]!.split('v1=')[1]!;
    const h = { [V1_HEADER]: `t=${now},v1=${'0'.repeat(64)},v1=${good}` };
    expect(verify(h).ok).toBe(true);
  });

  it('accepts a delivery signed with the previous secret', () => {
    const old = signDelivery('old-secret', body, now);
    expect(verifyDelivery({ headers: old, rawBody: body, secrets: [secret, 'old-secret'], now }).ok).toBe(true);
    expect(verifyDelivery({ headers: old, rawBody: body, secrets: [secret], now }).reason).toBe('signature-mismatch');
  });

  it('prefers v1: a bad v1 is not rescued by a good legacy header', () => {
    const h = { [LEGACY_HEADER]: headers[LEGACY_HEADER], [V1_HEADER]: `t=${now},v1=${'0'.repeat(64)}` };
    expect(verify(h).reason).toBe('signature-mismatch');
  });

  it('flags legacy-only deliveries as replayable', () => {
    const v = verify({ [LEGACY_HEADER]: headers[LEGACY_HEADER] });
    expect(v).toMatchObject({ ok: true, reason: 'verified-legacy-only', scheme: 'legacy' });
    expect(v.steps.join(' ')).toMatch(/replay/);
  });

  it('reads header names case-insensitively', () => {
    expect(verify({ 'X-Service-Signature-V1': headers[V1_HEADER] }).ok).toBe(true);
  });

  it.each([
    [{}, 'missing-signature'],
    [{ [V1_HEADER]: '' }, 'missing-signature'],
    [{ [V1_HEADER]: 'nonsense' }, 'malformed-header'],
    [{ [LEGACY_HEADER]: 'md5=abc' }, 'malformed-header'],
    [{ [LEGACY_HEADER]: 'sha256=' + '0'.repeat(64) }, 'signature-mismatch'],
  ] as const)('%j → %s', (h, reason) => {
    expect(verify(h as Record<string, string>).reason).toBe(reason);
  });

  it('reports no-secret when there is no secret', () => {
    expect(verifyDelivery({ headers, rawBody: body, secrets: [], now }).reason).toBe('no-secret');
  });
});
