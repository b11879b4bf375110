import { describe, expect, it } from 'vitest';
import { ChatEventDecoder } from '../../../../src-main/core/api/sse';
import type { ChatStreamEvent } from '../../../../src-main/core/api/types';

const SAMPLE = [
  ': keep-alive comment',
  'retry: 3000',
  '',
  'event: token',
  'data: {"token":"Hél"}',
  '',
  'event: token\r\ndata: {"delta":"lo 👋"}\r\n\r',
  'data: {"choices":[{"delta":{"content":" wörld"}}]}',
  '',
  'data: plain 日本',
  '',
  'event: ping',
  'data: {}',
  '',
  'event: token',
  'data: {"text":"!"}',
  'id: 7',
  '',
  'event: done',
  'data: {"reply":"Héllo 👋 wörldplain 日本!","conversationId":"c1","actions":[{"name":"lookup"}],"usage":{"outputTokens":5}}',
  '',
  'event: token',
  'data: {"token":"ignored after done"}',
  '',
  '',
].join('\n');

const BYTES = new TextEncoder().encode(SAMPLE);

function decodeChunks(chunks: Uint8Array[]): ChatStreamEvent[] {
  const d = new ChatEventDecoder();
  const out: ChatStreamEvent[] = [];
  for (const c of chunks) out.push(...d.push(c));
  out.push(...d.end());
  return out;
}

const EXPECTED: ChatStreamEvent[] = [
  { type: 'token', token: 'Hél' },
  { type: 'token', token: 'lo 👋' },
  { type: 'token', token: ' wörld' },
  { type: 'token', token: 'plain 日本' },
  { type: 'token', token: '!' },
  {
    type: 'done',
    result: {
      reply: 'Héllo 👋 wörldplain 日本!',
      conversationId: 'c1',
      actions: [{ name: 'lookup' }],
      usage: { outputTokens: 5 },
      raw: {
        reply: 'Héllo 👋 wörldplain 日本!',
        conversationId: 'c1',
        actions: [{ name: 'lookup' }],
        usage: { outputTokens: 5 },
      },
    },
  },
];

describe('ChatEventDecoder', () => {
  it('decodes the sample in one chunk', () => {
    expect(decodeChunks([BYTES])).toEqual(EXPECTED);
  });

  it('gives identical events when the bytes are split at EVERY offset', () => {
    for (let i = 0; i <= BYTES.length; i++) {
      expect(decodeChunks([BYTES.subarray(0, i), BYTES.subarray(i)]), `split at ${i}`).toEqual(EXPECTED);
    }
  });

  it('gives identical events fed one byte at a time (multi-byte characters split)', () => {
    const chunks = Array.from({ length: BYTES.length }, (_, i) => BYTES.subarray(i, i + 1));
    expect(decodeChunks(chunks)).toEqual(EXPECTED);
  });

  it('ends at data: [DONE] with the accumulated reply', () => {
    const s = new TextEncoder().encode(
      'data: {"content":"a"}\n\ndata: {"content":"b"}\n\ndata: [DONE]\n\ndata: {"content":"c"}\n\n',
    );
    expect(decodeChunks([s])).toEqual([
      { type: 'token', token: 'a' },
      { type: 'token', token: 'b' },
      { type: 'done', result: { reply: 'ab', conversationId: null, actions: [], usage: {} } },
    ]);
  });

  it('synthesises done when the stream just closes (even mid-frame without a blank line)', () => {
    const s = new TextEncoder().encode('event: token\ndata: {"token":"x"}\n\nevent: token\ndata: {"token":"y"}');
    expect(decodeChunks([s])).toEqual([
      { type: 'token', token: 'x' },
      { type: 'token', token: 'y' },
      { type: 'done', result: { reply: 'xy', conversationId: null, actions: [], usage: {} } },
    ]);
  });

  it.each(['end', 'complete'])('event: %s ends the stream; a done without a reply keeps the tokens', (name) => {
    const s = new TextEncoder().encode(
      `data: {"token":"hi"}\n\nevent: ${name}\ndata: {"conversation_id":"k","tokens":3}\n\n`,
    );
    const ev = decodeChunks([s]);
    expect(ev[1]).toMatchObject({
      type: 'done',
      result: { reply: 'hi', conversationId: 'k', usage: { totalTokens: 3 } },
    });
    expect(ev).toHaveLength(2);
  });

  it('event: error → error event with code and message from the body', () => {
    const s = new TextEncoder().encode(
      'data: {"token":"par"}\n\nevent: error\ndata: {"error":{"code":"UPSTREAM_FAILED","message":"model died"}}\n\ndata: {"token":"more"}\n\n',
    );
    expect(decodeChunks([s])).toEqual([
      { type: 'token', token: 'par' },
      { type: 'error', code: 'UPSTREAM_FAILED', message: 'model died' },
    ]);
    const flat = decodeChunks([
      new TextEncoder().encode('event: error\ndata: {"code":"X","message":"m","status":502}\n\n'),
    ]);
    expect(flat).toEqual([{ type: 'error', code: 'X', message: 'm', status: 502 }]);
    const plain = decodeChunks([new TextEncoder().encode('event: error\ndata: it broke\n\n')]);
    expect(plain).toEqual([{ type: 'error', code: 'STREAM_ERROR', message: 'it broke' }]);
  });
});
