// ≥ 30 delivery cases through the receiver, every verdict right: accepted ones stored with their
// verdict, refused ones kept as metadata only (the refused store) with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { legacySignature, v1Signature } from '../../../helpers/signatures';
import type { RefusedReason } from '../../../../src-main/core/tunnel';
import { FakeClock, rawRequest, tempDir } from './helpers';

const NOW_MS = 1_750_000_000_000;
const NOW = NOW_MS / 1000;
const SECRET = 'whsec_current_0123456789';
const OLD_SECRET = 'whsec_previous_abcdef';
const LIMIT = 4096;

let n = 0;
const event = (id?: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'message.received',
    from: '15550100002',
    message: { id: id ?? `wamid_case_${++n}`, type: 'text', text: 'hi', fromMe: false },
    timestamp: '2025-06-15T15:06:40.000Z',
    ...extra,
  });
const both = (body: string | Buffer, secret = SECRET, t = NOW) => ({
  'content-type': 'application/json',
  'x-service-signature': legacySignature(secret, body),
  'x-service-signature-v1': v1Signature(secret, body, t),
});
const hex = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');

interface Case {
  name: string;
  path?: string;
  method?: string;
  headers: Record<string, string>;
  body: string | Buffer;
  status: number;
  /** The verdict's reason (stored, or answered in the 401). */
  reason?: string;
  /** Refused: the refused store's reason (nothing is stored in the log). */
  refused?: RefusedReason;
  /** Accepted with a note on the body. */
  note?: 'not-json' | 'utf8-bom';
  /** Sent first, same path (for duplicates). */
  before?: { headers: Record<string, string>; body: string };
}

const cases: Case[] = (() => {
  const c: Case[] = [];
  const b1 = event();
  c.push({ name: 'valid v1 + legacy', headers: both(b1), body: b1, status: 200, reason: 'verified' });
  const b2 = event();
  c.push({
    name: 'valid v1 only',
    headers: { 'content-type': 'application/json', 'x-service-signature-v1': v1Signature(SECRET, b2, NOW) },
    body: b2,
    status: 200,
    reason: 'verified',
  });
  const b3 = event();
  c.push({
    name: 'legacy only',
    headers: { 'x-service-signature': legacySignature(SECRET, b3) },
    body: b3,
    status: 401,
    reason: 'legacy-only',
    refused: 'legacy-only',
  });
  const b4 = event();
  c.push({
    name: 'tampered byte',
    headers: both(b4),
    body: b4.replace('"hi"', '"hI"'),
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b5obj = {
    message: { id: `wamid_case_${++n}`, type: 'text', text: 'hi', fromMe: false },
    event: 'message.received',
    from: '15550100002',
  };
  const b5 = JSON.stringify(b5obj);
  const b5r = JSON.stringify({ event: b5obj.event, from: b5obj.from, message: b5obj.message });
  c.push({
    name: 'reordered JSON keys',
    headers: both(b5),
    body: b5r,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b6 = event();
  c.push({
    name: 'whitespace added (re-serialised)',
    headers: both(b6),
    body: JSON.stringify(JSON.parse(b6), null, 2),
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b7 = event();
  c.push({
    name: 'stale timestamp (301 s)',
    headers: both(b7, SECRET, NOW - 301),
    body: b7,
    status: 401,
    reason: 'stale-timestamp',
    refused: 'stale-timestamp',
  });
  const b8 = event();
  c.push({
    name: 'future timestamp (301 s)',
    headers: both(b8, SECRET, NOW + 301),
    body: b8,
    status: 401,
    reason: 'future-timestamp',
    refused: 'future-timestamp',
  });
  const b9 = event();
  c.push({
    name: 'timestamp exactly 300 s old',
    headers: both(b9, SECRET, NOW - 300),
    body: b9,
    status: 200,
    reason: 'verified',
  });
  const b10 = event();
  c.push({
    name: 'two v1 entries, one valid',
    headers: {
      'x-service-signature-v1': `t=${NOW},v1=${hex('nope', `${NOW}.${b10}`)},v1=${hex(SECRET, `${NOW}.${b10}`)}`,
    },
    body: b10,
    status: 200,
    reason: 'verified',
  });
  const b11 = event();
  c.push({
    name: 'two v1 entries, none valid',
    headers: { 'x-service-signature-v1': `t=${NOW},v1=${hex('x', `${NOW}.${b11}`)},v1=${hex('y', `${NOW}.${b11}`)}` },
    body: b11,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b12 = event();
  c.push({
    name: 'v1 signature of another length',
    headers: { 'x-service-signature-v1': `t=${NOW},v1=${hex(SECRET, `${NOW}.${b12}`).slice(0, 40)}` },
    body: b12,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b13 = event();
  c.push({
    name: 'legacy signature of another length',
    headers: { 'x-service-signature': `${legacySignature(SECRET, b13)}00` },
    body: b13,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b14 = event();
  c.push({
    name: 'empty v1 header, no legacy',
    headers: { 'x-service-signature-v1': '' },
    body: b14,
    status: 401,
    reason: 'missing-signature',
    refused: 'missing-signature',
  });
  const b15 = event();
  c.push({
    name: 'no signature headers',
    headers: { 'content-type': 'application/json' },
    body: b15,
    status: 401,
    reason: 'missing-signature',
    refused: 'missing-signature',
  });
  const b16 = event();
  c.push({
    name: 'garbled v1 header',
    headers: { 'x-service-signature-v1': 'garbage' },
    body: b16,
    status: 401,
    reason: 'malformed-header',
    refused: 'malformed-header',
  });
  const b17 = event();
  c.push({
    name: 'v1 with non-hex signature',
    headers: { 'x-service-signature-v1': `t=${NOW},v1=zzzz` },
    body: b17,
    status: 401,
    reason: 'malformed-header',
    refused: 'malformed-header',
  });
  const b18 = event();
  c.push({
    name: 'v1 without t',
    headers: { 'x-service-signature-v1': `v1=${hex(SECRET, b18)}` },
    body: b18,
    status: 401,
    reason: 'malformed-header',
    refused: 'malformed-header',
  });
  const b19 = event();
  c.push({
    name: 'v1 with two different t',
    headers: { 'x-service-signature-v1': `t=${NOW},t=${NOW + 1},v1=${hex(SECRET, `${NOW}.${b19}`)}` },
    body: b19,
    status: 401,
    reason: 'malformed-header',
    refused: 'malformed-header',
  });
  const b19b = event();
  const v1Once = `t=${NOW},v1=${hex(SECRET, `${NOW}.${b19b}`)}`;
  c.push({
    name: 'the same v1 header twice (joined by a proxy)',
    headers: { 'x-service-signature-v1': `${v1Once}, ${v1Once}` },
    body: b19b,
    status: 200,
    reason: 'verified',
  });
  const b20 = event();
  c.push({
    name: 'garbled legacy only',
    headers: { 'x-service-signature': `md5=${hex(SECRET, b20)}` },
    body: b20,
    status: 401,
    reason: 'malformed-header',
    refused: 'malformed-header',
  });
  const b21 = event();
  c.push({
    name: 'wrong secret',
    headers: both(b21, 'whsec_someone_else'),
    body: b21,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b22 = event();
  c.push({
    name: 'previous secret (rotation)',
    headers: both(b22, OLD_SECRET),
    body: b22,
    status: 200,
    reason: 'verified',
  });
  c.push({
    name: 'oversize body (content-length)',
    headers: { 'content-type': 'application/json' },
    body: Buffer.alloc(LIMIT + 1, 0x61),
    status: 413,
    refused: 'too-large',
  });
  const b24 = 'this is not json';
  c.push({
    name: 'non-JSON body, valid signature: accepted with a note',
    headers: both(b24),
    body: b24,
    status: 200,
    reason: 'verified',
    note: 'not-json',
  });
  c.push({
    name: 'empty body, valid signature: accepted with a note',
    headers: both(''),
    body: '',
    status: 200,
    reason: 'verified',
    note: 'not-json',
  });
  const b24b = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(event())]);
  c.push({
    name: 'UTF-8 BOM before JSON, valid signature: accepted with a note',
    headers: both(b24b),
    body: b24b,
    status: 200,
    reason: 'verified',
    note: 'utf8-bom',
  });
  const dupId = 'wamid_dup_1';
  const b26a = event(dupId);
  const b26b = event(dupId, { retry: true });
  c.push({
    name: 'duplicate message id',
    before: { headers: both(b26a), body: b26a },
    headers: both(b26b, SECRET, NOW + 2),
    body: b26b,
    status: 200,
    reason: 'duplicate',
  });
  const b27 = event();
  c.push({
    name: 'no secret configured',
    path: '/hooks/agent-nosecret',
    headers: both(b27),
    body: b27,
    status: 401,
    reason: 'no-secret',
    refused: 'no-secret',
  });
  const b28 = event();
  const h28 = both(b28);
  c.push({
    name: 'case-variant header names',
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Signature': h28['x-service-signature'],
      'X-SERVICE-SIGNATURE-V1': h28['x-service-signature-v1'],
    },
    body: b28,
    status: 200,
    reason: 'verified',
  });
  c.push({ name: 'GET → 405', method: 'GET', headers: {}, body: '', status: 405, refused: 'bad-request' });
  c.push({ name: 'PUT → 405', method: 'PUT', headers: both(b1), body: b1, status: 405, refused: 'bad-request' });
  c.push({
    name: 'unknown path → 404, kept as not a hook',
    path: '/nothing',
    headers: both(b1),
    body: b1,
    status: 404,
    refused: 'not-a-hook',
  });
  c.push({
    name: 'bad agent id → 404, kept as not a hook',
    path: '/hooks/..%2Fetc',
    headers: both(b1),
    body: b1,
    status: 404,
    refused: 'not-a-hook',
  });
  const b33 = event();
  c.push({
    name: '/hooks goes to the default agent',
    path: '/hooks',
    headers: both(b33),
    body: b33,
    status: 200,
    reason: 'verified',
  });
  const b34 = event();
  c.push({
    name: 'valid v1, wrong legacy (v1 decides)',
    headers: { ...both(b34), 'x-service-signature': legacySignature('wrong', b34) },
    body: b34,
    status: 200,
    reason: 'verified',
  });
  const b35 = event();
  c.push({
    name: 'wrong v1, valid legacy (v1 decides)',
    headers: { ...both(b35), 'x-service-signature-v1': v1Signature('wrong', b35, NOW) },
    body: b35,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b36 = event();
  c.push({
    name: 'legacy upper-case hex',
    headers: { 'x-service-signature': `sha256=${hex(SECRET, b36).toUpperCase()}` },
    body: b36,
    status: 401,
    reason: 'legacy-only',
    refused: 'legacy-only',
  });
  const b37 = event();
  c.push({
    name: 'v1 with an unknown extra key',
    headers: { 'x-service-signature-v1': `t=${NOW},v0=abc,v1=${hex(SECRET, `${NOW}.${b37}`)}` },
    body: b37,
    status: 200,
    reason: 'verified',
  });
  const b38 = event(undefined, { note: 'émoji 🎉 ünïcode' });
  c.push({ name: 'utf-8 body, exact bytes', headers: both(b38), body: b38, status: 200, reason: 'verified' });
  const b39 = event();
  c.push({
    name: 'signature over the body without the t prefix',
    headers: { 'x-service-signature-v1': `t=${NOW},v1=${hex(SECRET, b39)}` },
    body: b39,
    status: 401,
    reason: 'signature-mismatch',
    refused: 'signature-mismatch',
  });
  const b40 = event();
  c.push({
    name: 'no content-type, valid signature',
    headers: { 'x-service-signature-v1': v1Signature(SECRET, b40, NOW) },
    body: b40,
    status: 200,
    reason: 'verified',
  });
  const same = 'wamid_same_other_agent';
  const b41 = event(same);
  c.push({
    name: 'same message id, another agent',
    path: '/hooks/agent-two',
    before: { headers: both(b41), body: b41 },
    headers: both(b41),
    body: b41,
    status: 200,
    reason: 'verified',
  });
  return c;
})();

describe('receiver: delivery cases', () => {
  let tunnel: Tunnel;
  let base: string;
  let cleanup: () => Promise<void>;
  const secrets: Record<string, string[]> = {
    'agent-one': [SECRET, OLD_SECRET],
    'agent-two': [SECRET],
    'agent-nosecret': [],
  };

  beforeAll(async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    tunnel = new Tunnel({
      dataDir: t.dir,
      clock: new FakeClock(NOW_MS),
      getSecrets: async (a) => secrets[a] ?? [],
      bodyLimitBytes: LIMIT,
      defaultAgentId: 'agent-one',
      // Every case comes from 127.0.0.1: a budget that does not run out here (rate limits: their own test).
      refusalRate: { burst: 1e6, perSec: 1 },
    });
    base = (await tunnel.start()).url;
  });
  afterAll(async () => {
    await tunnel.stop();
    await cleanup();
  });

  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    // The agent-two case sends its first copy to agent-one.
    const path = c.path ?? '/hooks/agent-one';
    if (c.before) {
      const first = await rawRequest(`${base}${c.path === '/hooks/agent-two' ? '/hooks/agent-one' : path}`, {
        headers: c.before.headers,
        body: c.before.body,
      });
      expect(first.status).toBe(200);
      expect(first.json?.ok).toBe(true);
    }
    const sizeBefore = tunnel.log.size;
    const refusedBefore = tunnel.refused({ limit: 1 })[0]?.id;
    const res = await rawRequest(`${base}${path}`, {
      method: c.method,
      headers: c.headers,
      body: c.method === 'GET' ? undefined : c.body,
    });
    expect(res.status).toBe(c.status);
    const sent = typeof c.body === 'string' ? Buffer.from(c.body, 'utf8') : c.body;
    if (c.refused !== undefined) {
      expect(tunnel.log.size).toBe(sizeBefore); // nothing stored
      expect(res.json?.deliveryId).toBeUndefined();
      if (c.reason !== undefined) expect(res.json?.reason).toBe(c.reason);
      const r = tunnel.refused({ limit: 1 })[0]!;
      expect(r.id).not.toBe(refusedBefore);
      expect(r).toMatchObject({
        reason: c.refused,
        status: c.status,
        path,
        method: c.method ?? 'POST',
        from: '127.0.0.1',
      });
      expect(r.detail.length).toBeGreaterThan(0);
      if (c.status === 401) {
        // Metadata only: size, hash and the first bytes of the body; never the body itself.
        expect(r.size).toBe(sent.length);
        expect(r.sha256).toBe(createHash('sha256').update(sent).digest('hex'));
        expect(r.prefix).toBe(sent.subarray(0, 256).toString('utf8'));
        expect(r.headers['x-service-signature-v1'] ?? r.headers['x-service-signature'] ?? '').toBe(
          c.headers['x-service-signature-v1'] ?? c.headers['x-service-signature'] ?? '',
        );
      }
      return;
    }
    const id = res.json?.deliveryId as string;
    expect(typeof id).toBe('string');
    const stored = tunnel.get(id)!;
    expect(stored.verdict.reason).toBe(c.reason);
    expect(stored.verdict.ok).toBe(c.reason === 'verified');
    expect(stored.verdict.note).toBe(c.note);
    expect(stored.verdict.steps.length).toBeGreaterThan(0);
    expect(Buffer.from(stored.bodyBase64, 'base64').equals(sent)).toBe(true);
  });

  it('cuts off a chunked body over the limit without storing it', async () => {
    const before = tunnel.log.size;
    const res = await rawRequest(`${base}/hooks/agent-one`, {
      body: Buffer.alloc(LIMIT * 4, 0x62),
      chunked: true,
      headers: { 'transfer-encoding': 'chunked' },
    }).catch((e: Error) => e);
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect(tunnel.log.size).toBe(before);
  });

  it('accept-all answers 200 for an invalid delivery but keeps its verdict', async () => {
    const t = await tempDir();
    const tn = new Tunnel({
      dataDir: t.dir,
      clock: new FakeClock(NOW_MS),
      getSecrets: async () => [SECRET],
      invalidResponse: 'accept-all',
    });
    const { url } = await tn.start();
    try {
      const b = event();
      const res = await rawRequest(`${url}/hooks/x`, { headers: both(b, 'wrong'), body: b });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ ok: false, reason: 'signature-mismatch' });
    } finally {
      await tn.stop();
      await t.cleanup();
    }
  });

  it('cuts off a client that sends its body too slowly', async () => {
    const t = await tempDir();
    const tn = new Tunnel({
      dataDir: t.dir,
      getSecrets: async () => [SECRET],
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
    });
    const { port } = await tn.start();
    try {
      const { connect } = await import('node:net');
      const started = Date.now();
      const closed = await new Promise<string>((resolve) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write('POST /hooks/x HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{');
        });
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => resolve(got));
        s.on('error', () => undefined);
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      if (closed !== '') expect(closed).toMatch(/^HTTP\/1\.1 408/);
      expect(tn.log.size).toBe(0);
      // Kept among the refusals with the hook it was for and what of its body had come (not a delivery).
      const [cut] = tn.refused();
      expect(cut).toMatchObject({ reason: 'bad-request', status: 408, method: 'POST', path: '/hooks/x', agentId: 'x' });
      expect(cut).toMatchObject({ size: 1, prefix: '{' });
      expect(cut!.detail).toMatch(/did not arrive in time: 1 of 100 bytes/);
    } finally {
      await tn.stop();
      await t.cleanup();
    }
  });

  it('refuses a non-loopback host unless allowed', async () => {
    const t = await tempDir();
    const tn = new Tunnel({ dataDir: t.dir, getSecrets: async () => [] });
    await expect(tn.start({ host: '0.0.0.0' })).rejects.toThrow(/allowNonLoopback/);
    await tn.stop();
    await t.cleanup();
  });
});
