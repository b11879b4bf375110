// 61 sends in one minute against the 60-per-minute limit: the 61st is held by the client-side
// budget or answered 429 and retried — never lost. Both sides run on one clock 120× faster than
// real time, so "a minute" passes in half a second.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient, type RetryInfo, type ServiceClient } from '../../src-main/core/api';
import { startEmulator, type Emulator } from '../../src-main/emulator';
import { scaledClock } from '../helpers/clock';
import { state } from '../helpers/emulator';

const clock = scaledClock(120);
const KEY = 'rate-team-key-0123456789';
const AGENT = 'rate-agent';
let emu: Emulator;
let client: ServiceClient | undefined;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    clock,
    seed: { teams: [{ id: 'rate', apiKey: KEY, sendsPerMinute: 60, agents: [{ agentId: AGENT, state: 'connected', phone: '15550100009' }] }] },
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

async function send61(c: ServiceClient) {
  const queued: number[] = [];
  const retries: RetryInfo[] = [];
  const results = await Promise.all(
    Array.from({ length: 61 }, (_, i) =>
      c.send(AGENT, { to: '+15550102000', text: `message ${i}` }, { onQueued: (q) => queued.push(q.position), onRetry: (r) => retries.push(r) }),
    ),
  );
  return { results, queued, retries };
}

describe('send rate limit: 60 per minute per team', () => {
  it('with the default client budget (60 / 60 s) the 61st waits in the client queue instead of going out early; all 61 sent', async () => {
    client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: KEY, clock, timeoutMs: 30 * 60_000 });
    const { results, queued, retries } = await send61(client);
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    expect(new Set(results.map((r) => r.messageId)).size).toBe(61);
    expect(queued).toEqual([1]);
    // The client's window starts when a send leaves, the service's when it arrives; at 120× speed
    // that latency is magnified, so the held send may still meet one 429 at the window's edge —
    // then it is retried, not lost.
    expect(retries.every((r) => r.error.kind === 'rate-limited')).toBe(true);
    expect(retries.length).toBeLessThanOrEqual(1);
    const s = await state(emu);
    expect(s.sentMessages).toHaveLength(61);
    expect(s.counters.serviceRequests).toBe(61 + retries.length);
  });

  it('with a client budget above the service limit the 61st gets 429 and is retried after Retry-After; all 61 sent', async () => {
    client = createServiceClient({ baseUrl: emu.baseUrl, apiKey: KEY, clock, timeoutMs: 30 * 60_000, sendBudget: { limit: 1000, windowMs: 60_000 } });
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
