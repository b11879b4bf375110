import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src-main/emulator/index';
import { type Api, ctl, emulatorSuite, waitFor } from './helpers';

const KEY = 'key-chat-aaaaaaa';

describe('emulator: chat', () => {
  let emu: Emulator;
  let api: Api;
  const clock = emulatorSuite(
    KEY,
    {
      seed: { teams: [{ id: 't1', apiKey: KEY, agents: [{ agentId: 'bot' }, { agentId: 'bot2' }] }] },
    },
    (e, a) => ((emu = e), (api = a)),
  );

  /** Opens a stream; returns the events seen so far (live) and a promise of the end. */
  async function openStream(agentId: string, body: unknown, signal?: AbortSignal) {
    const res = await fetch(`${emu.baseUrl}/api/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const done = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch {
        /* aborted */
      }
    })();
    return { res, events, done };
  }

  it('JSON reply echoes the message with a stable conversation per (agent, user_id)', async () => {
    const a = await api.chat('bot', { message: 'hello there', user_id: 'u1' });
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit')).toBe('60');
    expect(a.body).toEqual({
      reply: 'You said: hello there',
      conversationId: expect.stringMatching(/^conv_/),
      actions: [],
      usage: { inputTokens: 2, outputTokens: 4, totalTokens: 6 },
    });
    const b = await api.chat('bot', { message: 'again', user_id: 'u1' });
    expect(b.body.conversationId).toBe(a.body.conversationId);
    expect((await api.chat('bot', { message: 'x', user_id: 'u2' })).body.conversationId).not.toBe(
      a.body.conversationId,
    );
    expect((await api.chat('bot2', { message: 'x', user_id: 'u1' })).body.conversationId).not.toBe(
      a.body.conversationId,
    );
    // stream:true without the SSE Accept header still answers JSON.
    expect((await api.chat('bot', { message: 'x', user_id: 'u1', stream: true })).body.reply).toBe('You said: x');
  });

  it('rejects bad chat bodies with 400', async () => {
    for (const bad of [
      { user_id: 'u' },
      { message: 5, user_id: 'u' },
      { message: '', user_id: 'u' },
      { message: 'x', stream: 'yes' },
      undefined,
    ]) {
      const r = await api.chat('bot', bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('scripted reply, tokens and actions', async () => {
    expect(
      (await ctl(emu, 'POST', '/agents/bot/chat-script', { reply: 'Booked.', actions: [{ name: 'book', slot: 3 }] }))
        .body,
    ).toEqual({ ok: true });
    const r = await api.chat('bot', { message: 'book me', user_id: 'u' });
    expect(r.body).toMatchObject({ reply: 'Booked.', actions: [{ name: 'book', slot: 3 }] });
    await ctl(emu, 'POST', '/agents/bot/chat-script', { tokens: ['Hel', 'lo'] });
    expect((await api.chat('bot', { message: 'x', user_id: 'u' })).body).toMatchObject({
      reply: 'Hello',
      usage: { outputTokens: 2 },
    });
    expect((await ctl(emu, 'POST', '/agents/bot/chat-script', { tokenDelayMs: -1 })).status).toBe(400);
    expect((await ctl(emu, 'POST', '/agents/bot/chat-script', { bogus: 1 })).status).toBe(400);
  });

  it('scripted status/code → that HTTP error', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { status: 429, code: 'CHAT_RATE_LIMITED' });
    const r = await api.chat('bot', { message: 'x', user_id: 'u' });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('CHAT_RATE_LIMITED');
    const s = await openStream('bot', { message: 'x', user_id: 'u', stream: true });
    expect(s.res.status).toBe(429);
    await s.done;
  });

  it('streams tokens with tokenDelayMs between, then done with the full response', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { tokenDelayMs: 100 });
    const s = await openStream('bot', { message: 'one two', user_id: 'u', stream: true });
    expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.res.headers.get('x-ratelimit-limit')).toBe('60');
    await waitFor(() => s.events.length === 1);
    expect(s.events[0]).toMatchObject({ event: 'token', data: JSON.stringify({ token: 'You ' }) });
    await clock.advance(99);
    expect(s.events).toHaveLength(1);
    await clock.advance(1);
    await waitFor(() => s.events.length === 2);
    await clock.advance(100);
    await clock.advance(100);
    await clock.advance(100);
    await s.done;
    expect(s.events.map((e) => e.event)).toEqual(['token', 'token', 'token', 'token', 'done']);
    expect(
      s.events
        .slice(0, 4)
        .map((e) => JSON.parse(e.data).token)
        .join(''),
    ).toBe('You said: one two');
    expect(JSON.parse(s.events[4]!.data)).toMatchObject({
      reply: 'You said: one two',
      conversationId: expect.any(String),
      usage: { totalTokens: 6 },
    });
    expect(clock.pending).toBe(0);
  });

  it('tokensPerSecond paces by rate: each tick writes every token due, tokenCount repeats the tokens', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { tokens: ['ab '], tokenCount: 50, tokensPerSecond: 1000 });
    const s = await openStream('bot', { message: 'go', user_id: 'u', stream: true });
    await waitFor(() => s.events.length === 1);
    await clock.advance(10);
    await waitFor(() => s.events.length === 11);
    expect(s.events).toHaveLength(11);
    await clock.advance(38);
    await waitFor(() => s.events.length === 49);
    expect(s.events.every((e) => e.event === 'token')).toBe(true);
    // The last token and the end leave together.
    await clock.advance(1);
    await s.done;
    expect(s.events.map((e) => e.event).slice(-2)).toEqual(['token', 'done']);
    expect(s.events).toHaveLength(51);
    const done = JSON.parse(s.events[50]!.data);
    expect(done.reply).toBe('ab '.repeat(50));
    expect(done.usage.outputTokens).toBe(50);
    expect(clock.pending).toBe(0);
  });

  it('stampEvery makes every Nth token a wall-clock latency stamp, and the reply is what was streamed', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', {
      tokens: ['x '],
      tokenCount: 5,
      stampEvery: 2,
      tokenDelayMs: 0,
    });
    const before = performance.timeOrigin + performance.now();
    const s = await openStream('bot', { message: 'go', user_id: 'u', stream: true });
    await s.done;
    const after = performance.timeOrigin + performance.now();
    const tokens = s.events.filter((e) => e.event === 'token').map((e) => JSON.parse(e.data).token as string);
    expect(tokens).toHaveLength(5);
    expect([tokens[1], tokens[3]]).toEqual(['x ', 'x ']);
    for (const t of [tokens[0]!, tokens[2]!, tokens[4]!]) {
      const m = /^\u27e8t=(\d+\.\d{2})\u27e9 $/.exec(t);
      expect(m, t).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThanOrEqual(Math.floor(before));
      expect(Number(m![1])).toBeLessThanOrEqual(after + 1);
    }
    expect(JSON.parse(s.events.at(-1)!.data).reply).toBe(tokens.join(''));
    // The control surface's chat log holds exactly what was sent.
    const log = (await ctl(emu, 'GET', '/agents/bot/chats')).body;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      userId: 'u',
      stream: true,
      status: 'done',
      reply: tokens.join(''),
      tokens: 5,
      endedAt: expect.any(Number),
    });
    // The JSON reply repeats and stamps the same way.
    const r = await api.chat('bot', { message: 'go', user_id: 'u' });
    expect(r.body.reply).toMatch(/^\u27e8t=[\d.]+\u27e9 x \u27e8t=[\d.]+\u27e9 x \u27e8t=[\d.]+\u27e9 $/);
    expect(r.body.usage.outputTokens).toBe(5);
  });

  it('rejects contradictory or oversized pacing scripts with 400 and keeps the previous script', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { reply: 'kept' });
    for (const bad of [
      { tokenDelayMs: 5, tokensPerSecond: 100 },
      { tokenCount: 1_000_001 },
      { tokenCount: 0 },
      { tokens: [], tokenCount: 3 },
      { tokensPerSecond: 0 },
      { stampEvery: 0 },
    ]) {
      const r = await ctl(emu, 'POST', '/agents/bot/chat-script', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await api.chat('bot', { message: 'x', user_id: 'u' })).body.reply).toBe('kept');
  });

  it('failAfterTokens → event: error with the error body, then close', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { tokenDelayMs: 0, failAfterTokens: 2, code: 'MODEL_CRASHED' });
    const s = await openStream('bot', { message: 'a b c d', user_id: 'u', stream: true });
    await s.done;
    expect(s.events.map((e) => e.event)).toEqual(['token', 'token', 'error']);
    expect(JSON.parse(s.events[2]!.data)).toEqual({ error: { code: 'MODEL_CRASHED', message: expect.any(String) } });
  });

  it('a client abort stops the token timer', async () => {
    await ctl(emu, 'POST', '/agents/bot/chat-script', { tokenDelayMs: 1000 });
    const ac = new AbortController();
    const s = await openStream('bot', { message: 'a long reply please', user_id: 'u', stream: true }, ac.signal);
    await waitFor(() => s.events.length === 1);
    expect(clock.pending).toBe(1);
    expect((await emu.control.state()).counters.activeStreams).toBe(1);
    ac.abort();
    await s.done;
    await waitFor(async () => clock.pending === 0 && (await emu.control.state()).counters.activeStreams === 0);
    expect(emu.control.chats('bot')).toEqual([
      expect.objectContaining({ status: 'aborted', reply: 'You ', tokens: 1 }),
    ]);
    expect((await ctl(emu, 'GET', '/agents/nobody/chats')).status).toBe(404);
  });
});
