// messages.media against a real media server on loopback: a fetch has an overall deadline (a server
// that sends one byte at a time never holds it longer), a timed-out fetch is dropped so the next
// request starts afresh, and the cache's room is reserved from the announced length.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mediaFiles } from '../../../src-main/app/contract/media';
import type { Scope } from '../../../src-main/app/contract/scope';
import type { Companion } from '../../../src-main/app/companion/companion';
import { createServiceClient } from '../../../src-main/core/api/client';
import type { ServiceClient } from '../../../src-main/core/api/service';
import { MediaCache } from '../../../src-main/core/messages/media-cache';
import { systemClock } from '../../../src-main/core/ports';

const AGENT = 'agent-1';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let server: http.Server;
let requests = 0;
/** How the server answers: `trickle` sends one byte every 50 ms and never ends. */
let mode: 'trickle' | 'whole' = 'trickle';
let dir = '';
let client: ServiceClient;

beforeEach(async () => {
  requests = 0;
  server = http.createServer((_req, res) => {
    requests++;
    if (mode === 'whole') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
      res.end(PNG);
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' });
    const t = setInterval(() => res.write(Buffer.from([0])), 50);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = createServiceClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'test-key-0123456789',
  });
  dir = await mkdtemp(path.join(os.tmpdir(), 'cc-media-contract-'));
});

afterEach(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

function files(deadlineMs: number) {
  const cache = new MediaCache({ dir: path.join(dir, 'media'), now: () => Date.now() });
  const team = { id: 't1', label: 'Team', agents: [{ agentId: AGENT }] };
  const c = {
    clock: systemClock,
    clientFor: async () => client,
    messages: {
      media: cache,
      message: async (_agentId: string, key: string) => ({
        key,
        agentId: AGENT,
        contact: '15550100002',
        at: Date.now(),
        direction: 'in',
        type: 'image',
        text: '',
        messageId: key,
      }),
    },
  } as unknown as Companion;
  const scope = { c, now: () => Date.now(), publish: () => undefined, requireTeam: () => team } as unknown as Scope;
  return mediaFiles(scope, { deadlineMs });
}

describe('messages.media: the overall deadline of a fetch', () => {
  it('a server sending a byte at a time: stopped at the deadline, said plainly; the next request starts afresh', async () => {
    const m = files(400);
    // (A fetch that never stopped would hold this test past vitest's own timeout.)
    const [a, b] = await Promise.allSettled([m.message('t1', AGENT, 'wamid_1'), m.message('t1', AGENT, 'wamid_1')]);
    for (const r of [a, b]) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'MEDIA_TIMEOUT' } });
    // Asked twice at once, fetched once.
    expect(requests).toBe(1);
    // The stuck fetch was dropped: the next request fetches again, and gets the file.
    mode = 'whole';
    const got = await m.message('t1', AGENT, 'wamid_1');
    expect(requests).toBe(2);
    expect(got).toMatchObject({ mimeType: 'image/png', bytes: PNG.length });
    // Nothing of the timed-out fetch is left in the cache folder.
    expect((await readdir(path.join(dir, 'media'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
