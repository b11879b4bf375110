import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChannelNotConfigured,
  InvalidRequest,
  ServerError,
  UnreadableResponse,
} from '../../../../src-main/core/api/errors';
import type { ChatResult } from '../../../../src-main/core/api/types';
import { ChatService } from '../../../../src-main/core/chat/chat-service';
import type { TurnEvent } from '../../../../src-main/core/chat/types';
import { fakeClient, ManualClock, type Step } from './fake-client';

let dir: string;
let clock: ManualClock;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'chat-test-'));
  clock = new ManualClock();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RESULT: ChatResult = {
  reply: 'Hello there',
  conversationId: 'conv-1',
  actions: [{ name: 'lookup' }],
  usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
};

function service(
  script: Parameters<typeof fakeClient>[1],
  extra: Partial<ConstructorParameters<typeof ChatService>[0]> = {},
) {
  const { client, calls } = fakeClient(clock, script);
  let n = 0;
  const svc = new ChatService({
    clientFor: async () => client,
    installId: 'install-1',
    dataDir: dir,
    clock,
    newId: () => `t${++n}`,
    ...extra,
  });
  return { svc, calls };
}

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('ChatService turns', () => {
  it('streams tokens, records timing, usage, conversation id, and saves the transcript', async () => {
    const stream: Step[] = [
      { advance: 200 },
      { type: 'token', token: 'Hello' },
      { advance: 500 },
      { type: 'token', token: ' there' },
      { advance: 500 },
      { type: 'done', result: RESULT },
    ];
    const { svc, calls } = service({ stream });
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' });
    expect(h.userId).toBe('install-1');
    const events = await collect(h.events);
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'done']);
    expect(calls.streamCalls).toEqual([{ message: 'hi', user_id: 'install-1' }]);
    const done = events[2] as Extract<TurnEvent, { type: 'done' }>;
    expect(done.turn).toMatchObject({
      turnId: 't1',
      reply: 'Hello there',
      conversationId: 'conv-1',
      actions: [{ name: 'lookup' }],
      usage: { outputTokens: 4 },
      mode: 'stream',
      firstTokenMs: 200,
      tokenCount: 2,
      tokensPerSec: 4, // 4 output tokens over 1 s from first token to end
      stopped: false,
      error: null,
    });
    expect(await h.result).toEqual(done.turn);
    expect(await svc.listTranscript('agent-1', 'install-1')).toEqual([done.turn]);
  });

  it('a different user_id is a different conversation', async () => {
    const { svc, calls } = service({ stream: [{ type: 'token', token: 'x' }] });
    await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi', userId: 'customer-7' }).result;
    expect(calls.streamCalls[0]!.user_id).toBe('customer-7');
    expect(await svc.listTranscript('agent-1')).toEqual([]);
    const t = await svc.listTranscript('agent-1', 'customer-7');
    expect(t).toHaveLength(1);
    expect(t[0]).toMatchObject({ reply: 'x', conversationId: null, mode: 'stream' }); // done synthesised by the client
    expect((await svc.listConversations('agent-1')).map((c) => c.userId)).toEqual(['customer-7']);
  });

  it('falls back to a single chat() when the stream fails before the first token', async () => {
    const { svc, calls } = service({
      stream: [{ type: 'error', status: 502, code: 'SERVER_ERROR', message: 'bad gateway' }],
      chat: RESULT,
      chatAdvance: 800,
    });
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' });
    const events = await collect(h.events);
    expect(events.map((e) => e.type)).toEqual(['fallback', 'done']);
    expect(events[0]).toMatchObject({ type: 'fallback', reason: { kind: 'server-error', status: 502 } });
    expect(calls.chatCalls).toHaveLength(1);
    expect(await h.result).toMatchObject({
      mode: 'fallback',
      reply: 'Hello there',
      error: null,
      firstTokenMs: 800,
      tokensPerSec: 5,
    });
  });

  it('does not fall back when the error says retrying cannot help (409)', async () => {
    const { svc, calls } = service({
      stream: [{ type: 'error', status: 409, code: 'CHANNEL_NOT_CONFIGURED', message: 'scan' }],
      chat: RESULT,
    });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' }).result;
    expect(calls.chatCalls).toHaveLength(0);
    expect(turn.error).toMatchObject({ kind: 'needs-scan', code: 'CHANNEL_NOT_CONFIGURED', status: 409 });
  });

  it('an error after tokens keeps the partial reply and the error, without fallback', async () => {
    const { svc, calls } = service({
      stream: [
        { type: 'token', token: 'par' },
        { type: 'error', code: 'UPSTREAM', message: 'died' },
      ],
      chat: RESULT,
    });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' }).result;
    expect(calls.chatCalls).toHaveLength(0);
    expect(turn).toMatchObject({
      reply: 'par',
      mode: 'stream',
      error: { kind: 'server-error', code: 'UPSTREAM', message: 'died' },
    });
  });

  it("a stream reply that could not be read is the turn's error with what came, saved, and never asked again (no fallback)", async () => {
    const raw = {
      status: 200,
      contentType: 'text/event-stream',
      bytes: 30,
      prefix: 'event: status\ndata: {}\n\n',
      frames: [{ event: 'status', id: null, data: '{}' }],
    };
    const { svc, calls } = service({
      stream: [
        { type: 'error', status: 200, code: 'UNREADABLE_REPLY', message: "The agent's reply could not be read", raw },
      ],
      chat: RESULT,
    });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' }).result;
    expect(calls.chatCalls).toHaveLength(0);
    expect(turn).toMatchObject({
      reply: '',
      mode: 'stream',
      error: { kind: 'server-error', code: 'UNREADABLE_REPLY', status: 200, raw },
    });
    expect((await svc.listTranscript('agent-1'))[0]?.error).toMatchObject({ code: 'UNREADABLE_REPLY', raw });
  });

  it("an unreadable single answer is the turn's error with its raw answer", async () => {
    const raw = { status: 200, contentType: 'application/json', bytes: 13, prefix: '{"foo":"bar"}' };
    const { svc } = service({
      chat: new UnreadableResponse({ status: 200, code: 'UNREADABLE_REPLY', message: 'no reply text', raw }),
    });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi', stream: false }).result;
    expect(turn.error).toMatchObject({ code: 'UNREADABLE_REPLY', raw });
  });

  it("keeps a turn's frames as received, live while it streams and after it ended", async () => {
    const frames = [
      { ms: 1, event: 'token', id: null, data: '{"token":"x"}' },
      { ms: 2, event: 'done', id: null, data: '{}' },
    ];
    const { svc } = service({ stream: [{ type: 'token', token: 'x' }, { hang: true }], frames });
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi' });
    const it = h.events[Symbol.asyncIterator]();
    await it.next(); // the token: the stream is open
    expect(svc.frames(h.turnId)).toEqual({ frames, omitted: 0, live: true });
    svc.stopTurn(h.turnId);
    await h.result;
    expect(svc.frames(h.turnId)).toEqual({ frames, omitted: 0, live: false });
    expect(svc.frames('never')).toBeNull();
  });

  it('stream:false makes one chat() call', async () => {
    const { svc, calls } = service({ chat: RESULT, chatAdvance: 2000 });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi', stream: false }).result;
    expect(calls.streamCalls).toHaveLength(0);
    expect(turn).toMatchObject({
      mode: 'single',
      reply: 'Hello there',
      firstTokenMs: 2000,
      tokensPerSec: 2,
      tokenCount: 0,
    });
  });

  it('a chat() failure is recorded as an error DTO', async () => {
    const { svc } = service({ chat: new ChannelNotConfigured() });
    const turn = await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi', stream: false }).result;
    expect(turn.error).toMatchObject({ kind: 'needs-scan', status: 409 });
    expect(turn.reply).toBe('');
  });

  it('a failing client factory ends the turn with an error, not a throw', async () => {
    const svc = new ChatService({
      clientFor: async () => Promise.reject(new ServerError({ message: 'no team' })),
      installId: 'i',
      dataDir: dir,
      clock,
    });
    const turn = await svc.startTurn({ teamId: 'nope', agentId: 'a', message: 'hi' }).result;
    expect(turn.error).toMatchObject({ kind: 'server-error', message: 'no team' });
  });

  it('stopTurn aborts mid-stream: partial reply, stopped flag, connection released', async () => {
    const { svc, calls } = service({
      stream: [{ type: 'token', token: 'Once upon' }, { hang: true }, { type: 'token', token: 'never' }],
    });
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'story' });
    const events: TurnEvent[] = [];
    for await (const e of h.events) {
      events.push(e);
      if (e.type === 'token') expect(svc.stopTurn(h.turnId)).toBe(true);
    }
    expect(calls.aborted).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['token', 'done']);
    expect(await h.result).toMatchObject({ reply: 'Once upon', stopped: true, error: null });
    expect(svc.stopTurn(h.turnId)).toBe(false);
    expect(svc.activeTurns()).toEqual([]);
  });

  it('stopTurn during a single chat() marks it stopped', async () => {
    const { svc } = service({ chat: 'hang' });
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'hi', stream: false });
    await new Promise((r) => setImmediate(r));
    expect(svc.activeTurns()).toMatchObject([{ turnId: h.turnId, agentId: 'agent-1', userId: 'install-1' }]);
    svc.stopTurn(h.turnId);
    expect(await h.result).toMatchObject({ stopped: true, error: null, reply: '' });
  });

  it('rejects bad input and a second turn in the same conversation', async () => {
    const { svc } = service({ stream: [{ hang: true }] });
    expect(() => svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: '   ' })).toThrow(InvalidRequest);
    expect(() => svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: '   ' })).toThrow(
      /^The message is empty\.$/,
    );
    expect(() => svc.startTurn({ teamId: '', agentId: 'agent-1', message: 'x' })).toThrow(/^Team must not be empty\.$/);
    expect(() => svc.startTurn({ teamId: 't', agentId: 'a', message: 'x', stream: 'yes' as never })).toThrow(
      InvalidRequest,
    );
    const h = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'x' });
    expect(() => svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'y' })).toThrow(/still coming/);
    svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'y', userId: 'other' }); // other conversation is fine
    svc.stopAll();
    await h.result;
  });
});

describe('transcripts on disk', () => {
  it('are bounded to maxTurns, newest kept', async () => {
    const { svc } = service({ chat: RESULT }, { maxTurns: 3 });
    for (let i = 0; i < 5; i++)
      await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: `m${i}`, stream: false }).result;
    const t = await svc.listTranscript('agent-1');
    expect(t.map((x) => x.message)).toEqual(['m2', 'm3', 'm4']);
    // a fresh service (new process) reads the same file
    const again = service({ chat: RESULT }, { maxTurns: 3 }).svc;
    expect((await again.listTranscript('agent-1')).map((x) => x.message)).toEqual(['m2', 'm3', 'm4']);
  });

  it('one file per agent + user, named safely even for odd ids', async () => {
    const { svc } = service({ chat: RESULT });
    await svc.startTurn({ teamId: 'team', agentId: '../agent', message: 'x', userId: 'a/b c', stream: false }).result;
    const agentDirs = await readdir(dir);
    expect(agentDirs).toHaveLength(1);
    expect(agentDirs[0]).not.toContain('/');
    const files = await readdir(path.join(dir, agentDirs[0]!));
    const body = JSON.parse(await readFile(path.join(dir, agentDirs[0]!, files[0]!), 'utf8'));
    expect(body).toMatchObject({ version: 1, agentId: '../agent', userId: 'a/b c' });
    expect(await svc.listConversations('../agent')).toMatchObject([
      { userId: 'a/b c', turns: 1, conversationId: 'conv-1' },
    ]);
    await svc.clearTranscript('../agent', 'a/b c');
    expect(await svc.listTranscript('../agent', 'a/b c')).toEqual([]);
  });

  it('conversations: newest first, with a title, a preview and a search over messages and replies', async () => {
    const { svc } = service({ chat: RESULT });
    await svc.startTurn({
      teamId: 'team',
      agentId: 'agent-1',
      message: 'Where is   my\norder 4521?',
      userId: 'u-old',
      stream: false,
    }).result;
    clock.t += 1000;
    await svc.startTurn({
      teamId: 'team',
      agentId: 'agent-1',
      message: `Refund ${'please '.repeat(20)}`,
      userId: 'u-new',
      stream: false,
    }).result;
    await svc.startTurn({ teamId: 'team', agentId: 'agent-2', message: 'other agent', userId: 'u-new', stream: false })
      .result;
    const all = await svc.listConversations('agent-1');
    expect(all.map((c) => c.userId)).toEqual(['u-new', 'u-old']);
    expect(all[1]).toMatchObject({
      title: 'Where is my order 4521?',
      preview: 'Hello there',
      turns: 1,
      conversationId: 'conv-1',
      match: null,
    });
    expect(all[0]!.title).toHaveLength(80);
    expect(all[0]!.title.endsWith('…')).toBe(true);
    // Search: case-insensitive, in messages and in replies, with the words around the match.
    expect(await svc.listConversations('agent-1', 'ORDER 45')).toMatchObject([
      { userId: 'u-old', match: 'Where is my order 4521?' },
    ]);
    expect((await svc.listConversations('agent-1', 'hello')).map((c) => c.userId)).toEqual(['u-new', 'u-old']);
    expect(await svc.listConversations('agent-1', 'nowhere')).toEqual([]);
    expect((await svc.listConversations('agent-1', '  ')).map((c) => c.match)).toEqual([null, null]);
  });

  it('deleteConversation removes the transcript, and is refused while a reply is coming in it', async () => {
    const { svc } = service({ stream: [{ type: 'token', token: 'x' }, { hang: true }], chat: RESULT });
    await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'keep me?', userId: 'u1', stream: false })
      .result;
    const running = svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'streaming', userId: 'u2' });
    await expect(svc.deleteConversation('agent-1', 'u2')).rejects.toThrow(/still coming/);
    expect(await svc.deleteConversation('agent-1', 'u1')).toBe(true);
    expect(await svc.listTranscript('agent-1', 'u1')).toEqual([]);
    expect(await svc.deleteConversation('agent-1', 'u1')).toBe(false);
    svc.stopAll();
    await running.result;
    expect((await svc.listConversations('agent-1')).map((c) => c.userId)).toEqual(['u2']);
  });

  it('a corrupt file is set aside and the conversation starts empty', async () => {
    const { svc } = service({ chat: RESULT });
    const file = path.join(
      dir,
      Buffer.from('agent-1').toString('base64url'),
      `${Buffer.from('install-1').toString('base64url')}.json`,
    );
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{not json');
    expect(await svc.listTranscript('agent-1')).toEqual([]);
    await svc.startTurn({ teamId: 'team', agentId: 'agent-1', message: 'x', stream: false }).result;
    expect(await svc.listTranscript('agent-1')).toHaveLength(1);
    expect((await readdir(path.dirname(file))).some((n) => n.includes('.corrupt-'))).toBe(true);
  });
});
