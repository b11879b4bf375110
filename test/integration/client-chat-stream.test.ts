// The chat token stream decoded from a recorded sample split into two chunks at EVERY byte offset:
// through the real client over HTTP (a tiny loopback server writes the halves separately), and
// through the decoder directly.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src-main/core/api/client';
import { type ServiceClient } from '../../src-main/core/api/service';
import { ChatEventDecoder } from '../../src-main/core/api/sse';
import { type ChatStreamEvent } from '../../src-main/core/api/types';
import { SAMPLE_RESULT, SAMPLE_TOKENS, sampleStream } from '../helpers/sse-sample';

const bytes = sampleStream();
let server: Server;
let client: ServiceClient;
let splitAt = 0;
const seenAuth: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAuth.push(String(req.headers.authorization));
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-ratelimit-limit': '60',
      });
      res.flushHeaders();
      const i = splitAt;
      res.write(bytes.subarray(0, i));
      setTimeout(() => res.end(bytes.subarray(i)), 2);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = createServiceClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'sample-key-123456',
  });
});
afterAll(async () => {
  await client?.close();
  await new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
});

function check(events: ChatStreamEvent[], where: string): void {
  const tokens = events.filter((e) => e.type === 'token').map((e) => (e as { token: string }).token);
  expect(tokens, where).toEqual(SAMPLE_TOKENS);
  const last = events.at(-1);
  expect(last?.type, where).toBe('done');
  expect((last as { result: unknown }).result, where).toMatchObject(SAMPLE_RESULT);
  expect(
    events.filter((e) => e.type === 'done'),
    where,
  ).toHaveLength(1);
}

describe('chat stream split at every byte offset', () => {
  it('the decoder alone, two chunks, every offset', () => {
    for (let i = 0; i <= bytes.length; i++) {
      const d = new ChatEventDecoder();
      const events = [...d.push(bytes.subarray(0, i)), ...d.push(bytes.subarray(i)), ...d.end()];
      check(events, `split at ${i}`);
    }
  });

  it('the decoder alone, one byte at a time', () => {
    const d = new ChatEventDecoder();
    const events: ChatStreamEvent[] = [];
    for (let i = 0; i < bytes.length; i++) events.push(...d.push(bytes.subarray(i, i + 1)));
    events.push(...d.end());
    check(events, 'byte by byte');
  });

  it(`the client over HTTP, served in two writes split at every offset (${bytes.length + 1} requests)`, async () => {
    for (let i = 0; i <= bytes.length; i++) {
      splitAt = i;
      const events: ChatStreamEvent[] = [];
      for await (const ev of client.chatStream('agent-x', { message: 'hi', user_id: 'u' })) events.push(ev);
      check(events, `split at ${i}`);
    }
    expect(new Set(seenAuth)).toEqual(new Set(['Bearer sample-key-123456']));
  }, 60_000);
});
