// The real binary (spawned) against a stand-in that answers 200 in shapes nobody can read: never an
// empty line and exit 0. Every command exits non-zero and shows what came (status, content type,
// size, the first bytes or the frames), for people and in --json; and the key never goes in clear
// to another machine unless --allow-insecure-http says so.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonLines } from '../helpers/cli';
import { runBin } from '../helpers/spawn-cli';

const KEY = 'stand-in-key-0123456789';
let server: Server;
let baseUrl = '';
const seen: string[] = [];

const ANSWERS: Record<string, { type: string; body: string }> = {
  'GET session': { type: 'application/json', body: '{"status":"ok","data":{"id":7}}' },
  'POST messages': { type: 'application/json', body: '{}' },
  'GET contacts': { type: 'text/html', body: '<html><body>Please sign in</body></html>' },
  'PATCH settings': { type: 'application/json', body: '{"updated":["groups"]}' },
  'POST chat': { type: 'application/json', body: '{"foo":"bar"}' },
  'POST chat stream': {
    type: 'text/event-stream',
    body: ': ping\n\nevent: status\ndata: {"state":"thinking"}\n\n: ping\n\n',
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    req.resume();
    req.on('end', () => {
      const last =
        (req.url ?? '')
          .split('/')
          .filter(Boolean)
          .at(req.url?.includes('/contacts/') ? -2 : -1) ?? '';
      const stream = (req.headers.accept ?? '').includes('text/event-stream') ? ' stream' : '';
      const a = ANSWERS[`${req.method} ${last}${stream}`] ?? { type: 'text/plain', body: 'no such thing' };
      res.writeHead(200, { 'content-type': a.type, 'x-ratelimit-limit': '60' });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const run = (args: string[]) => runBin([...args, '--base-url', baseUrl, '--agent', 'a1'], { CHANNEL_API_KEY: KEY });
const SPAWN_MS = 60_000;

describe.concurrent('never an empty success', () => {
  it(
    'chat --json: exit 3, the raw answer in the error, nothing on stdout',
    async () => {
      const r = await run(['chat', '--message', 'hi', '--json']);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(parseJsonLines(r.stderr)).toEqual([
        {
          error: expect.objectContaining({
            code: 'UNREADABLE_REPLY',
            status: 200,
            message: expect.stringMatching(/reply could not be read/),
            raw: { status: 200, contentType: 'application/json', bytes: 13, prefix: '{"foo":"bar"}' },
          }),
        },
      ]);
    },
    SPAWN_MS,
  );

  it(
    'chat, for people: the error, then what the service answered',
    async () => {
      const r = await run(['chat', '--message', 'hi']);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("error: The agent's reply could not be read");
      expect(r.stderr).toContain('the service answered: HTTP 200, application/json, 13 bytes');
      expect(r.stderr).toContain('first bytes: "{\\"foo\\":\\"bar\\"}"');
    },
    SPAWN_MS,
  );

  it(
    'chat --stream that ends without any text: exit 3 with the frames as received',
    async () => {
      const json = await run(['chat', '--message', 'hi', '--stream', '--json']);
      expect(json.code).toBe(3);
      expect(json.stdout).toBe('');
      const [line] = parseJsonLines(json.stderr);
      expect(line).toMatchObject({
        error: { code: 'UNREADABLE_REPLY', raw: { status: 200, contentType: 'text/event-stream' } },
      });
      const frames = (line!.error as { raw: { frames: Array<Record<string, unknown>> } }).raw.frames.map(
        ({ ms: _ms, ...f }) => f,
      );
      expect(frames).toEqual([
        { event: null, id: null, data: '', comment: 'ping' },
        { event: 'status', id: null, data: '{"state":"thinking"}' },
        { event: null, id: null, data: '', comment: 'ping' },
      ]);
      const human = await run(['chat', '--message', 'hi', '--stream']);
      expect(human.code).toBe(3);
      expect(human.stdout).toBe('');
      expect(human.stderr).toContain('frames as received:');
      expect(human.stderr).toContain('event: status  data: "{\\"state\\":\\"thinking\\"}"');
    },
    SPAWN_MS,
  );

  it.each([
    ['status', [], 'application/json'],
    ['send', ['--to', '+15550102000', '--text', 'x'], 'application/json'],
    ['check', ['--phone', '+15550102000'], 'text/html'],
    ['settings', ['--groups', 'on'], 'application/json'],
  ])(
    '%s --json: exit 3 with the raw answer',
    async (cmd, args, type) => {
      const r = await run([cmd, ...args, '--json']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toBe('');
      expect(parseJsonLines(r.stderr)).toEqual([
        {
          error: expect.objectContaining({
            code: 'UNREADABLE_RESPONSE',
            status: 200,
            raw: expect.objectContaining({ status: 200, contentType: type }),
          }),
        },
      ]);
      expect(r.stderr).not.toContain(KEY);
    },
    SPAWN_MS,
  );
});

describe('the key over plain http', () => {
  it(
    'an http:// base URL on another machine is refused before anything is sent (exit 2, says how to allow it)',
    async () => {
      const before = seen.length;
      const r = await runBin(['status', '--base-url', 'http://192.0.2.10:8787', '--agent', 'a1', '--json'], {
        CHANNEL_API_KEY: KEY,
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/unencrypted to 192\.0\.2\.10:8787.*--allow-insecure-http/);
      expect(r.stderr).not.toContain(KEY);
      expect(seen.length).toBe(before);
    },
    SPAWN_MS,
  );
});
