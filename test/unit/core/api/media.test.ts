import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../../../src-main/core/api/client';
import { NetworkError, ServiceError } from '../../../../src-main/core/api/errors';
import { safeFileName } from '../../../../src-main/core/api/media';
import type { ServiceClient } from '../../../../src-main/core/api/service';
import { KEY } from './mock';

interface Seen {
  url: string;
  authorization: string | undefined;
}

/** Content-Disposition headers the blob origin answers /blob/disp/<index> with (none for null). */
const DISPOSITIONS = [
  'attachment; filename="a b.pdf"',
  'attachment; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf; filename="x.pdf"',
  'attachment; filename=plain.txt',
  'attachment; filename="say \\"hi\\".txt"',
  'inline',
  null,
];

const BLOB = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));

function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer(handler);
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () =>
      r({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe('downloadMedia with redirects across two real origins', () => {
  let service: { server: http.Server; origin: string };
  let blobs: { server: http.Server; origin: string };
  let seenService: Seen[] = [];
  let seenBlobs: Seen[] = [];
  let dir: string;
  let client: ServiceClient;

  beforeAll(async () => {
    blobs = await listen((req, res) => {
      seenBlobs.push({ url: req.url ?? '', authorization: req.headers.authorization });
      if (req.url === '/blob/png') {
        res.writeHead(200, {
          'content-type': 'image/png',
          'content-length': String(BLOB.length),
          'content-disposition': 'attachment; filename="photo 1.png"',
        });
        res.end(BLOB);
      } else if (req.url === '/blob/nodisp') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(BLOB.subarray(0, 10));
      } else if (req.url === '/blob/evil') {
        res.writeHead(200, {
          'content-type': 'text/plain',
          'content-disposition': 'attachment; filename="../../evil.txt"',
        });
        res.end('x');
      } else if (req.url?.startsWith('/blob/disp/')) {
        const disposition = DISPOSITIONS[Number(req.url.slice('/blob/disp/'.length))];
        res.writeHead(200, {
          'content-type': 'text/plain',
          ...(disposition ? { 'content-disposition': disposition } : {}),
        });
        res.end('x');
      } else if (req.url === '/blob/back') {
        res.writeHead(302, { location: `${service.origin}/api/v1/agents/agent-1/whatsapp/media/final` });
        res.end();
      } else {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'MEDIA_EXPIRED', message: 'link expired' } }));
      }
    });
    service = await listen((req, res) => {
      seenService.push({ url: req.url ?? '', authorization: req.headers.authorization });
      const id = (req.url ?? '').split('/').pop();
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'no key' } }));
      }
      if (id === 'loop') {
        res.writeHead(302, { location: '/api/v1/agents/agent-1/whatsapp/media/loop' });
        return res.end();
      }
      if (id === 'hop') {
        res.writeHead(307, { location: '/api/v1/agents/agent-1/whatsapp/media/m1' }); // relative, same origin
        return res.end();
      }
      if (id === 'final') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('final');
      }
      const target = /^d\d+$/.test(id ?? '')
        ? `/blob/disp/${id!.slice(1)}`
        : ({ m1: '/blob/png', m2: '/blob/nodisp', m3: '/blob/evil', m4: '/blob/gone', m5: '/blob/back' }[id ?? ''] ??
          '/blob/gone');
      res.writeHead(302, { location: `${blobs.origin}${target}` });
      res.end();
    });
    client = createServiceClient({ baseUrl: service.origin, apiKey: KEY });
  });

  beforeEach(async () => {
    seenService = [];
    seenBlobs = [];
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-test-'));
  });

  afterAll(async () => {
    await client.close();
    for (const s of [service.server, blobs.server]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('sends the key to the service only, never to the blob origin; streams to the file with progress', async () => {
    const progress: Array<[number, number | null]> = [];
    const dest = path.join(dir, 'out.png');
    const r = await client.downloadMedia('agent-1', 'm1', dest, { onProgress: (a, b) => progress.push([a, b]) });
    expect(r).toEqual({ path: dest, contentType: 'image/png', filename: 'photo 1.png', bytes: BLOB.length });
    expect(Buffer.compare(await readFile(dest), BLOB)).toBe(0);
    expect(seenService).toEqual([{ url: '/api/v1/agents/agent-1/whatsapp/media/m1', authorization: `Bearer ${KEY}` }]);
    expect(seenBlobs).toEqual([{ url: '/blob/png', authorization: undefined }]);
    expect(progress.at(-1)).toEqual([BLOB.length, BLOB.length]);
    expect(progress.length).toBeGreaterThan(0);
    expect((await readdir(dir)).sort()).toEqual(['out.png']); // no temp file left
  });

  it('into a folder: name from Content-Disposition, else message id + extension', async () => {
    const a = await client.downloadMedia('agent-1', 'm1', dir);
    expect(a.path).toBe(path.join(dir, 'photo 1.png'));
    const b = await client.downloadMedia('agent-1', 'm2', dir);
    expect(b.path).toBe(path.join(dir, 'm2.pdf'));
    expect(b.filename).toBeNull();
    const c = await client.downloadMedia('agent-1', 'm3', dir);
    expect(c.path).toBe(path.join(dir, 'evil.txt')); // path parts stripped
  });

  it('reads the file name from Content-Disposition: filename* first, then filename, quoted or not', async () => {
    const names: (string | null)[] = [];
    for (let i = 0; i < DISPOSITIONS.length; i++)
      names.push((await client.downloadMedia('agent-1', `d${i}`, path.join(dir, `f${i}`))).filename);
    expect(names).toEqual(['a b.pdf', 'résumé.pdf', 'plain.txt', 'say "hi".txt', null, null]);
  });

  it('keeps the key on a same-origin redirect, and sends it again when a redirect comes back', async () => {
    await client.downloadMedia('agent-1', 'hop', path.join(dir, 'x'));
    expect(seenService.map((s) => s.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const back = await client.downloadMedia('agent-1', 'm5', path.join(dir, 'y'));
    expect(back.bytes).toBe(5);
    expect(seenBlobs).toEqual([
      { url: '/blob/png', authorization: undefined },
      { url: '/blob/back', authorization: undefined },
    ]);
  });

  it('stops after 5 redirects', async () => {
    const err = await client.downloadMedia('agent-1', 'loop', path.join(dir, 'z')).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as ServiceError).code).toBe('TOO_MANY_REDIRECTS');
    expect(seenService).toHaveLength(6);
  });

  it('maps an error answer from the blob origin and leaves no file behind', async () => {
    const err = await client.downloadMedia('agent-1', 'm4', path.join(dir, 'gone.bin')).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('MEDIA_EXPIRED');
    expect((err as ServiceError).status).toBe(410);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('downloadMedia when the connection drops during the body', () => {
  let server: { server: http.Server; origin: string };
  let dir: string;
  let client: ServiceClient;

  beforeAll(async () => {
    // Headers announcing 100,000 bytes, 30,000 of them, then the connection is dropped.
    server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
      res.write(Buffer.alloc(30_000, 1), () => setTimeout(() => res.socket?.destroy(), 200));
    });
    client = createServiceClient({ baseUrl: server.origin, apiKey: KEY });
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-drop-'));
  });

  afterAll(async () => {
    await client.close();
    server.server.closeAllConnections();
    await new Promise<void>((r) => server.server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });

  it('says the connection dropped during the body, with the bytes received; no file is left', async () => {
    const err = await client.downloadMedia('agent-1', 'm1', path.join(dir, 'out.png')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as ServiceError).code).toBe('BODY_INTERRUPTED');
    expect((err as Error).message).toMatch(/the connection dropped during the body, after [1-9]\d* of 100000 bytes/);
    expect((err as Error).message).not.toContain('before answering');
    expect(await readdir(dir)).toEqual([]);
  });

  it('a body longer than the limit beforeBody answers fails before a byte beyond it is written', async () => {
    let announced: number | null = -1;
    const err = await client
      .downloadMedia('agent-1', 'm1', path.join(dir, 'out.png'), {
        beforeBody: (total) => {
          announced = total;
          return 10_000;
        },
      })
      .catch((e: unknown) => e);
    expect(announced).toBe(100_000);
    expect((err as ServiceError).code).toBe('MEDIA_TOO_LARGE');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('media helpers', () => {
  it('safeFileName', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\x.png')).toBe('x.png');
    expect(safeFileName('.hidden')).toBe('hidden');
    expect(safeFileName('a\u0000b:c.txt')).toBe('a_b_c.txt');
    expect(safeFileName('..')).toBeNull();
  });
});
