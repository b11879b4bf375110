// The same client checks against the emulator in every dialect (chat JSON and stream, sends that
// succeed, 409 never retried, 503 retried, 429 waited out as the headers say, the contact check):
// whatever shape the service uses for what its document leaves open, the client reads it, and
// never returns an empty success. Client and emulator share one manual clock; time moves only to
// the next timer (a retry wait), never while a request is on its way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { ChannelNotConfigured, ChannelReconnecting } from '../../src-main/core/api/errors';
import { type RetryInfo, type ServiceClient } from '../../src-main/core/api/service';
import { type ChatStreamEvent } from '../../src-main/core/api/types';
import { startEmulator, type Emulator } from '../../src-main/emulator';
import {
  DIALECT_ACTION,
  DIALECT_REPLY,
  DIALECT_SCRIPT,
  DIALECT_TEAMS,
  dialectSeed,
  KNOWN_PHONE,
  type DialectTeam,
} from '../helpers/dialect-world';
import { FakeClock } from '../helpers/fake-clock';
import { waitFor } from '../helpers/wait';

const clock = new FakeClock();
let emu: Emulator;
const clients: ServiceClient[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, clock, seed: dialectSeed(1) });
  for (const t of DIALECT_TEAMS) emu.control.setChatScript(t.ok, DIALECT_SCRIPT);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu?.close();
});

function clientOf(t: DialectTeam, extra: { sendBudget?: { limit: number } } = {}): ServiceClient {
  // The request time-out is far away: only retry waits are short timers on the shared clock.
  const c = createServiceClient({
    baseUrl: emu.baseUrl,
    apiKey: t.apiKey,
    clock,
    timeoutMs: 60 * 60_000,
    contactPathForms: new Map(),
    ...extra,
  });
  clients.push(c);
  return c;
}

/** Runs `p` to its end, moving the shared clock to each due wait (never past a request's time-out). */
async function drive<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; !settled && i < 5000; i++) {
    const next = clock.pendingDelays().find((d) => d < 10 * 60_000);
    if (next !== undefined) await clock.advance(Math.max(0, next));
    else await new Promise((r) => setTimeout(r, 5));
  }
  return p;
}

const usageTotal = (input: string, reply: string) =>
  input.split(/\s+/).filter(Boolean).length + (reply.match(/\s*\S+\s*/g) ?? []).length;

describe.each(DIALECT_TEAMS.map((t) => [t.dialect, t] as const))('dialect %s', (dialect, team) => {
  it('chat JSON: the reply, its actions, tokens and conversation', async () => {
    const r = await clientOf(team).chat(team.ok, { message: 'hi there', user_id: 'u1' });
    expect(r.reply).toBe(DIALECT_REPLY);
    expect(r.usage.totalTokens).toBe(usageTotal('hi there', DIALECT_REPLY));
    // Dify-style answers carry no actions; OpenAI completions no conversation id.
    if (dialect !== 'answer-json') expect(r.actions.map((a) => a.name)).toEqual([DIALECT_ACTION]);
    if (dialect !== 'openai-json') expect(r.conversationId).toMatch(/^conv_/);
  });

  it('chat stream: the reply token by token (or whole), then done — never an empty success', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const ev of clientOf(team).chatStream(team.ok, { message: 'hi there', user_id: 'u1' })) events.push(ev);
    const tokens = events.filter((e) => e.type === 'token').map((e) => (e as { token: string }).token);
    const last = events.at(-1);
    expect(last?.type, JSON.stringify(last)).toBe('done');
    expect((last as { result: { reply: string } }).result.reply).toBe(DIALECT_REPLY);
    if (dialect === 'json-for-stream') expect(tokens).toEqual([]);
    else expect(tokens.join('')).toBe(DIALECT_REPLY);
  });

  it('a send goes out; a 409 is never retried, whatever the error body', async () => {
    // One client per send: a client that learnt the ceiling of 1 would hold the next send back itself.
    const sent = await clientOf(team).send(team.ok, { to: KNOWN_PHONE, text: 'one' });
    expect(sent).toMatchObject({ status: 'sent', messageId: expect.stringMatching(/^msg_/) });
    const retries: RetryInfo[] = [];
    const e409 = await clientOf(team)
      .send(team.unlinked, { to: KNOWN_PHONE, text: 'x' }, { onRetry: (i) => retries.push(i) })
      .catch((e: unknown) => e);
    expect(e409).toBeInstanceOf(ChannelNotConfigured);
    expect(retries).toEqual([]);
  });

  it('a 429 waits as long as the rate-limit headers say (not a blind backoff), then the send goes out', async () => {
    // A fresh client that has not learnt the ceiling yet, so the service itself says 429.
    const c = clientOf(team, { sendBudget: { limit: 1000 } });
    const retries: RetryInfo[] = [];
    const p = c.send(team.ok, { to: KNOWN_PHONE, text: 'two' }, { onRetry: (i) => retries.push(i) });
    await waitFor(() => retries.length >= 1, 10_000, 'the 429');
    expect(retries[0]!.error.kind).toBe('rate-limited');
    expect(retries[0]!.delayMs).toBeGreaterThan(30_000);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(61_000);
    expect(await drive(p)).toMatchObject({ status: 'sent' });
    expect(c.rateLimit.limit).toBe(1);
  });

  it('the contact check finds a known number, in whichever path form the service takes', async () => {
    expect(await clientOf(team).checkContact(team.ok, KNOWN_PHONE)).toEqual({
      phone: KNOWN_PHONE.slice(1),
      exists: true,
      jid: `${KNOWN_PHONE.slice(1)}@s.whatsapp.net`,
    });
  });

  // Last: its retry waits on the shared clock (the client's own budget holds the retry for a minute).
  it('a 503 is retried like CHANNEL_RECONNECTING, whatever the error body', async () => {
    const retries: RetryInfo[] = [];
    const p = clientOf(team)
      .send(team.reconnecting, { to: KNOWN_PHONE, text: 'x' }, { maxRetries: 1, onRetry: (i) => retries.push(i) })
      .catch((e: unknown) => e);
    await waitFor(() => retries.length === 1, 10_000, 'the first 503');
    expect(await drive(p)).toBeInstanceOf(ChannelReconnecting);
    expect(retries).toHaveLength(1);
  });
});
