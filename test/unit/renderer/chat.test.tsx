// @vitest-environment jsdom
// The chat window: streaming a reply token by token, stop, failures, retry, the raw frames, and
// which user id a conversation uses.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppSettingsDTO, ChatResultDTO, RawFrameDTO, RawResponseDTO } from '../../../src-shared/contract';
import { ownUserId } from '../../../src-renderer/src/features/chat/user-id';
import { INSTALL_ID, sendHello, setup } from './chat-fixtures';
import { flush } from './fixtures';

const result: ChatResultDTO = {
  reply: 'Hello there, friend',
  conversationId: 'conv-9',
  actions: [{ name: 'lookupOrder' }],
  usage: { totalTokens: 42, outputTokens: 4 },
};

afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('chat streaming', () => {
  it('commits tokens once per frame and ends with exactly the streamed text', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    expect(t.calls.find((c) => c.name === 'chat.startTurn')?.args).toMatchObject({
      teamId: 'team1',
      agentId: 'a1',
      message: 'hi **there**',
    });
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('');

    t.tick(120);
    act(() => {
      t.emit('chat.token', { turnId: 't1', token: 'Hello' });
      t.emit('chat.token', { turnId: 't1', token: ' there' });
    });
    // buffered: nothing committed until the frame runs, and only one frame requested
    expect(t.store.getState().chatMessages['a-t1']?.text).toBe('');
    expect(t.frames).toHaveLength(1);
    t.runFrame();
    expect(t.store.getState().chatMessages['a-t1']?.text).toBe('Hello there');
    act(() => t.emit('chat.token', { turnId: 't1', token: ', friend' }));
    t.runFrame();
    t.tick(1000);
    act(() => t.emit('chat.done', { turnId: 't1', result }));

    const msg = t.store.getState().chatMessages['a-t1'];
    expect(msg?.text).toBe('Hello there, friend');
    expect(msg?.status).toBe('done');
    const conv = screen.getByRole('list', { name: 'Conversation' });
    expect(within(conv).getByText('Hello there, friend')).toBeTruthy();
    expect(screen.getByText('conversation conv-9')).toBeTruthy();
    expect(screen.getByText('actions: lookupOrder')).toBeTruthy();
    expect(screen.getByText('42 tokens used')).toBeTruthy();
    expect(screen.getByText('first token 120 ms')).toBeTruthy();
    expect(screen.getByText('4 tokens/s')).toBeTruthy();
    // announced politely once, at the end
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe('Agent replied: Hello there, friend');
  });

  it('a token re-renders only its own row', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    const before = t.store.getState();
    act(() => t.emit('chat.token', { turnId: 't1', token: 'x' }));
    t.runFrame();
    const after = t.store.getState();
    expect(after.chatMessages['u-t1']).toBe(before.chatMessages['u-t1']);
    expect(after.chatConvs).toBe(before.chatConvs);
    expect(after.chatMessages['a-t1']).not.toBe(before.chatMessages['a-t1']);
  });

  it('tokens that overtake the startTurn answer are kept', async () => {
    let resolve: (v: unknown) => void = () => undefined;
    const t = setup({ 'chat.startTurn': () => new Promise((r) => (resolve = r)) as never });
    await t.mount();
    await sendHello();
    act(() => t.emit('chat.token', { turnId: 't1', token: 'early ' }));
    await act(async () => resolve({ ok: true, value: { turnId: 't1' } }));
    act(() => t.emit('chat.token', { turnId: 't1', token: 'late' }));
    t.runFrame();
    expect(t.store.getState().chatMessages['a-t1']?.text).toBe('early late');
  });

  it('a turn that fails before its startTurn answer arrives puts the question back in the box', async () => {
    let resolve: (v: unknown) => void = () => undefined;
    const t = setup({ 'chat.startTurn': () => new Promise((r) => (resolve = r)) as never });
    await t.mount();
    await sendHello();
    act(() =>
      t.emit('chat.error', { turnId: 't1', error: { kind: 'server-error', code: 'HTTP_503', message: 'HTTP 503' } }),
    );
    await act(async () => resolve({ ok: true, value: { turnId: 't1' } }));
    await flush();
    expect(t.store.getState().chatMessages['a-t1']?.status).toBe('error');
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('hi **there**');
  });

  it('a failed reply is worded like every other error: what happened and what to do, no codes', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    act(() =>
      t.emit('chat.error', {
        turnId: 't1',
        error: {
          kind: 'rate-limited',
          code: 'RATE_LIMITED',
          status: 429,
          retryAfterSec: 30,
          message: 'injected fault: rate limited',
        },
      }),
    );
    await flush();
    const row = document.querySelector('.chat-agent .chat-meta')!;
    expect(row.querySelector('.error')?.textContent).toBe('Rate limit reached. Wait 30 s and try again.');
    expect(row.textContent).not.toMatch(/HTTP 429|injected fault|RATE_LIMITED/);
  });

  it('stop midway keeps the partial text, calls chat.stopTurn and ignores later tokens', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    act(() => t.emit('chat.token', { turnId: 't1', token: 'Partial' }));
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await flush();
    expect(t.calls.some((c) => c.name === 'chat.stopTurn' && (c.args as { turnId: string }).turnId === 't1')).toBe(
      true,
    );
    act(() => t.emit('chat.token', { turnId: 't1', token: ' more' }));
    t.runFrame();
    act(() => t.emit('chat.done', { turnId: 't1', result: { ...result, reply: 'Partial more' } }));
    const msg = t.store.getState().chatMessages['a-t1'];
    expect(msg?.text).toBe('Partial');
    expect(msg?.status).toBe('stopped');
    expect(screen.getByText('Stopped')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true); // empty box
  });

  it('a turn that cannot start says why and keeps the typed text; retry re-sends the last message', async () => {
    const t = setup({
      'chat.startTurn': {
        ok: false,
        error: { kind: 'key-rejected', code: 'UNAUTHORIZED', message: 'The key was rejected.', status: 401 },
      },
    });
    await t.mount();
    await sendHello();
    expect(screen.getByRole('alert').textContent).toContain('The service rejected the team API key');
    expect(screen.getByText('Your message was not sent; it is still in the box below.')).toBeTruthy();
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('hi **there**');
    expect(t.store.getState().chatMessages).toEqual({});

    const ok = setup();
    cleanup();
    await ok.mount();
    await sendHello();
    act(() =>
      ok.emit('chat.error', { turnId: 't1', error: { kind: 'server-error', code: 'E', message: 'boom', status: 503 } }),
    );
    expect(screen.getByText('The service had a problem (HTTP 503). Try again in a minute.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retry last message' }));
    await flush();
    const starts = ok.calls.filter((c) => c.name === 'chat.startTurn');
    expect(starts).toHaveLength(2);
    expect((starts[1]?.args as { message: string }).message).toBe('hi **there**');
    expect(ok.store.getState().chatMessages['a-t2']?.status).toBe('streaming');
  });

  it('Shift+Enter does not send; the raw frame toggle shows the SSE frames as received (event, id, data), not decoded tokens', async () => {
    const frames: RawFrameDTO[] = [
      { ms: 0, event: null, id: null, data: '', comment: 'heartbeat' },
      { ms: 4, event: 'token', id: '7', data: '{"token":"a\\"b"}' },
    ];
    const t = setup({ 'chat.frames': () => ({ ok: true, value: { frames, omitted: 0, live: true, known: true } }) });
    await t.mount();
    const box = screen.getByLabelText('Message');
    fireEvent.change(box, { target: { value: 'line' } });
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    await flush();
    expect(t.calls.some((c) => c.name === 'chat.startTurn')).toBe(false);
    fireEvent.keyDown(box, { key: 'Enter' });
    await flush();
    act(() => t.emit('chat.token', { turnId: 't1', token: 'a"b' }));
    t.runFrame();
    expect(t.calls.some((c) => c.name === 'chat.frames')).toBe(false); // nothing is fetched until asked
    fireEvent.click(screen.getByLabelText('Show raw stream frames'));
    await flush();
    expect(t.calls.filter((c) => c.name === 'chat.frames').map((c) => c.args)).toEqual([{ turnId: 't1' }]);
    expect(screen.getByText('Raw stream: 2 frames as received')).toBeTruthy();
    const list = within(screen.getByRole('list', { name: 'Stream frames as received' }));
    expect(list.getByText(': heartbeat')).toBeTruthy();
    expect(list.getByText('event: token')).toBeTruthy();
    expect(list.getByText('id: 7')).toBeTruthy();
    expect(list.getByText('data: {"token":"a\\"b"}')).toBeTruthy();
    expect(screen.queryByText('"a\\"b"')).toBeNull();
  });

  it('a reply that could not be read: the turn says so and shows what the service sent', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    const raw: RawResponseDTO = {
      status: 200,
      contentType: 'text/event-stream',
      bytes: 48,
      prefix: 'event: status\ndata: {"value":42}\n\n',
      frames: [{ ms: 3, event: 'status', id: null, data: '{"value":42}' }],
    };
    const message = "The agent's reply could not be read: the stream ended without any reply text.";
    act(() =>
      t.emit('chat.error', {
        turnId: 't1',
        error: { kind: 'server-error', code: 'UNREADABLE_REPLY', status: 200, message, raw },
      }),
    );
    expect(screen.getByText("Could not read the agent's reply.")).toBeTruthy();
    expect(screen.getByText(message)).toBeTruthy();
    expect(screen.queryByText('No reply.')).toBeNull();
    expect(screen.getByText('What the service sent: HTTP 200, text/event-stream, 48 bytes')).toBeTruthy();
    const list = within(screen.getByRole('list', { name: 'Frames as received' }));
    expect(list.getByText('event: status')).toBeTruthy();
    expect(list.getByText('data: {"value":42}')).toBeTruthy();
    expect(t.store.getState().chatMessages['a-t1']).toMatchObject({
      status: 'error',
      text: '',
      error: { code: 'UNREADABLE_REPLY', raw },
    });
  });

  it('an unreadable JSON answer shows its first bytes; an older turn says its frames were not kept', async () => {
    const t = setup({
      'chat.transcript': {
        ok: true,
        value: [
          { id: 'old:user', role: 'user', text: 'q', at: 1 },
          {
            id: 'old:agent',
            turnId: 'old',
            role: 'agent',
            text: '',
            at: 2,
            status: 'error',
            error: {
              kind: 'server-error',
              code: 'UNREADABLE_REPLY',
              message: 'no reply text',
              raw: { status: 200, contentType: 'application/json', bytes: 13, prefix: '{"foo":"bar"}' },
            },
          },
        ],
      },
      'chat.frames': { ok: true, value: { frames: [], omitted: 0, live: false, known: false } },
    });
    await t.mount();
    await flush();
    expect(screen.getByLabelText('First bytes of the answer').textContent).toBe('{"foo":"bar"}');
    fireEvent.click(screen.getByLabelText('Show raw stream frames'));
    await flush();
    expect(
      screen.getByText(/No raw frames: the app keeps them only for replies streamed since it started/),
    ).toBeTruthy();
  });

  it('your own conversation uses the install id from the settings, not a locally made id', async () => {
    const t = setup();
    await t.mount();
    await flush();
    expect(screen.getByText(INSTALL_ID)).toBeTruthy();
    expect((t.calls.find((c) => c.name === 'chat.transcript')?.args as { userId: string }).userId).toBe(INSTALL_ID);
    await sendHello();
    expect((t.calls.find((c) => c.name === 'chat.startTurn')?.args as { userId: string }).userId).toBe(INSTALL_ID);
    expect(localStorage.getItem('cc.chat.userId')).toBeNull();
  });

  it('own user id: the install id; none while settings load; a kept local id only when they cannot be read', () => {
    const kept = new Map<string, string>();
    const storage = {
      getItem: (k: string) => kept.get(k) ?? null,
      setItem: (k: string, v: string) => void kept.set(k, v),
    };
    expect(ownUserId(INSTALL_ID, false, storage)).toBe(INSTALL_ID);
    expect(ownUserId(INSTALL_ID, true, storage)).toBe(INSTALL_ID);
    expect(ownUserId(null, false, storage)).toBeNull();
    expect(kept.size).toBe(0);
    const fallback = ownUserId(null, true, storage);
    expect(fallback).toMatch(/^me-[0-9a-f]{8}$/);
    expect(ownUserId(undefined, true, storage)).toBe(fallback);
  });

  it('waits for the settings before opening a conversation', async () => {
    const t = setup({}, null);
    await t.mount();
    await flush();
    expect(screen.getByText('Loading your user id…')).toBeTruthy();
    expect(t.calls.some((c) => c.name === 'chat.transcript')).toBe(false);
    act(() => t.store.setState({ settings: { installId: INSTALL_ID } as AppSettingsDTO }));
    await flush();
    expect((t.calls.find((c) => c.name === 'chat.transcript')?.args as { userId: string }).userId).toBe(INSTALL_ID);
  });

  it('prefers the first-token time and speed measured by the main process', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    t.tick(500);
    act(() => t.emit('chat.token', { turnId: 't1', token: 'Hi' }));
    t.runFrame();
    t.tick(1000);
    act(() => t.emit('chat.done', { turnId: 't1', result: { ...result, firstTokenMs: 87, tokensPerSec: 12.345 } }));
    expect(screen.getByText('first token 87 ms')).toBeTruthy();
    expect(screen.getByText('12.3 tokens/s')).toBeTruthy();
    expect(screen.queryByText('first token 500 ms')).toBeNull();
  });

  it('the first-token figure shows once the reply ends and does not change after Stop', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    t.tick(53);
    act(() => t.emit('chat.token', { turnId: 't1', token: 'Partial' }));
    t.runFrame();
    const meta = () => document.querySelector('.chat-agent .chat-meta')!.textContent ?? '';
    // While it streams, no figure that the end would replace.
    expect(meta()).not.toContain('first token');
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await flush();
    act(() => t.emit('chat.done', { turnId: 't1', result: { ...result, reply: 'Partial', firstTokenMs: 32 } }));
    expect(screen.getByText('Stopped')).toBeTruthy();
    const shown = meta().match(/first token \d+ ms/g) ?? [];
    expect(shown).toHaveLength(1);
    t.tick(1000);
    t.runFrame();
    expect(meta().match(/first token \d+ ms/g)).toEqual(shown);
  });

  it('a reply without actions says what actions are: the agent called no tool', async () => {
    const t = setup();
    await t.mount();
    await sendHello();
    act(() => t.emit('chat.token', { turnId: 't1', token: 'Hi' }));
    t.runFrame();
    act(() => t.emit('chat.done', { turnId: 't1', result: { ...result, reply: 'Hi', actions: [] } }));
    expect(screen.getByText('no actions: the agent called no tool')).toBeTruthy();
    expect(screen.queryByText('no actions')).toBeNull();
  });

  it('playing another customer uses that user id', async () => {
    const t = setup();
    await t.mount();
    fireEvent.change(screen.getByLabelText('Customer user id'), { target: { value: 'cust-7' } });
    fireEvent.click(screen.getByRole('button', { name: 'Use this id' }));
    await flush();
    expect(
      t.calls.some((c) => c.name === 'chat.transcript' && (c.args as { userId: string }).userId === 'cust-7'),
    ).toBe(true);
    await sendHello();
    expect((t.calls.find((c) => c.name === 'chat.startTurn')?.args as { userId: string }).userId).toBe('cust-7');
  });
});
