// Acceptance B: 10,000 random header/body combinations (8,000 to the verifier, 2,000 through the
// receiver over loopback HTTP): nothing throws, and no unsigned or wrongly signed body is accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Agent, request } from 'node:http';
import { legacySignature, v1Signature } from '../../../helpers/signatures';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { verifyTunnelDelivery } from '../../../../src-main/core/tunnel/verify';
import { FakeClock, tempDir } from './helpers';

const SECRET = 'whsec_property_secret_value';
const NOW = 1_750_000_000;

// Header values an HTTP client can send (printable ASCII), and anything for the pure verifier.
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 120,
});
const hexStr = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 80 });
const tValue = fc.oneof(
  fc.integer({ min: -5, max: 3_000_000_000 }),
  fc.constant(NOW),
  fc.integer({ min: NOW - 400, max: NOW + 400 }),
);
const otherSecret = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s !== SECRET);

interface Attempt {
  signedBody: Uint8Array;
  sentBody: Uint8Array;
  headers: Record<string, string>;
}

const bodyArb = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.json().map((j) => new TextEncoder().encode(j)),
  fc
    .record({ id: fc.string({ maxLength: 12 }) })
    .map((r) =>
      new TextEncoder().encode(JSON.stringify({ event: 'message.received', message: { id: r.id, type: 'text' } })),
    ),
);

/** A body that differs from the given one by at least one byte. */
const tampered = (b: Uint8Array) =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, b.length - 1) }).chain((i) =>
      fc.integer({ min: 1, max: 255 }).map((x) => {
        if (b.length === 0) return Uint8Array.of(x);
        const c = Uint8Array.from(b);
        c[i] = c[i]! ^ x;
        return c;
      }),
    ),
    fc.uint8Array({ minLength: 1, maxLength: 4 }).map((extra) => Uint8Array.from([...b, ...extra])),
  );

const casing = (name: string) =>
  fc.constantFrom(
    name,
    name.toUpperCase(),
    name.replace(/(^|-)([a-z])/g, (_m, a: string, c: string) => a + c.toUpperCase()),
  );

/** Headers that are garbage, unsigned, signed with another secret, or a correct signature over another body. */
const attemptArb: fc.Arbitrary<Attempt> = bodyArb.chain((body) =>
  fc.oneof(
    // wrong secret, otherwise well formed
    fc
      .tuple(
        otherSecret,
        tValue,
        fc.boolean(),
        fc.boolean(),
        casing('x-service-signature-v1'),
        casing('x-service-signature'),
      )
      .map(([s, t, v1, legacy, n1, n2]) => {
        const headers: Record<string, string> = {};
        if (v1) headers[n1] = v1Signature(s, body, t);
        if (legacy) headers[n2] = legacySignature(s, body);
        return { signedBody: body, sentBody: body, headers };
      }),
    // the right secret over a different body (tampering)
    tampered(body).chain((sent) =>
      fc
        .tuple(fc.integer({ min: NOW - 200, max: NOW + 200 }), fc.constantFrom('v1', 'legacy', 'both'))
        .map(([t, which]) => {
          const headers: Record<string, string> = {};
          if (which !== 'legacy') headers['x-service-signature-v1'] = v1Signature(SECRET, body, t);
          if (which !== 'v1') headers['x-service-signature'] = legacySignature(SECRET, body);
          return { signedBody: body, sentBody: sent, headers };
        }),
    ),
    // random / garbled header text
    fc
      .record(
        {
          v1: fc.oneof(
            printable,
            fc
              .tuple(tValue, fc.array(hexStr, { maxLength: 4 }))
              .map(([t, sigs]) => [`t=${t}`, ...sigs.map((h) => `v1=${h}`)].join(',')),
          ),
          legacy: fc.oneof(
            printable,
            hexStr.map((h) => `sha256=${h}`),
          ),
          other: printable,
        },
        { requiredKeys: [] },
      )
      .map((r) => {
        const headers: Record<string, string> = {};
        if (r.v1 !== undefined) headers['x-service-signature-v1'] = r.v1;
        if (r.legacy !== undefined) headers['x-service-signature'] = r.legacy;
        if (r.other !== undefined) headers['x-other'] = r.other;
        return { signedBody: body, sentBody: body, headers };
      }),
  ),
);

describe('property: nothing unsigned or wrongly signed is accepted', () => {
  it('verifier: 8,000 random combinations', () => {
    fc.assert(
      fc.property(attemptArb, fc.integer({ min: NOW - 1000, max: NOW + 1000 }), (a, now) => {
        const r = verifyTunnelDelivery({
          headers: a.headers,
          rawBody: a.sentBody,
          secrets: [SECRET],
          now,
          claim: () => true,
        });
        expect(r.verdict.ok).toBe(false);
        expect(r.verdict.steps.length).toBeGreaterThan(0);
      }),
      { numRuns: 7_500 },
    );
    // Also with arbitrary (non-HTTP-safe) header values and array values.
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 30 }), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
        fc.uint8Array({ maxLength: 200 }),
        (headers, body) => {
          const r = verifyTunnelDelivery({ headers, rawBody: body, secrets: [SECRET], now: NOW });
          expect(r.verdict.ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('verifier: the same generator, correctly signed, is accepted (the property is not vacuous)', () => {
    fc.assert(
      fc.property(bodyArb, fc.integer({ min: NOW - 299, max: NOW + 299 }), (body, t) => {
        const r = verifyTunnelDelivery({
          headers: { 'x-service-signature-v1': v1Signature(SECRET, body, t) },
          rawBody: body,
          secrets: [SECRET],
          now: NOW,
        });
        // Authentic: accepted, a body that is not JSON only gets a note.
        expect(r.verdict).toMatchObject({ ok: true, reason: 'verified' });
      }),
      { numRuns: 300 },
    );
  });

  describe('receiver: 2,000 random combinations over loopback HTTP', () => {
    let tunnel: Tunnel;
    let port = 0;
    let cleanup: () => Promise<void>;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    beforeAll(async () => {
      const t = await tempDir();
      cleanup = t.cleanup;
      // A budget that never runs out here: every refusal is answered 401 and kept.
      tunnel = new Tunnel({
        dataDir: t.dir,
        clock: new FakeClock(NOW * 1000),
        getSecrets: async () => [SECRET],
        refusalRate: { burst: 1e6, perSec: 1 },
        maxRefused: 5_000,
      });
      port = (await tunnel.start()).port;
    });
    afterAll(async () => {
      agent.destroy();
      await tunnel.stop();
      await cleanup();
    });

    const post = (headers: Record<string, string>, body: Uint8Array) =>
      new Promise<{ status: number; json: { ok?: boolean; deliveryId?: string } }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/hooks/prop-agent',
            method: 'POST',
            agent,
            headers: { ...headers, 'content-length': String(body.length) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
            );
          },
        );
        req.on('error', reject);
        req.end(Buffer.from(body));
      });

    it('never answers 2xx, never stores a delivery, keeps every refusal as metadata, never fails', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(attemptArb, async (a) => {
          const res = await post(a.headers, a.sentBody);
          n++;
          expect(res.status).toBe(401);
          expect(res.json.ok).toBe(false);
          expect(res.json.deliveryId).toBeUndefined();
        }),
        { numRuns: 2_000 },
      );
      expect(tunnel.log.size).toBe(0);
      expect(tunnel.refused({ limit: 1000 })).toHaveLength(Math.min(n, 1000));
      expect(tunnel.refused({ limit: 1 })[0]).toMatchObject({
        agentId: 'prop-agent',
        path: '/hooks/prop-agent',
        status: 401,
        from: '127.0.0.1',
      });
    }, 30_000);
  });
});
