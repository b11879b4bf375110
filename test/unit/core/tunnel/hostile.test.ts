// A public URL is hostile ground: legacy-only deliveries refused unless allowed, duplicates caught
// across log rotation and restarts (with and without message.id), replay floods acknowledged without
// being kept, refused requests rate-limited per source (429 + Retry-After), the refused store
// bounded on disk and in memory.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../../src-main/core/signature';
import { legacySignature } from '../../../helpers/signatures';
import { Tunnel } from '../../../../src-main/core/tunnel';
import { RefusedStore } from '../../../../src-main/core/tunnel/refused';
import { SeenFile } from '../../../../src-main/core/tunnel/seen';
import { FakeClock, rawRequest, tempDir } from './helpers';

const NOW = 1_750_000_000_000;
const SECRET = 'whsec_hostile_0123456789';
const open: Tunnel[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.stop();
  while (cleanups.length) await cleanups.pop()!();
});

async function dir(): Promise<string> {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

async function tunnel(
  dataDir: string,
  clock: FakeClock,
  extra: Partial<ConstructorParameters<typeof Tunnel>[0]> = {},
): Promise<{ t: Tunnel; url: string }> {
  const t = new Tunnel({ dataDir, clock, getSecrets: async () => [SECRET], ...extra });
  open.push(t);
  const { url } = await t.start();
  return { t, url };
}

async function stop(t: Tunnel): Promise<void> {
  open.splice(open.indexOf(t), 1);
  await t.stop();
}

const event = (id: string | null, text = 'hi') =>
  JSON.stringify({
    event: 'message.received',
    from: '1555',
    message: { ...(id !== null ? { id } : {}), type: 'text', text },
  });

function signed(body: string, clock: FakeClock): Record<string, string> {
  return { 'content-type': 'application/json', ...signDelivery(SECRET, body, Math.floor(clock.now() / 1000)) };
}

describe('legacy-only deliveries', () => {
  it('are refused by default, accepted with allowLegacySignature, and the setting applies from the next delivery', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock);
    const body = event('legacy-1');
    const legacyOnly = { 'x-service-signature': legacySignature(SECRET, body) };
    const refused = await rawRequest(`${url}/hooks/a1`, { headers: legacyOnly, body });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ ok: false, reason: 'legacy-only' });
    expect(t.refused({ limit: 1 })[0]).toMatchObject({ reason: 'legacy-only', status: 401 });
    expect(t.refused({ limit: 1 })[0]!.detail).toMatch(/legacy/);
    t.setAllowLegacySignature(true);
    const accepted = await rawRequest(`${url}/hooks/a1`, { headers: legacyOnly, body });
    expect(accepted.status).toBe(200);
    expect(t.get(accepted.json!.deliveryId as string)!.verdict).toMatchObject({
      ok: true,
      reason: 'verified-legacy-only',
      scheme: 'legacy',
    });
  });
});

describe('duplicates', () => {
  it('a retry (same message.id, fresh signature) is acknowledged as duplicate; past MAX_KEPT_REPEATS it is acknowledged without being kept', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      await clock.advance(NOW + i * 1000 - clock.now());
      const body = event('dup-1', `try ${i}`);
      const r = await rawRequest(`${url}/hooks/a1`, { headers: signed(body, clock), body });
      statuses.push(r.status);
      expect(r.json?.ok).toBe(true);
      if (i > 0) expect(r.json?.duplicate).toBe(true);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    const kept = t.list({ limit: 100 });
    expect(kept.filter((d) => d.verdict.reason === 'verified')).toHaveLength(1);
    expect(kept.filter((d) => d.verdict.reason === 'duplicate')).toHaveLength(4);
  });

  it('without message.id: an exact replay (same signature and body) is a duplicate; the same body signed afresh is not', async () => {
    const clock = new FakeClock(NOW);
    const { url } = await tunnel(await dir(), clock);
    const body = event(null);
    const headers = signed(body, clock);
    expect((await rawRequest(`${url}/hooks/a1`, { headers, body })).json).toMatchObject({ ok: true });
    expect((await rawRequest(`${url}/hooks/a1`, { headers, body })).json).toMatchObject({ ok: true, duplicate: true });
    await clock.advance(NOW + 2000 - clock.now());
    expect(
      (await rawRequest(`${url}/hooks/a1`, { headers: signed(body, clock), body })).json?.duplicate,
    ).toBeUndefined();
  });

  it('without message.id: the same signature written another way (hex case, spaces, extra or repeated entries) is still a duplicate', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock);
    const body = event(null);
    const headers = signed(body, clock);
    const v1 = headers['x-service-signature-v1']!;
    const [ts, sig] = v1.split(',');
    expect((await rawRequest(`${url}/hooks/a1`, { headers, body })).json).toMatchObject({ ok: true });
    const variants = [
      `${ts},v1=${sig!.slice(3).toUpperCase()}`,
      `${ts}, ${sig}`,
      `${v1},x=1`,
      `${v1},${sig}`,
      `${sig},${ts}`,
    ];
    for (const variant of variants) {
      const r = await rawRequest(`${url}/hooks/a1`, {
        headers: { ...headers, 'x-service-signature-v1': variant },
        body,
      });
      expect({ variant, status: r.status, json: r.json }).toMatchObject({
        variant,
        status: 200,
        json: { ok: true, duplicate: true },
      });
    }
    expect(t.list({ limit: 100 }).filter((d) => d.verdict.reason === 'verified')).toHaveLength(1);
  });

  it('two authentic bodies that are not valid UTF-8 are told apart by their bytes, not by an id read with replacement characters', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock);
    const raw = (b: number) =>
      Buffer.concat([
        Buffer.from('{"event":"message.received","message":{"id":"coll'),
        Buffer.from([b]),
        Buffer.from('","type":"text"}}'),
      ]);
    const first = raw(0xff);
    const second = raw(0xfe);
    const sign = (b: Buffer) => ({
      'content-type': 'application/json',
      ...signDelivery(SECRET, b, Math.floor(clock.now() / 1000)),
    });
    const a = await rawRequest(`${url}/hooks/a1`, { headers: sign(first), body: first });
    const b = await rawRequest(`${url}/hooks/a1`, { headers: sign(second), body: second });
    expect(a.json).toMatchObject({ ok: true });
    expect(b.json).toMatchObject({ ok: true });
    expect(b.json?.duplicate).toBeUndefined();
    expect(t.get(b.json!.deliveryId as string)!.verdict.steps.join('\n')).toMatch(/not valid UTF-8/);
    // An exact replay of either is still a duplicate.
    expect((await rawRequest(`${url}/hooks/a1`, { headers: sign(second), body: second })).json).toMatchObject({
      duplicate: true,
    });
  });

  it('survive log rotation and a restart (the keys of a dropped segment go to the seen file first), within the window', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    const bounds = { segmentDeliveries: 2, maxDeliveries: 3 };
    const first = await tunnel(d, clock, { logBounds: bounds });
    const noId = event(null, 'no id');
    const noIdHeaders = signed(noId, clock);
    expect(
      (await rawRequest(`${first.url}/hooks/a1`, { headers: signed(event('keep-me'), clock), body: event('keep-me') }))
        .status,
    ).toBe(200);
    expect((await rawRequest(`${first.url}/hooks/a1`, { headers: noIdHeaders, body: noId })).status).toBe(200);
    for (let i = 0; i < 12; i++) {
      await clock.advance(NOW + 1000 + i - clock.now());
      const b = event(`filler-${i}`);
      expect((await rawRequest(`${first.url}/hooks/a1`, { headers: signed(b, clock), body: b })).status).toBe(200);
    }
    // The first deliveries left the log with their segment.
    expect(first.t.list({ limit: 100 }).map((x) => x.summary.messageId)).not.toContain('keep-me');
    await stop(first.t);

    await clock.advance(NOW + 200_000 - clock.now());
    const second = await tunnel(d, clock, { logBounds: bounds });
    const retry = event('keep-me', 'retried');
    expect(
      (await rawRequest(`${second.url}/hooks/a1`, { headers: signed(retry, clock), body: retry })).json,
    ).toMatchObject({ ok: true, duplicate: true });
    // An exact replay of the delivery without an id, still inside the signature's tolerance.
    await clock.advance(NOW + 290_000 - clock.now());
    expect((await rawRequest(`${second.url}/hooks/a1`, { headers: noIdHeaders, body: noId })).json).toMatchObject({
      ok: true,
      duplicate: true,
    });
    // The keys of the dropped deliveries were kept in the seen file before their segment went.
    const seen = (await readFile(join(d, 'seen.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(seen.some((l) => l.includes('"key":"keep-me"'))).toBe(true);
    expect((await stat(join(d, 'seen.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('survive a rotation that happens at start-up: the keys of a segment dropped while the log opens are still duplicates', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    // Two deliveries a segment, three kept: the fourth delivery goes over the bound inside the
    // newest segment, so nothing is dropped before the restart, and the restart drops the oldest.
    const bounds = { segmentDeliveries: 2, maxDeliveries: 3 };
    const first = await tunnel(d, clock, { logBounds: bounds });
    for (const id of ['early-1', 'early-2', 'late-1', 'late-2']) {
      const b = event(id);
      expect((await rawRequest(`${first.url}/hooks/a1`, { headers: signed(b, clock), body: b })).status).toBe(200);
    }
    expect(first.t.list({ limit: 100 })).toHaveLength(4);
    await stop(first.t);

    await clock.advance(60_000);
    const second = await tunnel(d, clock, { logBounds: bounds });
    // The restart dropped the oldest segment with the first two deliveries.
    expect(second.t.list({ limit: 100 }).map((x) => x.summary.messageId)).toEqual(['late-2', 'late-1']);
    for (const id of ['early-1', 'early-2', 'late-1']) {
      const retry = event(id, 'retried');
      expect({
        id,
        answer: (await rawRequest(`${second.url}/hooks/a1`, { headers: signed(retry, clock), body: retry })).json,
      }).toMatchObject({ id, answer: { ok: true, duplicate: true } });
    }
    expect(
      second.t
        .list({ limit: 100 })
        .filter((x) => x.verdict.reason === 'verified')
        .map((x) => x.summary.messageId),
    ).toEqual(['late-2', 'late-1']);
  });

  it('forget keys once they are older than the window', async () => {
    const clock = new FakeClock(NOW);
    const { url } = await tunnel(await dir(), clock, { duplicateWindowMs: 3600_000 });
    const b = event('old-1');
    expect((await rawRequest(`${url}/hooks/a1`, { headers: signed(b, clock), body: b })).status).toBe(200);
    await clock.advance(NOW + 3600_000 + 1000 - clock.now());
    const again = await rawRequest(`${url}/hooks/a1`, { headers: signed(b, clock), body: b });
    expect(again.json).toMatchObject({ ok: true });
    expect(again.json?.duplicate).toBeUndefined();
  });
});

describe('the seen file', () => {
  it('is never appended to after a torn last line (a crash mid-write): the keys written next are read back', async () => {
    const d = await dir();
    const good = { agentId: 'a1', key: 'm-1', at: NOW };
    await writeFile(join(d, 'seen.jsonl'), `${JSON.stringify(good)}\n{"agentId":"a1","key":"m-2","a`);
    const file = new SeenFile(d, 60_000);
    await file.open(NOW);
    expect(file.keys()).toEqual([good]);
    const next = { agentId: 'a1', key: 'm-3', at: NOW + 1 };
    await file.keep([next], NOW + 1);
    expect(file.keys()).toEqual([good, next]);
    const again = new SeenFile(d, 60_000);
    await again.open(NOW + 2);
    expect(again.keys()).toEqual([good, next]);
  });
});

describe('hooks', () => {
  it('given its agents, the receiver has no hook for any other agent id (404 unknown-agent), so one delivery cannot be replayed once per made-up id', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock, { agents: ['a1'], defaultAgentId: 'a1' });
    const body = event(null);
    const headers = signed(body, clock);
    expect((await rawRequest(`${url}/hooks/a1`, { headers, body })).status).toBe(200);
    for (const path of ['/hooks/x1', '/hooks/x2', '/hooks/default']) {
      const r = await rawRequest(`${url}${path}`, { headers, body });
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ ok: false, reason: 'unknown-agent', hint: 'POST /hooks/a1' });
    }
    expect((await rawRequest(`${url}/hooks`, { headers, body })).json).toMatchObject({ ok: true, duplicate: true });
    expect(
      t
        .refused({ limit: 10 })
        .filter((r) => r.reason === 'unknown-agent')
        .map((r) => r.detail),
    ).toContain('/hooks/x1 is the hook of an unknown agent: this receiver takes deliveries for /hooks/a1 only');
    expect(t.list({ limit: 10 }).filter((d) => d.verdict.ok)).toHaveLength(1);
  });

  it('names its hooks only to a caller on this machine that came directly: through a tunnel program (forwarding headers) the 404 lists no agent id', async () => {
    const clock = new FakeClock(NOW);
    const { url } = await tunnel(await dir(), clock, {
      agents: ['team-secret-agent'],
      defaultAgentId: 'team-secret-agent',
    });
    const direct = await rawRequest(`${url}/hooks/guess`, { body: '{}' });
    expect(direct.json).toMatchObject({ hint: 'POST /hooks/team-secret-agent' });
    const relayed: Array<Record<string, string>> = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9;proto=https' },
      { 'x-real-ip': '203.0.113.9' },
      { 'x-forwarded-host': 'public.example' },
      { 'cf-connecting-ip': '203.0.113.9' },
      { via: '1.1 proxy.example' },
    ];
    for (const headers of relayed) {
      for (const path of ['/hooks/guess', '/', '/hooks/a/b']) {
        const r = await rawRequest(`${url}${path}`, { headers, body: '{}' });
        expect(r.status).toBe(404);
        expect(r.json).toMatchObject({ ok: false, reason: path === '/hooks/guess' ? 'unknown-agent' : 'not-found' });
        expect(r.body.toString()).not.toContain('team-secret-agent');
      }
    }
  });

  it('takes a request whose target is in absolute form (http://host/path), as HTTP/1.1 servers must', async () => {
    const clock = new FakeClock(NOW);
    const { url } = await tunnel(await dir(), clock);
    const body = event('absolute-1');
    const r = await rawRequest(url, {
      target: 'http://receiver.example/hooks/a1?x=1',
      headers: signed(body, clock),
      body,
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true });
  });
});

describe('refused requests', () => {
  it('are rate-limited per source: 429 with Retry-After before any verification, only the first over budget kept', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock, { refusalRate: { burst: 3, perSec: 0.5 } });
    const junk = () =>
      rawRequest(`${url}/hooks/a1`, { headers: { 'content-type': 'application/json' }, body: '{"junk":true}' });
    expect([(await junk()).status, (await junk()).status, (await junk()).status]).toEqual([401, 401, 401]);
    const limited = await junk();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect(limited.json).toMatchObject({ ok: false, reason: 'rate-limited', retryAfterSec: 2 });
    // Answered before a large body is read.
    const big = await rawRequest(`${url}/hooks/a1`, { body: Buffer.alloc(4 * 1024 * 1024, 0x61) }).catch(
      (e: Error) => e,
    );
    if (!(big instanceof Error)) expect(big.status).toBe(429);
    expect((await rawRequest(`${url}/elsewhere`, { body: 'x' })).status).toBe(429);
    const reasons = t.refused({ limit: 100 }).map((r) => r.reason);
    expect(reasons).toEqual(['rate-limited', 'missing-signature', 'missing-signature', 'missing-signature']);
    // The limit comes before any verification: a signed delivery from the source waits like the rest.
    const good = event('genuine-1');
    const held = await rawRequest(`${url}/hooks/a1`, { headers: signed(good, clock), body: good });
    expect(held.status).toBe(429);
    expect(held.headers['retry-after']).toBe('2');
    // Another source (through a local tunnel program: the last X-Forwarded-For hop) has its own budget.
    const other = await rawRequest(`${url}/hooks/a1`, {
      headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.9' },
      body: '{}',
    });
    expect(other.status).toBe(401);
    expect(t.refused({ limit: 1 })[0]!.from).toBe('198.51.100.9');
    await clock.advance(NOW + 2000 - clock.now());
    expect((await rawRequest(`${url}/hooks/a1`, { headers: signed(good, clock), body: good })).status).toBe(200);
    expect((await junk()).status).toBe(401);
  });

  it('made-up X-Forwarded-For sources share the budget of the local peer that relayed them, so they cannot multiply it', async () => {
    const clock = new FakeClock(NOW);
    const { t, url } = await tunnel(await dir(), clock, { refusalRate: { burst: 3, perSec: 0.01 } });
    // A relay that passes the header on as written (ssh -R): every request names a new source.
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      statuses.push(
        (
          await rawRequest(`${url}/hooks/a1`, {
            headers: { 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` },
            body: '{"junk":true}',
          })
        ).status,
      );
    }
    // Three each would be 180: the peer's shared bucket (ten sources' budgets) runs out at 30.
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    expect(t.refused({ limit: 100 }).length).toBeLessThanOrEqual(31);
    // A delivery through the same relay waits until the relay's budget has a refusal to spare again
    // (429 with Retry-After at once, not verified), then is taken.
    const good = () => {
      const body = event('relayed-genuine');
      return rawRequest(`${url}/hooks/a1`, {
        headers: { ...signed(body, clock), 'x-forwarded-for': '10.9.9.9' },
        body,
      });
    };
    const first = await good();
    expect(first.status).toBe(429);
    await clock.advance(Number(first.headers['retry-after']) * 1000);
    expect((await good()).status).toBe(200);
  });

  it('are bounded: in memory, on disk, and across a restart (read back read-only too)', async () => {
    const d = await dir();
    const clock = new FakeClock(NOW);
    const opts = { maxRefused: 10, refusalRate: { burst: 1e6, perSec: 1 } };
    const first = await tunnel(d, clock, opts);
    for (let i = 0; i < 25; i++) await rawRequest(`${first.url}/not-a-hook-${i}`, { body: `junk ${i}` });
    expect(first.t.refused({ limit: 1000 })).toHaveLength(10);
    expect(first.t.refused({ limit: 1 })[0]).toMatchObject({
      path: '/not-a-hook-24',
      reason: 'not-a-hook',
      status: 404,
      agentId: null,
      size: 7,
      prefix: 'junk 24',
    });
    expect(first.t.refused({ text: 'hook-17' }).map((r) => r.path)).toEqual(['/not-a-hook-17']);
    await stop(first.t);
    const files = await readdir(join(d, 'refused'));
    let lines = 0;
    for (const f of files) lines += (await readFile(join(d, 'refused', f), 'utf8')).split('\n').filter(Boolean).length;
    expect(lines).toBeLessThanOrEqual(10);
    const reader = new RefusedStore({ dataDir: d, readOnly: true, maxEntries: 10 });
    await reader.open();
    expect(reader.list({ limit: 1 })[0]!.path).toBe('/not-a-hook-24');
    expect(reader.list({ limit: 100 }).length).toBeGreaterThanOrEqual(5);
    reader.close();
    const second = await tunnel(d, clock, opts);
    expect(second.t.refused({ limit: 1 })[0]!.path).toBe('/not-a-hook-24');
  });
});
