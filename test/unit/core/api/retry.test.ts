import { afterEach, describe, expect, it } from 'vitest';
import {
  Aborted,
  ChannelNotConfigured,
  ChannelReconnecting,
  QuotaExceeded,
  RateLimited,
} from '../../../../src-main/core/api/errors';
import { backoffDelay } from '../../../../src-main/core/backoff';
import type { RetryInfo } from '../../../../src-main/core/api/service';
import { flush } from '../../../helpers/fake-clock';
import { setup } from './mock';

/** The waits between send retries: 1 s doubling to 16 s, each somewhere in its upper half. */
const SEND_RETRY_BACKOFF = { baseMs: 1000, maxMs: 16_000, jitter: 0.5 };

const PATH = '/api/v1/agents/agent-1/whatsapp/messages';
const RECONNECTING = { error: { code: 'CHANNEL_RECONNECTING', message: 'reconnecting' } };
const OK = { status: 'sent', messageId: 'm1', to: '+15550102000' };
let env: ReturnType<typeof setup>;
afterEach(async () => {
  await env?.agent.close();
});

describe('send retry backoff', () => {
  it('stays within [ceiling/2, ceiling] and the ceiling doubles from 1 s up to the 16 s cap', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const ceiling = Math.min(16_000, 1000 * 2 ** (attempt - 1));
      expect(backoffDelay(SEND_RETRY_BACKOFF, attempt, () => 1)).toBe(ceiling / 2);
      expect(backoffDelay(SEND_RETRY_BACKOFF, attempt, () => 0.000001)).toBeLessThanOrEqual(ceiling);
      expect(backoffDelay(SEND_RETRY_BACKOFF, attempt, () => 0.000001)).toBeGreaterThan(ceiling * 0.99);
    }
    expect(backoffDelay(SEND_RETRY_BACKOFF, 20, () => 0)).toBe(16_000);
  });
});

describe('send retries', () => {
  it('retries 503 CHANNEL_RECONNECTING with growing jittered delays, then succeeds', async () => {
    const rolls = [1, 0, 0.5]; // the lowest wait, the highest, the middle
    env = setup({ random: () => rolls.shift() ?? 0 });
    env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    await flush();
    expect(env.captured).toHaveLength(1);
    expect(retries[0]).toEqual({
      attempt: 1,
      delayMs: 500,
      error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting' },
    });
    await env.clock.advance(499);
    expect(env.captured).toHaveLength(1); // still waiting
    await env.clock.advance(1);
    expect(env.captured).toHaveLength(2);
    await env.clock.advance(2000);
    await env.clock.advance(3000);
    expect(await p).toEqual(OK);
    expect(retries.map((r) => r.delayMs)).toEqual([500, 2000, 3000]);
    expect(env.captured).toHaveLength(4);
  });

  it('gives up after maxRetries and surfaces ChannelReconnecting', async () => {
    env = setup();
    for (let i = 0; i < 3; i++) env.answer('POST', PATH, 503, RECONNECTING);
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { maxRetries: 2 }).catch((e) => e);
    await env.clock.advance(60_000);
    expect(await p).toBeInstanceOf(ChannelReconnecting);
    expect(env.captured).toHaveLength(3);
  });

  it('past maxRetries, keeps retrying 503s while shouldKeepRetrying says so, and stops when it says no', async () => {
    env = setup();
    for (let i = 0; i < 8; i++) env.answer('POST', PATH, 503, RECONNECTING);
    // Yes three times, then no.
    const asked: number[] = [];
    const keep = () => (asked.push(env.captured.length), asked.length <= 3);
    const p = env.client
      .send('agent-1', { to: '+15550102000', text: 'x' }, { maxRetries: 1, shouldKeepRetrying: keep })
      .catch((e) => e);
    await env.clock.advance(120_000);
    expect(await p).toBeInstanceOf(ChannelReconnecting);
    // 1 attempt + 1 ordinary retry + 3 kept-up retries; asked only once maxRetries were spent.
    expect(env.captured).toHaveLength(5);
    expect(asked).toEqual([2, 3, 4, 5]);
  });

  it('a kept-up 503 retry ends in the send when the number comes back', async () => {
    env = setup();
    for (let i = 0; i < 4; i++) env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 200, OK);
    const p = env.client.send(
      'agent-1',
      { to: '+15550102000', text: 'x' },
      { maxRetries: 0, shouldKeepRetrying: () => true },
    );
    for (let i = 0; i < 4; i++) await env.clock.advance(16_000);
    expect(await p).toEqual(OK);
    expect(env.captured).toHaveLength(5);
  });

  it('default maxRetries is 4 (5 attempts)', async () => {
    env = setup();
    for (let i = 0; i < 6; i++) env.answer('POST', PATH, 503, RECONNECTING);
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }).catch((e) => e);
    await env.clock.advance(120_000);
    expect(await p).toBeInstanceOf(ChannelReconnecting);
    expect(env.captured).toHaveLength(5);
  });

  it('never retries 409 CHANNEL_NOT_CONFIGURED', async () => {
    env = setup();
    env.answer('POST', PATH, 409, { error: { code: 'CHANNEL_NOT_CONFIGURED', message: 'scan needed' } });
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client
      .send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) })
      .catch((e) => e);
    await env.clock.advance(60_000);
    expect(await p).toBeInstanceOf(ChannelNotConfigured);
    expect(env.captured).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('429 waits Retry-After, then retries', async () => {
    env = setup();
    env.answer('POST', PATH, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '7' });
    env.answer('POST', PATH, 200, OK);
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' });
    await env.clock.advance(6_999);
    expect(env.captured).toHaveLength(1);
    await env.clock.advance(1);
    expect(await p).toEqual(OK);
    expect(env.captured).toHaveLength(2);
  });

  it('429 without Retry-After waits until X-RateLimit-Reset', async () => {
    env = setup();
    const nowSec = Math.floor(env.clock.now() / 1000);
    env.answer('POST', PATH, 429, undefined, { 'x-ratelimit-reset': String(nowSec + 12) });
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    await env.clock.advance(12_000);
    expect(await p).toEqual(OK);
    expect(retries[0]!.delayMs).toBe(12_000);
  });

  it('429 retries are bounded', async () => {
    env = setup();
    for (let i = 0; i < 5; i++) env.answer('POST', PATH, 429, undefined, { 'retry-after': '1' });
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }).catch((e) => e);
    await env.clock.advance(10_000);
    expect(await p).toBeInstanceOf(RateLimited);
    expect(env.captured).toHaveLength(4);
  });

  it('quota (402, or 429 with a quota code) is never retried', async () => {
    env = setup();
    env.answer(
      'POST',
      PATH,
      429,
      { error: { code: 'QUOTA_EXCEEDED', message: 'monthly quota' } },
      { 'retry-after': '1' },
    );
    env.answer('POST', PATH, 402, { code: 'QUOTA_EXCEEDED' });
    const p1 = env.client.send('agent-1', { to: '+15550102000', text: 'x' }).catch((e) => e);
    await env.clock.advance(5_000);
    expect(await p1).toBeInstanceOf(QuotaExceeded);
    expect(env.captured).toHaveLength(1);
    const p2 = env.client.send('agent-1', { to: '+15550102000', text: 'x' }).catch((e) => e);
    await env.clock.advance(5_000);
    expect(await p2).toBeInstanceOf(QuotaExceeded);
    expect(env.captured).toHaveLength(2);
  });

  it('the retry wait is cancelled by the signal', async () => {
    env = setup();
    env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 200, OK);
    const ac = new AbortController();
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { signal: ac.signal }).catch((e) => e);
    await env.clock.advance(100);
    ac.abort();
    expect(await p).toBeInstanceOf(Aborted);
    await env.clock.advance(60_000);
    expect(env.captured).toHaveLength(1);
  });

  it.each([
    ['no body', undefined, {}],
    ['a text body', 'Service Unavailable', { 'content-type': 'text/plain' }],
    ['another code', { code: 'MAINTENANCE', message: 'later' }, {}],
    ['the errors array', { errors: [{ code: 'CHANNEL_RECONNECTING', message: 'soon' }] }, {}],
  ])('a 503 with %s is retried like CHANNEL_RECONNECTING', async (_what, body, headers) => {
    env = setup();
    env.answer('POST', PATH, 503, body, headers);
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    await env.clock.advance(2_000);
    expect(await p).toEqual(OK);
    expect(env.captured).toHaveLength(2);
    expect(retries).toHaveLength(1);
  });

  it.each([
    ['no body', undefined],
    ['a text body', 'Conflict'],
    ['another shape', { errors: [{ message: 'scan the QR' }] }],
  ])('a 409 with %s is never retried', async (_what, body) => {
    env = setup();
    env.answer('POST', PATH, 409, body);
    env.answer('POST', PATH, 200, OK);
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }).catch((e) => e);
    await env.clock.advance(60_000);
    expect(await p).toBeInstanceOf(ChannelNotConfigured);
    expect(env.captured).toHaveLength(1);
  });

  it('shouldKeepRetrying is asked when the 503 retries run out: true goes on, false stops', async () => {
    env = setup();
    for (let i = 0; i < 4; i++) env.answer('POST', PATH, 503, RECONNECTING);
    env.answer('POST', PATH, 200, OK);
    const asked: RetryInfo[] = [];
    let keepOn = true;
    const p = env.client.send(
      'agent-1',
      { to: '+15550102000', text: 'x' },
      { maxRetries: 1, shouldKeepRetrying: async (i) => (asked.push(i), keepOn) },
    );
    await env.clock.advance(60_000);
    expect(await p).toEqual(OK);
    expect(env.captured).toHaveLength(5);
    expect(asked.map((i) => i.attempt)).toEqual([2, 3, 4]);
    expect(asked[0]!.error.kind).toBe('reconnecting');

    for (let i = 0; i < 3; i++) env.answer('POST', PATH, 503, RECONNECTING);
    keepOn = false;
    const p2 = env.client
      .send('agent-1', { to: '+15550102000', text: 'x' }, { maxRetries: 1, shouldKeepRetrying: () => keepOn })
      .catch((e) => e);
    await env.clock.advance(60_000);
    expect(await p2).toBeInstanceOf(ChannelReconnecting);
    expect(env.captured).toHaveLength(7);
  });

  it('429 with X-RateLimit-Reset as seconds until the reset waits that long', async () => {
    env = setup();
    env.answer('POST', PATH, 429, undefined, { 'x-ratelimit-reset': '9' });
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    await env.clock.advance(9_000);
    expect(await p).toEqual(OK);
    expect(retries[0]!.delayMs).toBe(9_000);
  });

  it('429 with Retry-After as an HTTP date waits until then', async () => {
    env = setup();
    const at = new Date(env.clock.now() + 20_000).toUTCString();
    env.answer('POST', PATH, 429, undefined, { 'Retry-After': at });
    env.answer('POST', PATH, 200, OK);
    const retries: RetryInfo[] = [];
    const p = env.client.send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) });
    await env.clock.advance(20_000);
    expect(await p).toEqual(OK);
    expect(retries[0]!.delayMs).toBe(20_000);
  });

  it('429 whose reset lies in the past backs off instead of retrying at once (no hot loop)', async () => {
    env = setup();
    const past = String(Math.floor(env.clock.now() / 1000) - 30);
    for (let i = 0; i < 4; i++)
      env.answer('POST', PATH, 429, undefined, { 'x-ratelimit-reset': past, 'retry-after': '0' });
    const retries: RetryInfo[] = [];
    const p = env.client
      .send('agent-1', { to: '+15550102000', text: 'x' }, { onRetry: (i) => retries.push(i) })
      .catch((e) => e);
    await flush();
    expect(env.captured).toHaveLength(1);
    await env.clock.advance(400);
    expect(env.captured).toHaveLength(1); // still backing off
    await env.clock.advance(60_000);
    expect(await p).toBeInstanceOf(RateLimited);
    expect(env.captured).toHaveLength(4);
    expect(retries.map((r) => r.delayMs)).toEqual([1, 2, 3].map((n) => backoffDelay(SEND_RETRY_BACKOFF, n, () => 0.5)));
    expect(Math.min(...retries.map((r) => r.delayMs))).toBeGreaterThanOrEqual(500);
  });
});
