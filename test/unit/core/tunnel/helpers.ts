// Test helpers for the tunnel: a fake clock, temp dirs, raw HTTP posts.
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { FakeClock } from '../../../helpers/fake-clock';

export async function tempDir(prefix = 'tunnel-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: Record<string, unknown> | null;
}

/** A raw HTTP request over loopback, headers exactly as given. */
export function rawRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    chunked?: boolean;
    /** The request target as sent (default: the URL's path). */ target?: string;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const body =
      opts.body === undefined ? undefined : typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : opts.body;
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (body !== undefined && !opts.chunked && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length'))
      headers['content-length'] = String(body.length);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: opts.target ?? u.pathname + u.search,
        method: opts.method ?? 'POST',
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const b = Buffer.concat(chunks);
          let json: Record<string, unknown> | null = null;
          try {
            json = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export { waitFor } from '../../../helpers/wait';
