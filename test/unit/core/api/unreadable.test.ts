// No code path of the client returns an empty success: the same unknown shapes are fed, over HTTP,
// to every reader (session, send, webhook, contacts, settings, chat JSON, chat stream); each answers
// with an error carrying the raw response (status, content type, first bytes, or the frames).
import { afterEach, describe, expect, it } from 'vitest';
import { UnreadableResponse, type ServiceError } from '../../../../src-main/core/api/errors';
import type { ServiceClient } from '../../../../src-main/core/api/service';
import type { ChatStreamEvent } from '../../../../src-main/core/api/types';
import { KEY, setup } from './mock';

const A = '/api/v1/agents/agent-1';
let env: ReturnType<typeof setup> | undefined;
afterEach(async () => {
  await env?.agent.close();
  env = undefined;
});

interface Shape {
  name: string;
  body: string;
  type: string | null;
}

const SHAPES: Shape[] = [
  { name: 'an empty JSON object', body: '{}', type: 'application/json' },
  { name: 'an unknown object', body: '{"foo":"bar","ok":1}', type: 'application/json' },
  { name: 'an unknown wrapped object', body: '{"data":{"x":1}}', type: 'application/json' },
  { name: 'a JSON array', body: '[1,2]', type: 'application/json' },
  { name: 'an HTML page', body: '<html><body>Sign in</body></html>', type: 'text/html' },
  {
    name: 'an error body with 200',
    body: `{"error":{"code":"E_UNKNOWN","message":"no such thing ${KEY}"}}`,
    type: 'application/json',
  },
];

type Reader = [string, string, string, (c: ServiceClient) => Promise<unknown>];

const READERS: Reader[] = [
  ['session', 'GET', `${A}/whatsapp/session`, (c) => c.getSession('agent-1')],
  ['send', 'POST', `${A}/whatsapp/messages`, (c) => c.send('agent-1', { to: '+15550102000', text: 'x' })],
  ['webhook', 'PUT', `${A}/whatsapp/webhook`, (c) => c.setWebhook('agent-1', 'https://hooks.example/x')],
  ['contacts', 'GET', `${A}/whatsapp/contacts/%2B15550102000`, (c) => c.checkContact('agent-1', '+15550102000')],
  ['settings', 'PATCH', `${A}/whatsapp/settings`, (c) => c.updateSettings('agent-1', { groups: true })],
  ['chat JSON', 'POST', `${A}/chat`, (c) => c.chat('agent-1', { message: 'x', user_id: 'u' })],
];

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  const r = await p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  if (r.ok) throw new Error(`expected an error, got a success: ${JSON.stringify(r.v)}`);
  return r.e as ServiceError;
}

describe('every reader refuses an unknown shape, showing what came', () => {
  for (const [reader, method, path, call] of READERS) {
    for (const shape of SHAPES) {
      it(`${reader}: ${shape.name}`, async () => {
        env = setup();
        env.answer(method, path, 200, shape.body, shape.type ? { 'content-type': shape.type } : {});
        const e = await rejection(call(env.client));
        expect(e).toBeInstanceOf(UnreadableResponse);
        expect(e.status).toBe(200);
        expect(e.message).toMatch(/could not (be )?read/);
        expect(e.raw).toMatchObject({ status: 200, contentType: shape.type, bytes: Buffer.byteLength(shape.body) });
        expect(e.raw!.prefix).toBe(shape.body.replace(KEY, '[redacted]'));
        expect(JSON.stringify(e.toDTO())).not.toContain(KEY);
        expect(env.captured).toHaveLength(1);
      });
    }
  }

  it('an error named in a 200 answer is said in the message', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .reply(200, '{"error":{"code":"E_X","message":"broken"}}', { headers: { 'content-type': 'application/json' } });
    expect((await rejection(env.client.getSession('agent-1'))).message).toMatch(/It said: E_X: broken\./);
  });

  for (const shape of [
    ...SHAPES,
    { name: 'an empty body', body: '', type: 'text/event-stream' },
    { name: 'only heartbeats', body: ': ping\n\n: ping\n\n', type: 'text/event-stream' },
  ]) {
    it(`chat stream: ${shape.name}`, async () => {
      env = setup();
      env.pool
        .intercept({ method: 'POST', path: `${A}/chat` })
        .reply(200, shape.body, { headers: shape.type ? { 'content-type': shape.type } : {} });
      const events: ChatStreamEvent[] = [];
      for await (const ev of env.client.chatStream('agent-1', { message: 'x', user_id: 'u' })) events.push(ev);
      expect(events.some((e) => e.type === 'done')).toBe(false);
      expect(events.at(-1)).toMatchObject({
        type: 'error',
        status: 200,
        raw: { status: 200, contentType: shape.type },
      });
      expect(JSON.stringify(events)).not.toContain(KEY);
    });
  }

  it('a plain-text chat answer is the reply itself', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: `${A}/chat` })
      .reply(200, 'Hello there', { headers: { 'content-type': 'text/plain' } });
    expect(await env.client.chat('agent-1', { message: 'x', user_id: 'u' })).toEqual({
      reply: 'Hello there',
      conversationId: null,
      actions: [],
      usage: {},
    });
  });

  it('an empty 2xx answer to a settings change gives the values sent, marked unconfirmed', async () => {
    env = setup();
    env.pool.intercept({ method: 'PATCH', path: `${A}/whatsapp/settings` }).reply(204, '');
    expect(await env.client.updateSettings('agent-1', { readReceipts: true })).toEqual({
      groups: false,
      readReceipts: true,
      deliveryReceipts: false,
      unconfirmed: true,
    });
  });
});
