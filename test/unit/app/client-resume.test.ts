// remoteClient's event stream over a local HTTP server that cuts it: a stream whose events carry ids is
// opened again with Last-Event-ID and goes on from there; a stream without ids (the local endpoint, a
// browser host) ends at once as before; a 401 on the way back ends it too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteClient, type ContractClient } from '../../../src-main/app/client';

/** Waits for what crosses processes, sockets and the database: generous on a loaded machine. */
const SLOW = { timeout: 10_000 };

interface Served {
  origin: string;
  /** The Last-Event-ID of each stream opened, in order (null: none sent). */
  opened: (string | null)[];
  /** The open streams. */
  streams: ServerResponse[];
  /** How the next stream is answered; default 200 with what `open` writes. */
  status: number;
  close(): Promise<void>;
}

async function serve(open: (res: ServerResponse, lastId: string | null) => void): Promise<Served> {
  const served: Served = { origin: '', opened: [], streams: [], status: 200, close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const lastId = (req.headers['last-event-id'] as string | undefined) ?? null;
    served.opened.push(lastId);
    if (served.status !== 200) {
      res.writeHead(served.status).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    served.streams.push(res);
    open(res, lastId);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  served.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return served;
}

/** Cuts every open stream mid-way (the connection dies, as a replica's death or a proxy's cut does). */
function cut(s: Served): void {
  for (const res of s.streams.splice(0)) res.socket?.destroy();
}

const health = (n: number): string => `event: health.changed\ndata: ${JSON.stringify({ agentId: `a${n}` })}\n\n`;

describe('remoteClient event stream resume', () => {
  const open: { client?: ContractClient; served?: Served }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.client?.close();
      await o.served?.close();
    }
  });

  it('a stream with ids is opened again with the last id and goes on; onClose is not called', async () => {
    // The server numbers events; a stream resumed after id N starts at N + 1.
    const served = await serve((res, lastId) => {
      let n = lastId === null ? 0 : Number(lastId);
      res.write(`id: ${n}\nevent: cursor\ndata: {}\n\n`);
      for (let i = 0; i < 3; i++) {
        n++;
        res.write(`id: ${n}\n${health(n)}`);
      }
    });
    const client = remoteClient({ origin: served.origin, token: 't', resumeForMs: 10_000 });
    open.push({ client, served });
    const seen: string[] = [];
    const closes: string[] = [];
    client.onClose((why) => closes.push(why));
    client.on('health.changed', (h) => seen.push(h.agentId));
    await client.listening();
    await expect.poll(() => seen, SLOW).toEqual(['a1', 'a2', 'a3']);
    cut(served);
    await expect.poll(() => seen, SLOW).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    cut(served);
    await expect.poll(() => seen.length, SLOW).toBe(9);
    expect(served.opened).toEqual([null, '3', '6']);
    expect(closes).toEqual([]);
  });

  it('a stream that has carried no id ends at once, as before (onClose, no second attempt)', async () => {
    const served = await serve((res) => res.write(health(1)));
    // A stream that resumed would call onClose only once resumeForMs had passed, long after the poll below
    // gives up: onClose within it is the stream ended without a second attempt.
    const client = remoteClient({ origin: served.origin, resumeForMs: 60_000 });
    open.push({ client, served });
    const closes: string[] = [];
    client.onClose((why) => closes.push(why));
    const seen: string[] = [];
    client.on('health.changed', (h) => seen.push(h.agentId));
    await client.listening();
    await expect.poll(() => seen, SLOW).toEqual(['a1']);
    cut(served);
    await expect.poll(() => closes.length, SLOW).toBe(1);
    expect(served.opened).toEqual([null]);
  });

  it('a resume the server refuses with 401 ends the stream (onClose) without waiting out resumeForMs', async () => {
    const served = await serve((res) => res.write(`id: 7\n${health(7)}`));
    const client = remoteClient({ origin: served.origin, token: 'revoked-soon', resumeForMs: 60_000 });
    open.push({ client, served });
    const closes: string[] = [];
    client.onClose((why) => closes.push(why));
    await client.listening();
    await expect.poll(() => served.streams.length, SLOW).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    served.status = 401;
    cut(served);
    await expect.poll(() => closes, SLOW).toEqual(['the companion refused its events (HTTP 401)']);
    expect(served.opened).toEqual([null, '7']);
  });

  it('a server away for longer than resumeForMs: onClose once the attempts give up', async () => {
    const served = await serve((res) => res.write(`id: 1\n${health(1)}`));
    const client = remoteClient({ origin: served.origin, resumeForMs: 1_000 });
    open.push({ client, served });
    const closes: string[] = [];
    client.onClose((why) => closes.push(why));
    await client.listening();
    await expect.poll(() => served.streams.length, SLOW).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    served.status = 503;
    cut(served);
    await expect.poll(() => closes.length, { timeout: 5_000 }).toBe(1);
    expect(closes[0]).toContain('HTTP 503');
    expect(served.opened.length).toBeGreaterThan(2);
    expect(served.opened.slice(1).every((id) => id === '1')).toBe(true);
  });
});
