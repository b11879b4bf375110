// The token-stream dialects a service may speak, decoded byte by byte and in one chunk, and the
// answers to a stream request that are not SSE at all (JSON, JSON lines, plain text, a page). None
// may end as an empty success: a stream without reply text is an error carrying its frames.
import { afterEach, describe, expect, it } from 'vitest';
import { ChatEventDecoder } from '../../../../src-main/core/api/sse';
import type { ChatStreamEvent } from '../../../../src-main/core/api/types';
import { setup } from './mock';

const enc = (s: string) => new TextEncoder().encode(s);

function decode(bytes: Uint8Array, byteByByte: boolean): ChatStreamEvent[] {
  const d = new ChatEventDecoder({ recordFrames: true });
  const out: ChatStreamEvent[] = [];
  if (byteByByte) for (let i = 0; i < bytes.length; i++) out.push(...d.push(bytes.subarray(i, i + 1)));
  else out.push(...d.push(bytes));
  out.push(...d.end());
  return out;
}

const tokens = (evs: ChatStreamEvent[]) =>
  evs.filter((e) => e.type === 'token').map((e) => (e as { token: string }).token);
const last = (evs: ChatStreamEvent[]) => evs.at(-1)!;

interface Dialect {
  name: string;
  stream: string;
  tokens: string[];
  result: Record<string, unknown>;
}

const DIALECTS: Dialect[] = [
  {
    name: 'named token events',
    stream:
      'event: token\ndata: {"token":"Hé"}\n\nevent: token\ndata: {"token":"llo \\"x\\""}\n\nevent: done\ndata: {"reply":"Hého \\"x\\"","conversationId":"c1"}\n\n',
    tokens: ['Hé', 'llo "x"'],
    result: { reply: 'Hého "x"', conversationId: 'c1' },
  },
  {
    name: 'named delta events, no end (stream close)',
    stream: 'event: delta\ndata: {"delta":"a"}\n\nevent: delta\ndata: {"delta":"b"}\n\n',
    tokens: ['a', 'b'],
    result: { reply: 'ab', conversationId: null },
  },
  {
    name: 'named message events with text',
    stream:
      'event: message\ndata: {"text":"one "}\n\nevent: message\ndata: two\n\nevent: end\ndata: {"conversation_id":"k","tokens_used":4}\n\n',
    tokens: ['one ', 'two'],
    result: { reply: 'one two', conversationId: 'k', usage: { totalTokens: 4 } },
  },
  {
    name: 'OpenAI chunks ending in [DONE]',
    stream: [
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}',
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}',
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"lookup","arguments":""}}]}}]}',
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]}',
      'data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      'data: [DONE]',
      '',
      '',
    ].join('\n\n'),
    tokens: ['Hi', ' there'],
    result: {
      reply: 'Hi there',
      actions: [{ name: 'lookup' }],
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    },
  },
  {
    name: 'Anthropic-style content_block_delta … message_stop',
    stream: [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":7}}}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      'event: ping\ndata: {"type":"ping"}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Bon"}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"jour"}}',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
      'event: message_stop\ndata: {"type":"message_stop"}',
      '',
      '',
    ].join('\n\n'),
    tokens: ['Bon', 'jour'],
    result: { reply: 'Bonjour', usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 } },
  },
  {
    name: 'Dify-style answer frames naming their event in the data',
    stream: [
      'data: {"event":"message","conversation_id":"dc1","answer":"Ja"}',
      'data: {"event":"ping"}',
      'data: {"event":"message","conversation_id":"dc1","answer":" klar"}',
      'data: {"event":"message_end","conversation_id":"dc1","metadata":{"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}}',
      '',
      '',
    ].join('\n\n'),
    tokens: ['Ja', ' klar'],
    result: { reply: 'Ja klar', conversationId: 'dc1', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  },
  {
    name: 'plain text data lines',
    stream: 'data: Hello\n\ndata:  world\n\ndata: [DONE]\n\n',
    tokens: ['Hello', ' world'],
    result: { reply: 'Hello world' },
  },
  {
    name: 'CRLF line ends, comments, heartbeats, retry and id fields',
    stream:
      ': stream open\r\nretry: 2000\r\n\r\n:heartbeat\r\n\r\nid: 1\r\nevent: token\r\ndata: {"token":"x"}\r\n\r\nid: 2\r\nevent: heartbeat\r\ndata: {}\r\n\r\nid: 3\r\nevent: token\r\ndata: {"token":"y"}\r\n\r\nevent: done\r\ndata: {}\r\n\r\n',
    tokens: ['x', 'y'],
    result: { reply: 'xy' },
  },
  {
    name: 'Hugging Face TGI-style token objects (special tokens left out)',
    stream:
      'data: {"token":{"id":1,"text":"Hi","special":false},"generated_text":null}\n\ndata: {"token":{"id":2,"text":"</s>","special":true},"generated_text":"Hi"}\n\n',
    tokens: ['Hi'],
    result: { reply: 'Hi' },
  },
  {
    name: 'unnamed frames with {"message"} text',
    stream: 'data: {"message":"Hey"}\n\ndata: {"message":" you"}\n\n',
    tokens: ['Hey', ' you'],
    result: { reply: 'Hey you' },
  },
  {
    name: 'OpenAI Responses-style named deltas',
    stream:
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Ok"}\n\nevent: response.output_text.done\ndata: {"type":"response.output_text.done","text":"Ok"}\n\nevent: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
    tokens: ['Ok'],
    result: { reply: 'Ok', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
  },
];

describe('ChatEventDecoder dialects', () => {
  for (const d of DIALECTS) {
    it.each([false, true])(`${d.name} (byte by byte: %s)`, (byteByByte) => {
      const evs = decode(enc(d.stream), byteByByte);
      expect(tokens(evs)).toEqual(d.tokens);
      expect(last(evs)).toMatchObject({ type: 'done', result: d.result });
      expect(evs.filter((e) => e.type !== 'token')).toHaveLength(1);
    });
  }

  it.each([
    ['only heartbeats', ': ping\n\n: ping\n\n'],
    ['an empty done', 'event: done\ndata: {"reply":""}\n\n'],
    ['[DONE] at once', 'data: [DONE]\n\n'],
    ['frames of an unknown kind', 'event: status\ndata: {"text":"thinking"}\n\nevent: result\ndata: {"value":42}\n\n'],
    ['nothing at all', ''],
  ])('a stream with no reply text (%s) is an UNREADABLE_REPLY error with its frames', (_what, stream) => {
    const evs = decode(enc(stream), false);
    expect(evs).toHaveLength(1);
    const e = evs[0]!;
    expect(e).toMatchObject({ type: 'error', code: 'UNREADABLE_REPLY', status: 200 });
    const raw = (e as { raw: { frames: unknown[]; prefix: string; bytes: number } }).raw;
    expect(raw.bytes).toBe(enc(stream).length);
    expect(raw.prefix).toBe(stream);
  });

  it('keeps the frames as received (event, id, data, comments, retry), not the decoded tokens', () => {
    const d = new ChatEventDecoder({ recordFrames: true, secret: 'k-1' });
    d.push(
      enc(
        ': hb\nretry: 500\n\nid: 7\nevent: token\ndata: {"token":"a"}\n\ndata: {"choices":[{"delta":{"content":"k-1"}}]}\n\n',
      ),
    );
    expect(d.frames().frames).toEqual([
      { event: null, id: null, data: '', comment: 'hb' },
      { event: null, id: null, data: '', retry: 500 },
      { event: 'token', id: '7', data: '{"token":"a"}' },
      { event: null, id: null, data: '{"choices":[{"delta":{"content":"[redacted]"}}]}' },
    ]);
  });

  it('times each frame by the chunk that completed it, and keeps the first and the latest frames of a long stream', () => {
    let t = 1000;
    const d = new ChatEventDecoder({ recordFrames: true, now: () => t });
    d.push(enc('event: token\ndata: {"token":"a"}\n\nevent: tok'));
    t = 1250;
    d.push(enc('en\ndata: {"token":"b"}\n\n'));
    expect(d.frames().frames.map((f) => f.ms)).toEqual([0, 250]);
    for (let i = 0; i < 3000; i++) d.push(enc(`data: {"delta":"${i}"}\n\n`));
    const { frames, omitted } = d.frames(3, 2);
    expect(omitted).toBe(3002 - 5);
    expect(frames.map((f) => f.data)).toEqual([
      '{"token":"a"}',
      '{"token":"b"}',
      '{"delta":"0"}',
      '{"delta":"2998"}',
      '{"delta":"2999"}',
    ]);
    expect(d.frames().frames).toHaveLength(2000);
  });

  it('an error frame in any dialect ends the stream with its code and message', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['event: error\ndata: {"error":{"code":"UPSTREAM","message":"died"}}\n\n', { code: 'UPSTREAM', message: 'died' }],
      [
        'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n',
        { code: 'server_error', message: 'overloaded' },
      ],
      [
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        { code: 'overloaded_error', message: 'Overloaded' },
      ],
      [
        'data: {"event":"error","status":500,"code":"internal","message":"boom"}\n\n',
        { code: 'internal', message: 'boom', status: 500 },
      ],
    ];
    for (const [stream, want] of cases) expect(decode(enc(stream), false)).toEqual([{ type: 'error', ...want }]);
  });
});

describe('chatStream: answers to a stream request that are not a labelled SSE stream', () => {
  const PATH = '/api/v1/agents/agent-1/chat';
  let env: ReturnType<typeof setup> | undefined;
  afterEach(async () => {
    await env?.agent.close();
    env = undefined;
  });
  async function run(body: string, headers: Record<string, string>): Promise<ChatStreamEvent[]> {
    env = setup();
    env.pool.intercept({ method: 'POST', path: PATH }).reply(200, body, { headers });
    const out: ChatStreamEvent[] = [];
    for await (const e of env.client.chatStream('agent-1', { message: 'x', user_id: 'u' })) out.push(e);
    return out;
  }

  it('a plain application/json answer in an OpenAI shape: its reply', async () => {
    const evs = await run('{"choices":[{"message":{"content":"whole"}}],"usage":{"total_tokens":3}}', {
      'content-type': 'application/json',
    });
    expect(evs).toEqual([
      { type: 'done', result: expect.objectContaining({ reply: 'whole', usage: { totalTokens: 3 } }) },
    ]);
  });

  it('an SSE stream labelled text/plain or with no content type is still read as SSE', async () => {
    expect(tokens(await run('event: token\ndata: {"token":"a"}\n\n', { 'content-type': 'text/plain' }))).toEqual(['a']);
    expect(tokens(await run('data: {"delta":"b"}\n\ndata: [DONE]\n\n', {}))).toEqual(['b']);
  });

  it('JSON lines: each line one frame', async () => {
    const evs = await run(
      '{"message":{"content":"x"},"done":false}\n{"message":{"content":"y"},"done":false}\n{"done":true}\n',
      { 'content-type': 'application/x-ndjson' },
    );
    expect(tokens(evs)).toEqual(['x', 'y']);
    expect(last(evs)).toMatchObject({ type: 'done', result: { reply: 'xy' } });
  });

  it('plain streamed text: every chunk a piece of the reply', async () => {
    const evs = await run('Just words.', { 'content-type': 'text/plain; charset=utf-8' });
    expect(evs).toEqual([
      { type: 'token', token: 'Just words.' },
      { type: 'done', result: { reply: 'Just words.', conversationId: null, actions: [], usage: {} } },
    ]);
  });

  it.each([
    ['a JSON answer without reply text', '{"id":"x","status":"ok"}', 'application/json'],
    ['an HTML page', '<!doctype html><html><body>Login</body></html>', 'text/html'],
    ['an empty body', '', 'text/event-stream'],
    ['broken JSON', '{"reply": "cut', 'application/json'],
  ])('%s: UNREADABLE_REPLY with status, content type and the first bytes', async (_what, body, type) => {
    const evs = await run(body, { 'content-type': type });
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({
      type: 'error',
      status: 200,
      code: 'UNREADABLE_REPLY',
      raw: { status: 200, contentType: type, prefix: body },
    });
  });
});
