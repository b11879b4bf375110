import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../../../src-main/core/api/client';
import type { ChatStreamEvent } from '../../../../src-main/core/api/types';
import { KEY, setup } from './mock';

const PATH = '/api/v1/agents/agent-1/chat';
const SSE = { 'content-type': 'text/event-stream' };
let env: ReturnType<typeof setup> | undefined;
afterEach(async () => {
  await env?.agent.close();
  env = undefined;
});

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('chatStream over MockAgent', () => {
  it('asks for SSE with {message, user_id, stream:true} and yields tokens then done', async () => {
    env = setup();
    env.answer(
      'POST',
      PATH,
      200,
      'event: token\ndata: {"token":"Hi"}\n\nevent: token\ndata: {"token":" there"}\n\nevent: done\ndata: {"reply":"Hi there","conversationId":"c9","actions":[],"usage":{"totalTokens":2}}\n\n',
      SSE,
    );
    const events = await collect(env.client.chatStream('agent-1', { message: 'hello', user_id: 'u1' }));
    const c = env.captured[0]!;
    expect(c.headers.accept).toBe('text/event-stream');
    expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(c.body!)).toEqual({ message: 'hello', user_id: 'u1', stream: true });
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'done']);
    expect(events[2]).toMatchObject({ type: 'done', result: { reply: 'Hi there', conversationId: 'c9' } });
  });

  it('a JSON answer instead of SSE gives a single done event', async () => {
    env = setup();
    env.answer('POST', PATH, 200, { reply: 'whole', conversationId: 'c1' });
    const events = await collect(env.client.chatStream('agent-1', { message: 'x', user_id: 'u' }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'done', result: { reply: 'whole', conversationId: 'c1' } });
  });

  it('an HTTP error becomes one error event with status and code', async () => {
    env = setup();
    env.answer('POST', PATH, 429, { error: { code: 'RATE_LIMITED', message: 'slow' } }, { 'retry-after': '3' });
    expect(await collect(env.client.chatStream('agent-1', { message: 'x', user_id: 'u' }))).toEqual([
      { type: 'error', status: 429, code: 'RATE_LIMITED', message: 'slow' },
    ]);
  });

  it('a connection error becomes an error event', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: PATH })
      .replyWithError(Object.assign(new Error('nope'), { code: 'ECONNREFUSED' }));
    const events = await collect(env.client.chatStream('agent-1', { message: 'x', user_id: 'u' }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', code: 'NETWORK_ERROR' });
  });

  it('abort() before iterating yields nothing and sends nothing', async () => {
    env = setup();
    const s = env.client.chatStream('agent-1', { message: 'x', user_id: 'u' });
    s.abort();
    expect(await collect(s)).toEqual([]);
    expect(env.captured).toHaveLength(0);
  });
});

describe('chatStream against a real local server', () => {
  let server: http.Server;
  let baseUrl: string;
  let closed: Promise<void>;
  let markClosed: () => void = () => undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: token\ndata: {"token":"first"}\n\n');
      res.on('close', () => markClosed()); // stays open until the client goes away
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('abort() mid-stream ends the iteration and releases the connection', async () => {
    closed = new Promise<void>((r) => (markClosed = r));
    const client = createServiceClient({ baseUrl, apiKey: KEY });
    const stream = client.chatStream('agent-1', { message: 'x', user_id: 'u' });
    const seen: ChatStreamEvent[] = [];
    for await (const ev of stream) {
      seen.push(ev);
      stream.abort();
    }
    expect(seen).toEqual([{ type: 'token', token: 'first' }]);
    await closed; // the server saw the connection go
    await client.close();
  });

  it('breaking out of the loop also releases the connection', async () => {
    closed = new Promise<void>((r) => (markClosed = r));
    const client = createServiceClient({ baseUrl, apiKey: KEY });
    for await (const ev of client.chatStream('agent-1', { message: 'x', user_id: 'u' })) {
      expect(ev.type).toBe('token');
      break;
    }
    await closed;
    await client.close();
  });
});
