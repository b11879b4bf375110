// `channel-companion media` when the connection drops once the file has begun: the error says so,
// with the bytes received, and no file is left.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

describe('media: a connection dropped during the body', () => {
  let server: http.Server;
  let origin = '';
  let dir = '';

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(4 * 1024 * 1024) });
      res.write(Buffer.alloc(1024 * 1024, 1), () => setTimeout(() => res.socket?.destroy(), 200));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(path.join(os.tmpdir(), 'cc-cli-media-'));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });

  it('says the connection dropped during the body, with the bytes received, not that nothing was answered', async () => {
    const r = await runCli(
      ['media', '--base-url', origin, '--agent', 'agent-1', '--message-id', 'wamid_1', '--out', dir],
      { env: { CHANNEL_API_KEY: 'test-key-0123456789' } },
    );
    expect(r.code).not.toBe(0);
    // What was received before the drop (1 MiB was written; the last of it may be lost with the connection).
    const said = /the connection dropped during the body, after (\d+) of 4194304 bytes received/.exec(r.stderr);
    expect(said).not.toBeNull();
    expect(Number(said![1])).toBeGreaterThan(0);
    expect(r.stderr).not.toContain('before answering');
    expect(await readdir(dir)).toEqual([]);
  });
});
