import { describe, expect, it } from 'vitest';
import { mapErrorResponse, readErrorBody } from '../../../../src-main/core/api/error-map';
import { parseChatResult, parseContactCheck, parseSessionStatus, parseSettings, parseWebhookConfig } from '../../../../src-main/core/api/parse';
import { parseRateLimit } from '../../../../src-main/core/api/rate-limit';

describe('readErrorBody', () => {
  it.each([
    [{ error: { code: 'A', message: 'm' } }, { code: 'A', message: 'm' }],
    [{ code: 'B', message: 'm2' }, { code: 'B', message: 'm2' }],
    [{ error: 'C' }, { code: 'C' }],
    [{ error: 'C', message: 'flat' }, { code: 'C', message: 'flat' }],
    [undefined, {}],
    ['text', {}],
    [[1], {}],
    [{ error: { code: 5 } }, {}],
  ])('%j', (body, out) => {
    expect(readErrorBody(body)).toEqual(out);
  });

  it('mapErrorResponse redacts the secret from code and message', () => {
    const e = mapErrorResponse(400, JSON.stringify({ error: { code: 'BAD_sekrit', message: 'key sekrit is bad' } }), {}, 'sekrit');
    expect(e.message).toBe('key [redacted] is bad');
    expect(e.code).toBe('BAD_[redacted]');
  });
});

describe('parseRateLimit', () => {
  it('reads all four headers; Retry-After as seconds or HTTP date', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRateLimit({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1704067260', 'retry-after': '5' }, now)).toEqual({ limit: 60, remaining: 3, reset: 1704067260, retryAfter: 5 });
    expect(parseRateLimit({ 'retry-after': 'Mon, 01 Jan 2024 00:00:30 GMT' }, now)).toEqual({ retryAfter: 30 });
    expect(parseRateLimit({ 'x-ratelimit-limit': 'lots' }, now)).toEqual({});
  });
});

describe('tolerant parsers', () => {
  it('session: decides needsScan when absent, strips + from phone, keeps unknown state', () => {
    expect(parseSessionStatus({ connected: false, qr: 'data:x' })).toEqual({ connected: false, linked: false, state: 'unknown', needsScan: true, phone: null, qr: 'data:x' });
    expect(parseSessionStatus({ connected: true, phone: '+15550100001', state: 'CONNECTED_V2' })).toMatchObject({ linked: true, needsScan: false, phone: '15550100001', state: 'CONNECTED_V2' });
    expect(parseSessionStatus({ connected: 'yes', needsScan: false, linked: true, state: 'reconnecting' })).toMatchObject({ connected: false, needsScan: false, linked: true });
  });
  it('webhook, contact and settings fallbacks', () => {
    expect(parseWebhookConfig({ signing_secret: 's' }, 'https://h')).toEqual({ mode: 'passthrough', url: 'https://h', secret: 's' });
    expect(parseContactCheck({ exists: true }, '15550102000')).toEqual({ phone: '15550102000', exists: true, jid: '15550102000@s.whatsapp.net' });
    expect(parseSettings({ settings: { read_receipts: true } }, { groups: true })).toEqual({ groups: true, readReceipts: true, deliveryReceipts: false });
  });
  it.each([
    [{ reply: 'a' }, 'a'],
    [{ message: 'b' }, 'b'],
    [{ text: 'c' }, 'c'],
    [{ content: 'd' }, 'd'],
    [{ response: 'e' }, 'e'],
    [{ message: { role: 'assistant', content: 'f' } }, 'f'],
    [{}, ''],
  ])('chat reply from %j', (body, reply) => {
    expect(parseChatResult(body).reply).toBe(reply);
  });
  it('chat usage from usage / tokens / tokensUsed', () => {
    expect(parseChatResult({ usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }).usage).toEqual({ inputTokens: 1, outputTokens: 2, totalTokens: 3 });
    expect(parseChatResult({ usage: { prompt_tokens: 4, completion_tokens: 5 } }).usage).toEqual({ inputTokens: 4, outputTokens: 5, totalTokens: 9 });
    expect(parseChatResult({ tokens: 12 }).usage).toEqual({ totalTokens: 12 });
    expect(parseChatResult({ tokensUsed: { total: 8 } }).usage).toEqual({ totalTokens: 8 });
    expect(parseChatResult({ conversationId: 'c1', conversation_id: 'c2' }).conversationId).toBe('c1');
  });
});
