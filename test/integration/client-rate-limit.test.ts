// 61 sends in one minute against the 60-per-minute limit: the 61st is held by the client-side
// budget or answered 429 and retried — never lost. The client and the emulator share one fake
// clock that stands still while the sends go out (so all 61 fall in one window however slowly the
// machine runs), and moves on only once the 61st is held or refused.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { type RetryInfo, type ServiceClient } from '../../src-main/core/api/service';
import { type SendResult } from '../../src-main/core/api/types';
import { startEmulator, type Emulator } from '../../src-main/emulator';
import { state } from '../helpers/emulator';
import { FakeClock } from '../helpers/fake-clock';
import { waitFor } from '../helpers/wait';

const clock = new FakeClock();
const KEY = 'rate-team-key-0123456789';
const AGENT = 'rate-agent';
let emu: Emulator;
let client: ServiceClient | undefined;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    clock,
    seed: {
      teams: [
        {
          id: 'rate',
          apiKey: KEY,
          sendsPerMinute: 60,
          agents: [{ agentId: AGENT, state: 'connected', phone: '15550100009' }],
        },
      ],
    },
  });
});
afterAll(async () => {
  await client?.close();
  await emu?.close();
});
beforeEach(async () => {
  emu.control.reset();
  await client?.close();
  client = undefined;
});

/**
 * Sends 61 messages at one instant; once 60 have reached the service and the 61st is held (queued
 * or refused with 429), moves the clock on a few seconds at a time until every send has settled.
 */
async function send61(c: ServiceClient) {
  const queued: number[] = [];
  const retries: RetryInfo[] = [];
  let settled = false;
  const all = Promise.all(
    Array.from({ length: 61 }, (_, i) =>
      c.send(
        AGENT,
        { to: '+15550102000', text: `message ${i}` },
        { onQueued: (q) => queued.push(q.position), onRetry: (r) => retries.push(r) },
      ),
    ),
  ).finally(() => (settled = true));
  await waitFor(
    async () => (await state(emu)).sentMessages.length === 60 && queued.length + retries.length >= 1,
    10_000,
    '60 sent and the 61st held',
  );
  for (let step = 0; !settled && step < 60; step++) await clock.advance(5_000);
  const results: SendResult[] = await all;
  return { results, queued, retries };
}
describe('send rate limit: 60 per minute per team', () => {
  it('with the default client budget (60 / 60 s) the 61st waits in the client queue instead of going out early; all 61 sent', async () => {
    client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: KEY, clock, timeoutMs: 30 * 60_000 });
    const { results, queued, retries } = await send61(client);
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    expect(new Set(results.map((r) => r.messageId)).size).toBe(61);
    expect(queued).toEqual([1]);
    // The held send leaves only once the window (plus the transit margin) has passed: no 429.
    expect(retries).toEqual([]);
    const s = await state(emu);
    expect(s.sentMessages).toHaveLength(61);
    expect(s.counters.serviceRequests).toBe(61);
  });

  it('with a client budget above the service limit the 61st gets 429 and is retried after Retry-After; all 61 sent', async () => {
    client = createServiceClient({
      baseUrl: emu.baseUrl,
      apiKey: KEY,
      clock,
      timeoutMs: 30 * 60_000,
      sendBudget: { limit: 1000, windowMs: 60_000 },
    });
    const { results, queued, retries } = await send61(client);
    expect(results).toHaveLength(61);
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    const rateLimited = retries.filter((r) => r.error.kind === 'rate-limited');
    // Either the budget learnt the ceiling from X-RateLimit-Limit in time and queued it, or the service said 429.
    expect(rateLimited.length + queued.length).toBeGreaterThanOrEqual(1);
    const s = await state(emu);
    expect(s.sentMessages).toHaveLength(61);
    expect(new Set(s.sentMessages.map((m) => m.text)).size).toBe(61);
  });
});
