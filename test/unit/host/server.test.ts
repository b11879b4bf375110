import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../src-main/app/handlers';
import { RENDERER_CSP } from '../../../src-main/app/web-security';
import { startHostServer, type RunningHost } from '../../../src-main/host/server';
import { tokenMatches } from '../../../src-main/host/access';
import { fakeContract } from '../contract/fake-contract';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let host: RunningHost;
let dir: string;
const fake = fakeContract();

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: host.port, method, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const auth = () => ({ authorization: `Bearer ${host.token}`, 'content-type': 'application/json' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cc-host-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>cc</title>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  host = await startHostServer({
    handlers: createHandlers(fake.impl),
    events: fake.events,
    rendererDir: dir,
    heartbeatMs: 50,
  });
});

afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser host', () => {
  it('listens on loopback and gives one URL with the token in the fragment', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    expect(host.openUrl).toBe(`${host.origin}/#token=${host.token}`);
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('serves the renderer with content types and a strict CSP; refuses traversal', async () => {
    const index = await call('GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toBe(RENDERER_CSP);
    const js = await call('GET', '/assets/app.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await call('GET', '/../../etc/passwd')).status).toBe(404);
    expect((await call('GET', '/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
  });

  it('refuses a request without a token, or with a wrong one, and runs nothing', async () => {
    const body = JSON.stringify({ label: 'x', baseUrl: 'https://a.test', apiKey: 'sk_1234567890', agents: [] });
    const none = await call('POST', '/api/teams.add', { 'content-type': 'application/json' }, body);
    expect(none.status).toBe(401);
    const wrong = await call(
      'POST',
      '/api/teams.add',
      { authorization: `Bearer ${host.token.slice(0, -1)}x`, 'content-type': 'application/json' },
      body,
    );
    expect(wrong.status).toBe(401);
    const inQuery = await call(
      'POST',
      `/api/teams.add?token=${host.token}`,
      { 'content-type': 'application/json' },
      body,
    );
    expect(inQuery.status).toBe(401);
    expect(fake.impl['teams.add']).not.toHaveBeenCalled();
  });

  it('refuses a foreign Host header (DNS rebinding) and a cross-origin Origin', async () => {
    const rebound = await call('POST', '/api/teams.list', { ...auth(), host: `evil.example:${host.port}` }, '{}');
    expect(rebound.status).toBe(403);
    const otherPort = await call('GET', '/', { host: `127.0.0.1:${host.port + 1}` });
    expect(otherPort.status).toBe(403);
    const cross = await call('POST', '/api/teams.list', { ...auth(), origin: 'http://evil.example' }, '{}');
    expect(cross.status).toBe(403);
    const same = await call('POST', '/api/teams.list', { ...auth(), origin: `http://127.0.0.1:${host.port}` }, '{}');
    expect(same.status).toBe(200);
    const localhost = await call('POST', '/api/teams.list', { ...auth(), host: `localhost:${host.port}` }, '{}');
    expect(localhost.status).toBe(200);
  });

  it('unknown request → 404; wrong content type → 415; oversized body → 413; bad JSON → 400', async () => {
    expect((await call('POST', '/api/teams.drop', auth(), '{}')).status).toBe(404);
    expect((await call('POST', '/api/constructor', auth(), '{}')).status).toBe(404);
    expect(
      (
        await call(
          'POST',
          '/api/teams.list',
          { authorization: `Bearer ${host.token}`, 'content-type': 'text/plain' },
          '{}',
        )
      ).status,
    ).toBe(415);
    expect((await call('POST', '/api/teams.list', auth(), 'x'.repeat(3 * 1024 * 1024))).status).toBe(413);
    expect((await call('POST', '/api/teams.list', auth(), '{nope')).status).toBe(400);
    expect((await call('GET', '/api/teams.list', auth())).status).toBe(405);
  });

  it('a valid call reaches the handler and answers its Result (x-cc-token works too)', async () => {
    const r = await call(
      'POST',
      '/api/teams.add',
      auth(),
      JSON.stringify({
        label: 'Ops',
        baseUrl: 'https://api.example.test',
        apiKey: 'sk_test_abcd9f2c',
        agents: [{ agentId: 'a1' }],
      }),
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, value: { teamId: 't1', keyHint: '…9f2c' } });
    expect(r.body).not.toContain('sk_test_abcd9f2c');
    const list = await call(
      'POST',
      '/api/teams.list',
      { 'x-cc-token': host.token, 'content-type': 'application/json' },
      '',
    );
    expect(JSON.parse(list.body)).toMatchObject({ ok: true, value: [{ teamId: 't1' }] });
    const invalid = await call('POST', '/api/teams.remove', auth(), '{}');
    expect(JSON.parse(invalid.body)).toMatchObject({ ok: false, error: { kind: 'validation', field: 'teamId' } });
  });

  it('SSE delivers contract events and heartbeats to a token holder', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: host.port,
          path: '/api/events',
          headers: { host: `127.0.0.1:${host.port}`, authorization: `Bearer ${host.token}` },
        },
        (res) => {
          expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString('utf8');
            if (text.includes(': connected') && !text.includes('event:'))
              fake.events.emit('chat.token', { turnId: 't', token: 'Hi' });
            if (text.includes('event: chat.token') && text.includes(': ping')) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on('error', (e) => (String(e).includes('socket hang up') ? undefined : reject(e)));
      req.end();
    });
    expect(received).toContain('event: chat.token\ndata: {"turnId":"t","token":"Hi"}\n\n');
    const noToken = await call('GET', '/api/events');
    expect(noToken.status).toBe(401);
  });

  it('SSE: events published in one turn of the event loop leave in one chunk, in order', async () => {
    const chunks = await new Promise<string[]>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: host.port,
          path: '/api/events',
          headers: { host: `127.0.0.1:${host.port}`, authorization: `Bearer ${host.token}` },
        },
        (res) => {
          const seen: string[] = [];
          res.on('data', (c: Buffer) => {
            const text = c.toString('utf8');
            if (text.startsWith(': connected')) {
              for (const token of ['a', 'b', 'c']) fake.events.emit('chat.token', { turnId: 'batch', token });
              return;
            }
            if (!text.includes('"batch"')) return;
            seen.push(text);
            // A later turn of the loop is a separate write.
            if (seen.length === 1) setImmediate(() => fake.events.emit('chat.token', { turnId: 'batch', token: 'd' }));
            else {
              req.destroy();
              resolve(seen);
            }
          });
        },
      );
      req.on('error', (e) => (String(e).includes('socket hang up') ? undefined : reject(e)));
      req.end();
    });
    const ev = (t: string) => `event: chat.token\ndata: {"turnId":"batch","token":"${t}"}\n\n`;
    expect(chunks).toEqual([ev('a') + ev('b') + ev('c'), ev('d')]);
  });

  it('token comparison is exact', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abcd', 'abc')).toBe(false);
    expect(tokenMatches(null, 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
  });
});
