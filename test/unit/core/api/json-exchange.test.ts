// A JSON call over a real loopback socket: what happens when the answer breaks off, trickles past the
// timeout, or is aborted while still queued, and that the base URL's own path is kept.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../../../src-main/core/api/client';
import { Aborted, NetworkError, Timeout } from '../../../../src-main/core/api/errors';
import type { ServiceClient } from '../../../../src-main/core/api/service';

const KEY = 'sk-json-exchange-test-77aa';
let server: Server | undefined;
let client: ServiceClient | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('a JSON call over a real socket', () => {
  it('an answer cut off mid-body is a network error that still carries the rate limit of its headers', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': '100',
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '7',
      });
      res.write('{"connected":tr');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    client = createServiceClient({ baseUrl: url, apiKey: KEY });
    const err = await caught(client.setWebhook('agent-1', 'https://example.com/hook'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ rateLimit: { limit: 60, remaining: 7 } });
    expect(String((err as Error).message)).not.toContain(KEY);
    expect(client.rateLimit).toMatchObject({ limit: 60, remaining: 7 });
  });

  it('the timeout covers the body: an answer that trickles past it is a Timeout, and its connection is given up', async () => {
    const closed: Array<Promise<void>> = [];
    const url = await serve((req, res) => {
      closed.push(new Promise<void>((r) => req.socket.once('close', () => r())));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"connected":');
      // the rest never comes
    });
    client = createServiceClient({ baseUrl: url, apiKey: KEY, timeoutMs: 150 });
    const err = await caught(client.getSession('agent-1'));
    expect(err).toBeInstanceOf(Timeout);
    // The server never ends an answer, so only the client can have closed each connection.
    expect(closed.length).toBeGreaterThanOrEqual(1);
    await Promise.all(closed);
  });

  it('a call aborted while it waits for a connection is Aborted at once, and the others go on', async () => {
    const held: ServerResponse[] = [];
    const url = await serve((req, res) => {
      if (req.url?.includes('/slow/')) {
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"connected":true,"state":"connected"}');
    });
    // One connection: the second call queues behind the first.
    client = createServiceClient({ baseUrl: url, apiKey: KEY, dispatcher: new Agent({ connections: 1 }) });
    const first = client.getSession('slow');
    await new Promise((r) => setTimeout(r, 50));
    const ac = new AbortController();
    const second = client.getSession('agent-2', { signal: ac.signal });
    ac.abort();
    expect(await caught(second)).toBeInstanceOf(Aborted);
    held[0]!
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"connected":false,"linked":false,"needsScan":true}');
    expect(await first).toMatchObject({ connected: false, needsScan: true });
    expect(await client.getSession('agent-3')).toMatchObject({ connected: true });
  });

  it('keeps the base URL path and sends the key and the JSON body', async () => {
    let seen: { url?: string; auth?: string; type?: string; body?: string } = {};
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen = { url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"url":"https://example.com/hook","mode":"webhook"}');
      });
    });
    client = createServiceClient({ baseUrl: `${url}/svc/`, apiKey: KEY });
    expect(await client.setWebhook('agent-1', 'https://example.com/hook')).toMatchObject({
      url: 'https://example.com/hook',
    });
    expect(seen).toEqual({
      url: '/svc/api/v1/agents/agent-1/whatsapp/webhook',
      auth: `Bearer ${KEY}`,
      type: 'application/json',
      body: '{"url":"https://example.com/hook"}',
    });
  });
});
