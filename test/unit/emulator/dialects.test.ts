// The emulator's dialects on the wire: what each name changes, per team and per agent, from the seed
// and from the control surface.
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { type Emulator } from '../../../src-main/emulator/index';
import { DIALECT_NAMES } from '../../../src-main/emulator/dialect';
import { type Api, client, ctl, emulatorSuite } from './helpers';

const KEY = 'key-dialects-aaaa';
const CLOCK_START_SEC = Date.UTC(2026, 0, 15, 12, 0, 0) / 1000;

describe('emulator: dialects', () => {
  let emu: Emulator;
  let api: Api;
  emulatorSuite(
    KEY,
    {
      seed: {
        teams: [
          {
            id: 't1',
            apiKey: KEY,
            sendsPerMinute: 1,
            agents: [
              { agentId: 'plain', state: 'connected', phone: '15550100001' },
              { agentId: 'own', state: 'unlinked', dialect: ['flat-errors'] },
            ],
          },
        ],
        contacts: ['15550102000'],
      },
    },
    (e, a) => ((emu = e), (api = a)),
  );

  const setTeam = (dialect: string) => ctl(emu, 'POST', '/teams/t1/dialect', { dialect });

  async function raw(path: string, init: { method?: string; body?: unknown; accept?: string } = {}) {
    const res = await fetch(`${emu.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.accept ? { accept: init.accept } : {}),
      },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, text: await res.text() };
  }

  it('lists every dialect on the control surface, and refuses an unknown name', async () => {
    const list = (await ctl(emu, 'GET', '/dialects')).body as Array<{ name: string; describe: string }>;
    expect(list.map((d) => d.name)).toEqual(DIALECT_NAMES);
    expect(list.every((d) => d.describe.length > 5)).toBe(true);
    const bad = await setTeam('openai-stream,klingon');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/unknown dialect "klingon"/);
  });

  it.each([
    [
      'default',
      'application/json; charset=utf-8',
      '{"error":{"code":"CHANNEL_NOT_CONFIGURED","message":"the number is not linked; a QR scan is needed"}}',
    ],
    [
      'errors-array',
      'application/json; charset=utf-8',
      '{"errors":[{"code":"CHANNEL_NOT_CONFIGURED","message":"the number is not linked; a QR scan is needed"}]}',
    ],
    ['string-errors', 'application/json; charset=utf-8', '{"error":"CHANNEL_NOT_CONFIGURED"}'],
    ['text-errors', 'text/plain; charset=utf-8', 'the number is not linked; a QR scan is needed'],
    ['empty-errors', null, ''],
  ])('error bodies: %s', async (dialect, type, text) => {
    await setTeam(dialect);
    await ctl(emu, 'POST', '/agents/own/dialect', { dialect: [] });
    const r = await raw('/api/v1/agents/own/whatsapp/messages', {
      method: 'POST',
      body: { to: '+15550102000', text: 'x' },
    });
    expect(r).toMatchObject({ status: 409, type, text });
  });

  it("an agent's dialect wins over its team's", async () => {
    await setTeam('errors-array');
    const r = await raw('/api/v1/agents/own/whatsapp/messages', {
      method: 'POST',
      body: { to: '+15550102000', text: 'x' },
    });
    expect(JSON.parse(r.text)).toEqual({
      code: 'CHANNEL_NOT_CONFIGURED',
      message: 'the number is not linked; a QR scan is needed',
    });
    expect(
      (await ctl(emu, 'GET', '/state')).body.agents.find((a: { agentId: string }) => a.agentId === 'own').dialect,
    ).toEqual(['flat-errors']);
  });

  it.each([
    ['default', { 'x-ratelimit-reset': String(CLOCK_START_SEC + 60), 'retry-after': '60' }],
    ['reset-delta', { 'x-ratelimit-reset': '60', 'retry-after': null }],
    ['reset-unix', { 'x-ratelimit-reset': String(CLOCK_START_SEC + 60), 'retry-after': null }],
    ['retry-after-date', { 'retry-after': new Date((CLOCK_START_SEC + 60) * 1000).toUTCString() }],
  ])('rate-limit headers on a 429: %s', async (dialect, want) => {
    await setTeam(dialect);
    expect((await api.send('plain', { to: '+15550102000', text: 'a' })).status).toBe(200);
    const r = await raw('/api/v1/agents/plain/whatsapp/messages', {
      method: 'POST',
      body: { to: '+15550102000', text: 'b' },
    });
    expect(r.status).toBe(429);
    expect(r.headers.get('x-ratelimit-limit')).toBe('1');
    for (const [name, value] of Object.entries(want)) expect(r.headers.get(name), name).toBe(value);
  });

  it('upper-case-headers writes the names in upper case on the wire', async () => {
    await setTeam('upper-case-headers');
    const res = await new Promise<string[]>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(
          `${emu.baseUrl}/api/v1/agents/plain/whatsapp/session`,
          { headers: { authorization: `Bearer ${KEY}` } },
          (r) => {
            r.resume();
            resolve(r.rawHeaders.filter((_, i) => i % 2 === 0));
          },
        );
        req.on('error', reject);
        req.end();
      }, reject);
    });
    expect(res).toContain('X-RATELIMIT-LIMIT');
    expect(res).not.toContain('x-ratelimit-limit');
  });

  it.each([
    ['default', 'application/json; charset=utf-8', (b: any) => b.reply], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['message-json', null, (b: any) => b.message], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['text-json', null, (b: any) => b.text], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['content-json', null, (b: any) => b.content], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['response-json', null, (b: any) => b.response], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['answer-json', null, (b: any) => b.answer], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['output-json', null, (b: any) => b.output], // eslint-disable-line @typescript-eslint/no-explicit-any
    ['openai-json', null, (b: any) => b.choices[0].message.content], // eslint-disable-line @typescript-eslint/no-explicit-any
  ])('chat JSON: %s', async (dialect, _type, replyOf) => {
    await setTeam(dialect);
    const r = await api.chat('plain', { message: 'hi', user_id: 'u' });
    expect(r.status).toBe(200);
    expect(replyOf(r.body)).toBe('You said: hi');
    if (dialect !== 'default') expect(r.body.reply).toBeUndefined();
  });

  it.each([
    ['default', 'event: token\ndata: {"token":"You "}\n\n'],
    ['delta-stream', 'event: delta\ndata: {"delta":"You "}\n\n'],
    ['message-stream', 'event: message\ndata: {"text":"You "}\n\n'],
    ['openai-stream', '"choices":[{"index":0,"delta":{"content":"You "},"finish_reason":null}]'],
    [
      'anthropic-stream',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"You "}}\n\n',
    ],
    ['dify-stream', '"event":"message"'],
    ['text-stream', 'data: You \n\n'],
    ['crlf-stream', 'event: token\r\ndata: {"token":"You "}\r\n\r\n'],
    ['heartbeat-stream', ': heartbeat\n\nevent: heartbeat\ndata: {}\n\nid: 1\nevent: token\n'],
  ])('token stream: %s', async (dialect, contains) => {
    await setTeam(dialect);
    await ctl(emu, 'POST', '/agents/plain/chat-script', { tokenDelayMs: 0 });
    const r = await raw('/api/v1/agents/plain/chat', {
      method: 'POST',
      body: { message: 'hi', user_id: 'u', stream: true },
      accept: 'text/event-stream',
    });
    expect(r.type).toMatch(/^text\/event-stream/);
    expect(r.text).toContain(contains);
    expect(r.text).toContain('said:');
  });

  it('json-for-stream answers a stream request with one JSON body', async () => {
    await setTeam('json-for-stream,openai-json');
    const r = await raw('/api/v1/agents/plain/chat', {
      method: 'POST',
      body: { message: 'hi', user_id: 'u', stream: true },
      accept: 'text/event-stream',
    });
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(r.text).choices[0].message.content).toBe('You said: hi');
  });

  it.each([
    ['default', { '%2B15550102000': 200, '15550102000': 200 }],
    ['plus-encoded-contacts', { '%2B15550102000': 200, '15550102000': 404 }],
    ['bare-digit-contacts', { '%2B15550102000': 400, '15550102000': 200 }],
  ])('the contacts path: %s', async (dialect, want) => {
    await setTeam(dialect);
    for (const [form, status] of Object.entries(want))
      expect((await api.contact('plain', form)).status, form).toBe(status);
  });

  it('a dialect in the seed and for every team via startEmulator({ dialect })', async () => {
    const other = client(emu, KEY);
    await ctl(emu, 'POST', '/agents/own/dialect', { dialect: 'string-errors' });
    expect((await other.send('own', { to: '+15550102000', text: 'x' })).body).toEqual({
      error: 'CHANNEL_NOT_CONFIGURED',
    });
    emu.control.reset();
    expect((await other.send('own', { to: '+15550102000', text: 'x' })).body).toEqual({
      code: 'CHANNEL_NOT_CONFIGURED',
      message: expect.any(String),
    });
  });
});

describe('startEmulator({ dialect })', () => {
  it('is the dialect of every team that names none; an unknown name does not start', async () => {
    const { startEmulator } = await import('../../../src-main/emulator/index');
    await expect(startEmulator({ port: 0, dialect: 'nope' })).rejects.toThrow(/unknown dialect "nope"/);
    const emu = await startEmulator({
      port: 0,
      dialect: 'flat-errors',
      seed: { teams: [{ id: 't', apiKey: KEY, agents: [{ agentId: 'a' }] }] },
    });
    try {
      const r = await client(emu, KEY).send('a', { to: '+15550102000', text: 'x' });
      expect(r.body).toEqual({ code: 'CHANNEL_NOT_CONFIGURED', message: expect.any(String) });
    } finally {
      await emu.close();
    }
  });
});
