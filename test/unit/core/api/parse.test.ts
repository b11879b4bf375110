import { describe, expect, it } from 'vitest';
import {
  ChannelNotConfigured,
  ChannelReconnecting,
  InvalidRequest,
  RateLimited,
  ServerError,
} from '../../../../src-main/core/api/errors';
import { mapErrorResponse, readErrorBody } from '../../../../src-main/core/api/error-map';
import { parseChatResult } from '../../../../src-main/core/api/chat-answer';
import {
  parseContactCheck,
  parseSendResult,
  parseSessionStatus,
  parseSettings,
  parseWebhookConfig,
  ShapeError,
} from '../../../../src-main/core/api/parse';
import { parseRateLimit } from '../../../../src-main/core/api/rate-limit';

describe('readErrorBody: every error-body shape', () => {
  it.each([
    [{ error: { code: 'A', message: 'm' } }, { code: 'A', message: 'm' }],
    [
      { code: 'B', message: 'm2' },
      { code: 'B', message: 'm2' },
    ],
    [{ error: 'C' }, { code: 'C' }],
    [
      { error: 'C', message: 'flat' },
      { code: 'C', message: 'flat' },
    ],
    [{ errors: [{ code: 'D', message: 'first' }, { code: 'E' }] }, { code: 'D', message: 'first' }],
    [{ error: 'The number is not linked' }, { message: 'The number is not linked' }],
    [
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      { code: 'overloaded_error', message: 'Overloaded' },
    ],
    [{ title: 'Unavailable', detail: 'try later' }, { message: 'try later' }],
    [{ error: { code: 503, status: 'UNAVAILABLE', message: 'busy' } }, { code: 'UNAVAILABLE', message: 'busy' }],
    [undefined, {}],
    ['text', {}],
    [[1], {}],
    [{ error: { code: 5 } }, {}],
  ])('%j', (body, out) => {
    expect(readErrorBody(body)).toEqual(out);
  });

  // A 400 with nothing readable is INVALID_REQUEST, "The request was rejected (HTTP 400).".
  it.each([
    ['CHANNEL_RECONNECTING', { code: 'CHANNEL_RECONNECTING', message: 'The request was rejected (HTTP 400).' }],
    ['CHANNEL_RECONNECTING: back soon\n', { code: 'CHANNEL_RECONNECTING', message: 'back soon' }],
    ['QUOTA_LOW — top up\nsecond line', { code: 'QUOTA_LOW', message: 'top up' }],
    ['Service Unavailable', { code: 'INVALID_REQUEST', message: 'Service Unavailable' }],
    ['<html><body>502</body></html>', { code: 'INVALID_REQUEST', message: 'The request was rejected (HTTP 400).' }],
    ['', { code: 'INVALID_REQUEST', message: 'The request was rejected (HTTP 400).' }],
  ])('text body %j', (text, out) => {
    const e = mapErrorResponse(400, text, {});
    expect({ code: e.code, message: e.message }).toEqual(out);
  });

  it('mapErrorResponse redacts the secret from code and message', () => {
    const e = mapErrorResponse(
      400,
      JSON.stringify({ error: { code: 'BAD_sekrit', message: 'key sekrit is bad' } }),
      {},
      'sekrit',
    );
    expect(e.message).toBe('key [redacted] is bad');
    expect(e.code).toBe('BAD_[redacted]');
  });
});

describe('mapErrorResponse: a status keeps its meaning when the code cannot be read', () => {
  it.each([
    ['no body', ''],
    ['a text body', 'Service Unavailable'],
    ['an HTML page', '<html>busy</html>'],
    ['JSON of another shape', '{"status":"unavailable"}'],
    ['the errors array', '{"errors":[{"code":"CHANNEL_RECONNECTING","message":"soon"}]}'],
    ['a string error', '{"error":"CHANNEL_RECONNECTING"}'],
  ])('503 with %s → ChannelReconnecting (retried by send)', (_what, body) => {
    const e = mapErrorResponse(503, body, {});
    expect(e).toBeInstanceOf(ChannelReconnecting);
    expect(e.retryable).toBe(true);
  });

  it('503 with another readable code is a server error (send still retries it by its status)', () => {
    const e = mapErrorResponse(503, '{"code":"MAINTENANCE"}', {});
    expect(e).toBeInstanceOf(ServerError);
    expect(e.status).toBe(503);
  });

  it.each(['', 'Conflict', '<html>409</html>', '{"weird":true}'])('409 with %j → ChannelNotConfigured', (body) => {
    expect(mapErrorResponse(409, body, {})).toBeInstanceOf(ChannelNotConfigured);
  });

  it('keeps an unreadable body as raw (status, content type, first bytes), never the key', () => {
    const e = mapErrorResponse(500, '<html>oops key-123 here</html>', {}, 'key-123', 'text/html');
    expect(e.raw).toEqual({
      status: 500,
      contentType: 'text/html',
      bytes: 30,
      prefix: '<html>oops [redacted] here</html>',
    });
    expect(mapErrorResponse(500, '{"code":"X"}', {}).raw).toBeUndefined();
    expect(mapErrorResponse(429, '', {})).toBeInstanceOf(RateLimited);
    expect(mapErrorResponse(422, 'bad number', {})).toMatchObject({ message: 'bad number' });
    expect(mapErrorResponse(422, 'bad number', {})).toBeInstanceOf(InvalidRequest);
  });
});

describe('parseRateLimit: every header form', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');
  const nowSec = now / 1000;

  it('reads all four headers; Retry-After as seconds or an HTTP date', () => {
    expect(
      parseRateLimit(
        {
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '3',
          'x-ratelimit-reset': '1704067260',
          'retry-after': '5',
        },
        now,
      ),
    ).toEqual({
      limit: 60,
      remaining: 3,
      reset: 1704067260,
      retryAfter: 5,
    });
    expect(parseRateLimit({ 'retry-after': 'Mon, 01 Jan 2024 00:00:30 GMT' }, now)).toEqual({ retryAfter: 30 });
    expect(parseRateLimit({ 'x-ratelimit-limit': 'lots' }, now)).toEqual({});
  });

  it('X-RateLimit-Reset: unix seconds, unix milliseconds, or seconds until the reset, told apart by size', () => {
    expect(parseRateLimit({ 'x-ratelimit-reset': String(nowSec + 42) }, now).reset).toBe(nowSec + 42);
    expect(parseRateLimit({ 'x-ratelimit-reset': String(now + 42_000) }, now).reset).toBe(nowSec + 42);
    expect(parseRateLimit({ 'x-ratelimit-reset': '42' }, now).reset).toBe(nowSec + 42);
    expect(parseRateLimit({ 'x-ratelimit-reset': '0.5' }, now).reset).toBe(nowSec + 1);
  });

  it('header names in any case, with or without X-, and list values', () => {
    expect(
      parseRateLimit({ 'X-RateLimit-Limit': '60', 'X-RATELIMIT-REMAINING': '1', 'Retry-After': '3' }, now),
    ).toEqual({ limit: 60, remaining: 1, retryAfter: 3 });
    expect(parseRateLimit({ 'ratelimit-limit': '100, 100;w=60', 'ratelimit-reset': '30' }, now)).toEqual({
      limit: 100,
      reset: nowSec + 30,
    });
    expect(parseRateLimit({ 'x-ratelimit-limit': ['60', '61'] }, now)).toEqual({ limit: 60 });
  });

  it('X-RateLimit-Reset as a date, Retry-After-Ms', () => {
    expect(parseRateLimit({ 'x-ratelimit-reset': '2024-01-01T00:01:00Z' }, now)).toEqual({ reset: nowSec + 60 });
    expect(parseRateLimit({ 'retry-after-ms': '1500' }, now)).toEqual({ retryAfter: 2 });
  });

  it('a Retry-After that is not ahead of now is left out (the caller backs off)', () => {
    expect(parseRateLimit({ 'retry-after': 'Sun, 31 Dec 2023 23:59:00 GMT' }, now)).toEqual({});
    expect(parseRateLimit({ 'retry-after': '0' }, now)).toEqual({});
  });

  it('RateLimited.retryAfterSeconds: a reset in the past gives nothing, never 0', () => {
    const past = new RateLimited({ rateLimit: { reset: nowSec - 10 } });
    expect(past.retryAfterSeconds(nowSec)).toBeUndefined();
    expect(new RateLimited({ rateLimit: { reset: nowSec + 10 } }).retryAfterSeconds(nowSec)).toBe(10);
    expect(new RateLimited({ rateLimit: { retryAfter: 4, reset: nowSec + 10 } }).retryAfterSeconds(nowSec)).toBe(4);
  });
});

function shapeError(fn: () => unknown): ShapeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ShapeError) return e;
    throw e;
  }
  throw new Error('expected a ShapeError');
}

describe('readers: tolerant of shapes, never an empty success', () => {
  it('session: decides needsScan when absent, strips + from phone, keeps unknown state, looks through one wrapper', () => {
    expect(parseSessionStatus({ connected: false, qr: 'data:x' })).toEqual({
      connected: false,
      linked: false,
      state: 'unknown',
      needsScan: true,
      phone: null,
      qr: 'data:x',
    });
    expect(parseSessionStatus({ connected: true, phone: '+15550100001', state: 'CONNECTED_V2' })).toMatchObject({
      linked: true,
      needsScan: false,
      phone: '15550100001',
      state: 'CONNECTED_V2',
    });
    expect(
      parseSessionStatus({ connected: 'yes', needsScan: false, linked: true, state: 'reconnecting' }),
    ).toMatchObject({ connected: false, needsScan: false, linked: true });
    expect(parseSessionStatus({ data: { state: 'connected', phone: '15550100001' } })).toMatchObject({
      connected: true,
      linked: true,
      needsScan: false,
    });
  });

  it('webhook, contact and settings fallbacks', () => {
    expect(parseWebhookConfig({ signing_secret: 's' }, 'https://h')).toEqual({
      mode: 'passthrough',
      url: 'https://h',
      secret: 's',
    });
    expect(parseWebhookConfig({ webhook: { url: 'https://h', secret: 's2' } }, 'https://x')).toEqual({
      mode: 'passthrough',
      url: 'https://h',
      secret: 's2',
    });
    expect(parseContactCheck({ exists: true }, '15550102000')).toEqual({
      phone: '15550102000',
      exists: true,
      jid: '15550102000@s.whatsapp.net',
    });
    expect(
      parseContactCheck(
        { contacts: [{ input: '+15550102000', status: 'valid', wa_id: '15550102000' }] },
        '15550102000',
      ),
    ).toEqual({
      phone: '15550102000',
      exists: true,
      jid: '15550102000@s.whatsapp.net',
    });
    expect(parseContactCheck({ data: { onWhatsApp: false } }, '15550102000')).toMatchObject({ exists: false });
    expect(parseContactCheck({ exists: 'true' }, '15550102000')).toMatchObject({ exists: true });
    expect(parseSettings({ settings: { read_receipts: true } }, { groups: true })).toEqual({
      groups: true,
      readReceipts: true,
      deliveryReceipts: false,
    });
  });

  it('settings: an answer that only acknowledges gives the values sent, marked unconfirmed', () => {
    expect(parseSettings(undefined, { groups: true })).toEqual({
      groups: true,
      readReceipts: false,
      deliveryReceipts: false,
      unconfirmed: true,
    });
    expect(parseSettings({ ok: true }, { readReceipts: true })).toMatchObject({
      readReceipts: true,
      unconfirmed: true,
    });
  });

  it('send: the message id in any of its places; a failed status is an error', () => {
    expect(parseSendResult({ messageId: 'm1' }, '+1555')).toEqual({ status: 'sent', messageId: 'm1', to: '+1555' });
    expect(parseSendResult({ messages: [{ id: 'wamid.X' }] }, '+1555')).toMatchObject({ messageId: 'wamid.X' });
    expect(parseSendResult({ data: { message_id: 'm2', status: 'queued' } }, '+1555')).toMatchObject({
      messageId: 'm2',
      status: 'queued',
    });
    expect(shapeError(() => parseSendResult({ status: 'failed' }, '+1555')).code).toBe('SEND_FAILED');
  });

  // The same unknown shapes fed to every reader: each must refuse, none may answer an empty success.
  const UNKNOWN: unknown[] = [undefined, {}, { foo: 'bar' }, { data: { foo: 1 } }, [], ['x'], 'just text', 42, null];
  const readers: Array<[string, (b: unknown) => unknown]> = [
    ['session', parseSessionStatus],
    ['send', (b) => parseSendResult(b, '+15550102000')],
    ['webhook', (b) => parseWebhookConfig(b, 'https://h.example')],
    ['contacts', (b) => parseContactCheck(b, '15550102000')],
    ['settings', (b) => parseSettings(b === undefined ? { unknown: true } : b, { groups: true })],
    ['chat', parseChatResult],
  ];
  for (const [name, read] of readers) {
    it.each(UNKNOWN.map((u) => [u]))(`${name} refuses %j`, (body) => {
      expect(shapeError(() => read(body)).message).toMatch(/could not (be )?read/);
    });
  }
});

describe('chat JSON: every dialect of the reply', () => {
  it.each([
    [{ reply: 'a' }, 'a'],
    [{ message: 'b' }, 'b'],
    [{ text: 'c' }, 'c'],
    [{ content: 'd' }, 'd'],
    [{ response: 'e' }, 'e'],
    [{ answer: 'f' }, 'f'],
    [{ output: 'g' }, 'g'],
    [{ message: { role: 'assistant', content: 'h' } }, 'h'],
    [{ choices: [{ index: 0, message: { role: 'assistant', content: 'i' }, finish_reason: 'stop' }] }, 'i'],
    [
      {
        content: [
          { type: 'text', text: 'j' },
          { type: 'tool_use', name: 'x' },
        ],
      },
      'j',
    ],
    [{ output: [{ type: 'message', content: [{ type: 'output_text', text: 'k' }] }] }, 'k'],
    [{ data: { answer: 'l' } }, 'l'],
    [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'm' },
          { role: 'user', content: 'later' },
        ],
      },
      'm',
    ],
  ])('reply from %j', (body, reply) => {
    expect(parseChatResult(body).reply).toBe(reply);
  });

  it.each([
    [{}],
    [{ reply: '' }],
    [{ reply: '   ' }],
    [{ conversationId: 'c1', actions: [{ name: 'x' }] }],
    [{ choices: [] }],
  ])('no reply text in %j is UNREADABLE_REPLY', (body) => {
    expect(shapeError(() => parseChatResult(body)).code).toBe('UNREADABLE_REPLY');
  });

  it('actions under actions / actionsCalled / actions_called / tool_calls', () => {
    expect(parseChatResult({ reply: 'x', actions: [{ name: 'a' }] }).actions).toEqual([{ name: 'a' }]);
    expect(parseChatResult({ reply: 'x', actionsCalled: ['b'] }).actions).toEqual([{ name: 'b' }]);
    expect(parseChatResult({ reply: 'x', actions_called: [{ action: 'c' }] }).actions).toEqual([
      { action: 'c', name: 'c' },
    ]);
    expect(
      parseChatResult({ reply: 'x', tool_calls: [{ id: 't', type: 'function', function: { name: 'd' } }] }).actions.map(
        (a) => a.name,
      ),
    ).toEqual(['d']);
    expect(
      parseChatResult({
        choices: [
          { message: { content: 'x', tool_calls: [{ type: 'function', function: { name: 'e', arguments: '{}' } }] } },
        ],
      }).actions.map((a) => a.name),
    ).toEqual(['e']);
  });

  it('tokens under usage.* / tokens / tokensUsed / tokens_used, conversation id in its forms', () => {
    expect(parseChatResult({ reply: 'x', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }).usage).toEqual({
      inputTokens: 1,
      outputTokens: 2,
      totalTokens: 3,
    });
    expect(parseChatResult({ reply: 'x', usage: { prompt_tokens: 4, completion_tokens: 5 } }).usage).toEqual({
      inputTokens: 4,
      outputTokens: 5,
      totalTokens: 9,
    });
    expect(parseChatResult({ reply: 'x', usage: { input_tokens: 6, output_tokens: 1 } }).usage).toEqual({
      inputTokens: 6,
      outputTokens: 1,
      totalTokens: 7,
    });
    expect(parseChatResult({ reply: 'x', tokens: 12 }).usage).toEqual({ totalTokens: 12 });
    expect(parseChatResult({ reply: 'x', tokensUsed: { total: 8 } }).usage).toEqual({ totalTokens: 8 });
    expect(parseChatResult({ reply: 'x', tokens_used: 9 }).usage).toEqual({ totalTokens: 9 });
    expect(parseChatResult({ answer: 'x', metadata: { usage: { total_tokens: 10 } } }).usage).toEqual({
      totalTokens: 10,
    });
    expect(parseChatResult({ reply: 'x', conversationId: 'c1', conversation_id: 'c2' }).conversationId).toBe('c1');
    expect(parseChatResult({ reply: 'x', conversation_id: 'c2' }).conversationId).toBe('c2');
  });
});
