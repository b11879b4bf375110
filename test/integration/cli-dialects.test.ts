// The real binary (spawned) against the emulator in each dialect: `chat` for every chat JSON and
// stream dialect, `send` for every error-body shape (a 503 retried, whatever the body) and every
// rate-limit header form (a 429 waited out as the headers say), `check` for every contact path
// form. Each dialect gets the command its dialect is about; the client suite runs them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src-main/emulator';
import { DIALECT_NAMES } from '../../src-main/emulator/dialect';
import { DIALECT_REPLY, DIALECT_SCRIPT, dialectSeed, dialectTeam, KNOWN_PHONE } from '../helpers/dialect-world';
import { parseJsonLines } from '../helpers/cli';
import { runBin } from '../helpers/spawn-cli';

const CHAT_JSON = [
  'default',
  'message-json',
  'text-json',
  'content-json',
  'response-json',
  'answer-json',
  'output-json',
  'openai-json',
];
const STREAMS = [
  'default',
  'delta-stream',
  'message-stream',
  'openai-stream',
  'anthropic-stream',
  'dify-stream',
  'text-stream',
  'crlf-stream',
  'heartbeat-stream',
  'json-for-stream',
];
const ERROR_BODIES = ['default', 'flat-errors', 'errors-array', 'string-errors', 'text-errors', 'empty-errors'];
const RATE_FORMS = ['default', 'reset-delta', 'reset-unix', 'retry-after-date', 'upper-case-headers'];
const CONTACT_FORMS = ['default', 'plus-encoded-contacts', 'bare-digit-contacts'];

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, seed: dialectSeed(60) });
  for (const name of DIALECT_NAMES) emu.control.setChatScript(dialectTeam(name).ok, DIALECT_SCRIPT);
});
afterAll(() => emu?.close());

function cli(dialect: string, args: string[]) {
  const t = dialectTeam(dialect);
  return runBin([...args, '--base-url', emu.baseUrl], { CHANNEL_API_KEY: t.apiKey });
}

const SPAWN_MS = 60_000;

it('every dialect is exercised by one of the groups below', () => {
  expect(new Set([...CHAT_JSON, ...STREAMS, ...ERROR_BODIES, ...RATE_FORMS, ...CONTACT_FORMS])).toEqual(
    new Set(DIALECT_NAMES),
  );
});

describe.concurrent('chat --json, per chat JSON dialect', () => {
  it.each(CHAT_JSON)(
    '%s',
    async (d) => {
      const r = await cli(d, ['chat', '--agent', dialectTeam(d).ok, '--message', 'hi there', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const lines = parseJsonLines(r.stdout);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ reply: DIALECT_REPLY, usage: { totalTokens: expect.any(Number) } });
    },
    SPAWN_MS,
  );
});

describe.concurrent('chat --stream, per stream dialect', () => {
  it.each(STREAMS)(
    '%s (--json: token lines, then done)',
    async (d) => {
      const r = await cli(d, ['chat', '--agent', dialectTeam(d).ok, '--message', 'hi there', '--stream', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const lines = parseJsonLines(r.stdout);
      const tokens = lines.filter((l) => l.event === 'token').map((l) => l.token as string);
      expect(lines.at(-1)).toMatchObject({ event: 'done', reply: DIALECT_REPLY });
      expect(tokens.join('')).toBe(d === 'json-for-stream' ? '' : DIALECT_REPLY);
    },
    SPAWN_MS,
  );

  it.each(['anthropic-stream', 'json-for-stream'])(
    '%s (for people: the reply on stdout, the numbers on stderr)',
    async (d) => {
      const r = await cli(d, ['chat', '--agent', dialectTeam(d).ok, '--message', 'hi there', '--stream']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${DIALECT_REPLY}\n`);
      expect(r.stderr).toMatch(/^conversation: /m);
    },
    SPAWN_MS,
  );
});

describe.concurrent('send, per error-body shape: a 503 keeps its meaning and is retried; a 409 never', () => {
  it.each(ERROR_BODIES)(
    '%s',
    async (d) => {
      const r = await cli(d, [
        'send',
        '--agent',
        dialectTeam(d).reconnecting,
        '--to',
        KNOWN_PHONE,
        '--text',
        'x',
        '--retries',
        '1',
        '--json',
      ]);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      const err = parseJsonLines(r.stderr);
      expect(err.filter((l) => 'note' in l)).toHaveLength(1); // one retry
      expect(err.at(-1)).toMatchObject({ error: { kind: 'reconnecting', status: 503 } });
    },
    SPAWN_MS,
  );

  it.each(['default', 'text-errors', 'empty-errors'])(
    '%s: 409 exits at once',
    async (d) => {
      const r = await cli(d, [
        'send',
        '--agent',
        dialectTeam(d).unlinked,
        '--to',
        KNOWN_PHONE,
        '--text',
        'x',
        '--json',
      ]);
      expect(r.code).toBe(3);
      const err = parseJsonLines(r.stderr);
      expect(err).toEqual([
        { error: expect.objectContaining({ kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', status: 409 }) },
      ]);
    },
    SPAWN_MS,
  );
});

describe.concurrent('send, per rate-limit header form', () => {
  it.each(RATE_FORMS)(
    '%s: a 429 is waited out as its headers say, then the send goes out',
    async (d) => {
      const t = dialectTeam(d);
      emu.control.addFault({
        kind: '429',
        count: 1,
        retryAfterSeconds: 1,
        pathPrefix: `/api/v1/agents/${t.ok}/whatsapp/messages`,
      });
      const sentTo = async () => (await emu.control.state()).sentMessages.filter((m) => m.agentId === t.ok).length;
      const before = await sentTo();
      const r = await cli(d, ['send', '--agent', t.ok, '--to', KNOWN_PHONE, '--text', 'x', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(parseJsonLines(r.stdout)[0]).toMatchObject({ status: 'sent' });
      // The wait itself is the client's, checked per header form on a manual clock (client-dialects).
      const notes = parseJsonLines(r.stderr);
      expect(notes).toHaveLength(1);
      expect(String(notes[0]!.note)).toMatch(/retry 1 in [12]\.0 s/);
      expect(await sentTo()).toBe(before + 1);
    },
    SPAWN_MS,
  );

  it(
    'a 429 too long to wait says the ceiling from X-RateLimit-Limit (--json and for people)',
    async () => {
      const t = dialectTeam('reset-delta');
      emu.control.addFault({
        kind: '429',
        count: 2,
        retryAfterSeconds: 900,
        pathPrefix: `/api/v1/agents/${t.ok}/whatsapp/messages`,
      });
      const json = await cli('reset-delta', ['send', '--agent', t.ok, '--to', KNOWN_PHONE, '--text', 'x', '--json']);
      expect(json.code).toBe(3);
      expect(parseJsonLines(json.stderr)).toEqual([
        { error: expect.objectContaining({ kind: 'rate-limited', status: 429, limit: 60 }) },
      ]);
      const human = await cli('reset-delta', ['send', '--agent', t.ok, '--to', KNOWN_PHONE, '--text', 'x']);
      expect(human.code).toBe(3);
      expect(human.stderr).toMatch(
        /^error: .*rate limit reached: the service allows 60 per minute \(X-RateLimit-Limit\)/m,
      );
    },
    SPAWN_MS,
  );
});

describe.concurrent('check, per contact path form', () => {
  it.each(CONTACT_FORMS)(
    '%s',
    async (d) => {
      const r = await cli(d, ['check', '--agent', dialectTeam(d).ok, '--phone', KNOWN_PHONE, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(parseJsonLines(r.stdout)).toEqual([
        { phone: KNOWN_PHONE.slice(1), exists: true, jid: `${KNOWN_PHONE.slice(1)}@s.whatsapp.net` },
      ]);
    },
    SPAWN_MS,
  );
});
