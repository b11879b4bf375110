import { afterEach, describe, expect, it } from 'vitest';
import {
  Aborted,
  ChannelNotConfigured,
  ChannelReconnecting,
  InvalidRequest,
  NetworkError,
  NotFound,
  QuotaExceeded,
  RateLimited,
  ServerError,
  Timeout,
  KeyRejected,
  UnreadableResponse,
  type ServiceError,
} from '../../../../src-main/core/api/errors';
import { KEY, setup } from './mock';

const A = '/api/v1/agents/agent-1';
let env: ReturnType<typeof setup>;
afterEach(async () => {
  await env?.agent.close();
});

async function caught(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error('expected a rejection');
}

describe('endpoints: method, path, headers, body', () => {
  it('startPairing POSTs with no body, bearer key, and returns the status object if present', async () => {
    env = setup();
    env.answer('POST', `${A}/whatsapp/session`, 202, {
      state: 'pairing',
      connected: false,
      linked: false,
      needsScan: true,
      qr: 'data:image/png;base64,AA',
      phone: null,
    });
    const s = await env.client.startPairing('agent-1');
    expect(s).toEqual({
      state: 'pairing',
      connected: false,
      linked: false,
      needsScan: true,
      qr: 'data:image/png;base64,AA',
      phone: null,
    });
    const c = env.captured[0]!;
    expect(c.method).toBe('POST');
    expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(c.body ?? '').toBe('');
  });

  it('startPairing with an empty reply returns null', async () => {
    env = setup();
    env.answer('POST', `${A}/whatsapp/session`, 202);
    expect(await env.client.startPairing('agent-1')).toBeNull();
  });

  it('getSession keeps an unknown state and reads live', async () => {
    env = setup();
    env.answer(
      'GET',
      `${A}/whatsapp/session`,
      200,
      {
        state: 'warming-up',
        connected: false,
        linked: true,
        needsScan: false,
        qr: null,
        phone: '15550100001',
        live: true,
        extra: 1,
      },
      { 'x-ratelimit-limit': '60' },
    );
    const s = await env.client.getSession('agent-1');
    expect(s).toEqual({
      state: 'warming-up',
      connected: false,
      linked: true,
      needsScan: false,
      qr: null,
      phone: '15550100001',
      live: true,
    });
    expect(env.client.rateLimit).toEqual({ limit: 60 });
  });

  it('send normalises the recipient and posts JSON', async () => {
    env = setup();
    env.answer('POST', `${A}/whatsapp/messages`, 200, {
      status: 'sent',
      messageId: 'm1',
      to: '+15550102000',
      type: 'text',
      timestamp: '2024-01-01T00:00:00Z',
      other: true,
    });
    const r = await env.client.send('agent-1', { to: '+1 (555) 010-2000', text: 'hi' });
    expect(r).toEqual({
      status: 'sent',
      messageId: 'm1',
      to: '+15550102000',
      type: 'text',
      timestamp: '2024-01-01T00:00:00Z',
    });
    const c = env.captured[0]!;
    expect(c.headers['content-type']).toBe('application/json');
    expect(JSON.parse(c.body!)).toEqual({ to: '+15550102000', text: 'hi' });
  });

  it('send of a document carries url and filename', async () => {
    env = setup();
    env.answer('POST', `${A}/whatsapp/messages`, 200, { status: 'sent', messageId: 'm2', to: 'x' });
    await env.client.send('agent-1', {
      to: '120363000000000001@g.us',
      text: 'cap',
      documentUrl: 'https://files.example/a.pdf',
      documentFilename: 'a.pdf',
    });
    expect(JSON.parse(env.captured[0]!.body!)).toEqual({
      to: '120363000000000001@g.us',
      text: 'cap',
      documentUrl: 'https://files.example/a.pdf',
      documentFilename: 'a.pdf',
    });
  });

  it('setWebhook PUTs {url} and reads mode/url/secret', async () => {
    env = setup();
    env.answer('PUT', `${A}/whatsapp/webhook`, 200, {
      mode: 'passthrough',
      url: 'https://hook.example/x',
      secret: 'whsec_1',
      events: ['message.received'],
      updatedAt: 't',
    });
    const w = await env.client.setWebhook('agent-1', 'https://hook.example/x');
    expect(w).toEqual({
      mode: 'passthrough',
      url: 'https://hook.example/x',
      secret: 'whsec_1',
      events: ['message.received'],
      updatedAt: 't',
    });
    expect(env.captured[0]!.method).toBe('PUT');
    expect(JSON.parse(env.captured[0]!.body!)).toEqual({ url: 'https://hook.example/x' });
  });

  it('checkContact GETs the number in the path as `to` is sent: + percent-encoded', async () => {
    env = setup();
    env.answer('GET', `${A}/whatsapp/contacts/%2B15550102000`, 200, {
      phone: '15550102000',
      exists: true,
      jid: '15550102000@s.whatsapp.net',
    });
    expect(await env.client.checkContact('agent-1', '+1 555 010 2000')).toEqual({
      phone: '15550102000',
      exists: true,
      jid: '15550102000@s.whatsapp.net',
    });
    expect(env.captured[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('updateSettings PATCHes only the given switches and shows the reply', async () => {
    env = setup();
    env.answer('PATCH', `${A}/whatsapp/settings`, 200, { groups: true, readReceipts: false, deliveryReceipts: true });
    expect(await env.client.updateSettings('agent-1', { groups: true })).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: true,
    });
    expect(JSON.parse(env.captured[0]!.body!)).toEqual({ groups: true });
  });

  it('chat POSTs {message,user_id} and reads alternative field names', async () => {
    env = setup();
    env.answer('POST', `${A}/chat`, 200, {
      response: 'Hello!',
      conversation_id: 42,
      actions: ['lookup', { name: 'book', id: 1 }],
      tokensUsed: 17,
    });
    const r = await env.client.chat('agent-1', { message: 'hi', user_id: 'u1' });
    expect(r.reply).toBe('Hello!');
    expect(r.conversationId).toBe('42');
    expect(r.actions).toEqual([{ name: 'lookup' }, { name: 'book', id: 1 }]);
    expect(r.usage).toEqual({ totalTokens: 17 });
    expect(JSON.parse(env.captured[0]!.body!)).toEqual({ message: 'hi', user_id: 'u1' });
  });

  it('encodes the agent id in the path', async () => {
    env = setup();
    env.answer('GET', '/api/v1/agents/a%2Fb/whatsapp/session', 200, {
      connected: true,
      linked: true,
      state: 'connected',
      needsScan: false,
      qr: null,
      phone: '1',
    });
    expect((await env.client.getSession('a/b')).connected).toBe(true);
  });
});

describe('input rejected before any request', () => {
  it.each([
    [{ to: '', text: 'x' }, /"to" is required/],
    [{ to: '+15550102000' }, /no content/],
    [{ to: '+15550102000', text: '   ' }, /no content/],
    [{ to: '+15550102000', imageUrl: 'https://a/x.png', documentUrl: 'https://a/x.pdf' }, /not both/],
    [{ to: '+15550102000', imageUrl: 'ftp://a/x.png' }, /http\(s\)/],
    [{ to: '+15550102000', documentUrl: 'not a url' }, /not a valid URL/],
    [{ to: 'abc', text: 'x' }, /letters/],
  ])('send %j', async (req, msg) => {
    env = setup();
    const e = await caught(env.client.send('agent-1', req as never));
    expect(e).toBeInstanceOf(InvalidRequest);
    expect(e.message).toMatch(msg);
    expect(env.captured).toHaveLength(0);
  });

  it('rejects an empty agent id, bad webhook url, empty settings, empty chat', async () => {
    env = setup();
    await expect(env.client.getSession('')).rejects.toBeInstanceOf(InvalidRequest);
    await expect(env.client.setWebhook('a', 'file:///etc/passwd')).rejects.toBeInstanceOf(InvalidRequest);
    await expect(env.client.updateSettings('a', {})).rejects.toBeInstanceOf(InvalidRequest);
    await expect(env.client.chat('a', { message: ' ', user_id: 'u' })).rejects.toBeInstanceOf(InvalidRequest);
    expect(env.captured).toHaveLength(0);
  });
});

describe('error mapping over HTTP', () => {
  const cases: Array<[number, unknown, Record<string, string>, new (...a: never[]) => ServiceError, string]> = [
    [401, { error: { code: 'UNAUTHORIZED', message: 'bad key' } }, {}, KeyRejected, 'UNAUTHORIZED'],
    [403, undefined, {}, KeyRejected, 'UNAUTHORIZED'],
    [402, { code: 'QUOTA_EXCEEDED', message: 'quota' }, {}, QuotaExceeded, 'QUOTA_EXCEEDED'],
    [429, { error: 'MONTHLY_QUOTA_EXHAUSTED' }, {}, QuotaExceeded, 'MONTHLY_QUOTA_EXHAUSTED'],
    [404, { error: { code: 'AGENT_NOT_FOUND', message: 'no agent' } }, {}, NotFound, 'AGENT_NOT_FOUND'],
    [400, { error: 'X' }, {}, InvalidRequest, 'X'],
    [
      422,
      '<html><body>Unprocessable</body></html>',
      { 'content-type': 'text/html' },
      InvalidRequest,
      'INVALID_REQUEST',
    ],
    [
      409,
      { error: { code: 'CHANNEL_NOT_CONFIGURED', message: 'scan' } },
      {},
      ChannelNotConfigured,
      'CHANNEL_NOT_CONFIGURED',
    ],
    [500, '<html>oops</html>', { 'content-type': 'text/html' }, ServerError, 'SERVER_ERROR'],
    [502, undefined, {}, ServerError, 'SERVER_ERROR'],
    [503, { code: 'MAINTENANCE' }, {}, ServerError, 'MAINTENANCE'],
  ];
  it.each(cases)('HTTP %i %j → class', async (status, body, headers, cls, code) => {
    env = setup();
    env.answer('GET', `/api/v1/agents/agent-1/whatsapp/session`, status, body, {
      'x-ratelimit-limit': '60',
      ...headers,
    });
    const e = await caught(env.client.getSession('agent-1'));
    expect(e).toBeInstanceOf(cls);
    expect(e.status).toBe(status);
    expect(e.code).toBe(code);
    expect(e.rateLimit.limit).toBe(60);
    expect(e.toDTO().kind).toBe(e.kind);
  });

  it('503 CHANNEL_RECONNECTING (nested and flat) → ChannelReconnecting', async () => {
    env = setup();
    env.answer('GET', `${A}/whatsapp/session`, 503, { error: { code: 'CHANNEL_RECONNECTING', message: 'back soon' } });
    env.answer('GET', `${A}/whatsapp/session`, 503, { code: 'CHANNEL_RECONNECTING' });
    const e1 = await caught(env.client.getSession('agent-1'));
    expect(e1).toBeInstanceOf(ChannelReconnecting);
    expect(e1.message).toBe('back soon');
    expect(await caught(env.client.getSession('agent-1'))).toBeInstanceOf(ChannelReconnecting);
  });

  it('429 keeps Retry-After and X-RateLimit-* on the error', async () => {
    env = setup();
    env.answer('GET', `${A}/whatsapp/session`, 429, undefined, {
      'retry-after': '7',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1700000060',
    });
    const e = await caught(env.client.getSession('agent-1'));
    expect(e).toBeInstanceOf(RateLimited);
    expect(e.rateLimit).toEqual({ limit: 60, remaining: 0, reset: 1700000060, retryAfter: 7 });
    expect(e.toDTO().retryAfterSec).toBe(7);
  });

  it('never puts the API key into an error message, even when the server echoes it', async () => {
    env = setup();
    env.answer('GET', `${A}/whatsapp/session`, 401, {
      error: { code: 'UNAUTHORIZED', message: `key ${KEY} rejected` },
    });
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/contacts/%2B15550102000` })
      .replyWithError(Object.assign(new Error(`socket closed while sending Bearer ${KEY}`), { code: 'ECONNRESET' }))
      .times(2);
    const e1 = await caught(env.client.getSession('agent-1'));
    const p2 = caught(env.client.checkContact('agent-1', '15550102000'));
    await env.clock.advance(1000);
    const e2 = await p2;
    expect(e2).toBeInstanceOf(NetworkError);
    for (const e of [e1, e2]) {
      expect(e.message).not.toContain(KEY);
      expect(JSON.stringify(e.toDTO())).not.toContain(KEY);
      expect(JSON.stringify(e.cause ?? null)).not.toContain(KEY);
    }
    expect(e1.message).toContain('[redacted]');
  });
});

describe('transport failures', () => {
  it('connection error → NetworkError; a GET retries once and can succeed', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    env.answer('GET', `${A}/whatsapp/session`, 200, {
      connected: true,
      linked: true,
      state: 'connected',
      needsScan: false,
      qr: null,
      phone: '1',
    });
    const p = env.client.getSession('agent-1');
    await env.clock.advance(300);
    expect((await p).connected).toBe(true);
  });

  it('a GET gives up after the one retry', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))
      .times(3);
    const p = caught(env.client.getSession('agent-1'));
    await env.clock.advance(300);
    const e = await p;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toBe('The service could not be reached: it refused the connection.');
    expect(e.cause).toMatchObject({ code: 'ECONNREFUSED', detail: 'refused' });
  });

  it('a reset says what happened in words; the transport code and its text stay on the cause', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: `${A}/whatsapp/messages` })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const e = await caught(env.client.send('agent-1', { to: '+15550102000', text: 'x' }));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toBe('The service could not be reached: it closed the connection before answering.');
    expect(e.toDTO()).toMatchObject({ kind: 'network-error', code: 'NETWORK_ERROR' });
    expect(JSON.stringify(e.toDTO())).not.toMatch(/UND_ERR|other side closed/);
    expect(e.cause).toEqual({ name: 'Error', code: 'UND_ERR_SOCKET', detail: 'other side closed' });
  });

  it('a send is not retried after a network error', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'POST', path: `${A}/whatsapp/messages` })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    env.answer('POST', `${A}/whatsapp/messages`, 200, { status: 'sent', messageId: 'never', to: 'x' });
    const p = caught(env.client.send('agent-1', { to: '+15550102000', text: 'x' }));
    await env.clock.advance(60_000);
    expect(await p).toBeInstanceOf(NetworkError);
    expect(env.captured).toHaveLength(0);
  });

  it('per-call timeout → Timeout', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .reply(200, {})
      .delay(5_000);
    const p = caught(env.client.getSession('agent-1', { timeoutMs: 50 }));
    await env.clock.advance(60);
    const e = await p;
    expect(e).toBeInstanceOf(Timeout);
  });

  it('caller abort → Aborted', async () => {
    env = setup();
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .reply(200, {})
      .delay(5_000);
    const ac = new AbortController();
    const p = caught(env.client.getSession('agent-1', { signal: ac.signal }));
    await env.clock.advance(1);
    ac.abort();
    expect(await p).toBeInstanceOf(Aborted);
    const ac2 = new AbortController();
    ac2.abort();
    expect(await caught(env.client.getSession('agent-1', { signal: ac2.signal }))).toBeInstanceOf(Aborted);
  });

  it('one signal reused over many calls: one abort listener for its whole life; aborting it aborts every call still running', async () => {
    env = setup();
    const ac = new AbortController();
    let added = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    ac.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      add(...args);
    }) as AbortSignal['addEventListener'];
    for (let i = 0; i < 3; i++) {
      env.answer('GET', `${A}/whatsapp/session`, 200, { state: 'connected', needsScan: false });
      await env.client.getSession('agent-1', { signal: ac.signal });
    }
    expect(added).toBe(1);
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .reply(200, {})
      .delay(5_000);
    env.pool
      .intercept({ method: 'GET', path: `${A}/whatsapp/session` })
      .reply(200, {})
      .delay(5_000);
    const running = [
      caught(env.client.getSession('agent-1', { signal: ac.signal })),
      caught(env.client.getSession('agent-1', { signal: ac.signal })),
    ];
    await env.clock.advance(1);
    ac.abort();
    for (const e of await Promise.all(running)) expect(e).toBeInstanceOf(Aborted);
    expect(added).toBe(1);
  });

  it('a 2xx answer that is not JSON is UnreadableResponse carrying what came, not a crash', async () => {
    env = setup();
    env.answer('GET', `${A}/whatsapp/session`, 200, '<html>hello</html>', { 'content-type': 'text/html' });
    const e = await caught(env.client.getSession('agent-1'));
    expect(e).toBeInstanceOf(UnreadableResponse);
    expect(e).toMatchObject({ kind: 'server-error', code: 'UNREADABLE_RESPONSE', status: 200 });
    expect(e.raw).toEqual({ status: 200, contentType: 'text/html', bytes: 18, prefix: '<html>hello</html>' });
    expect(e.toDTO().raw).toEqual(e.raw);
  });
});
