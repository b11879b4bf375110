// The agents' sends as the send log keeps them, in the store: read through messages.sent, joined by
// messages.new, merged with this window's sends (one row per send: a line of the log that carries a
// window send's clientRef is that send); a failed send read from the log is retried through the path
// it was made on; the Messages composer's sends go through messages.send with the same progress.
import { describe, expect, it } from 'vitest';
import type { MessageDTO, SendResultDTO, Result } from '../../../../src-shared/contract';
import { connectStore } from '../../../../src-renderer/src/store';
import { agentSends } from '../../../../src-renderer/src/store/console';
import { setup } from '../fixtures';

const line = (over: Partial<MessageDTO>): MessageDTO => ({
  key: 'wamid.1',
  teamId: 't1',
  agentId: 'a1',
  contact: '+15550107777',
  at: 1_000,
  direction: 'out',
  fromMe: false,
  type: 'text',
  text: 'hello',
  messageId: 'wamid.1',
  status: 'sent',
  via: 'console',
  ...over,
});

const SENT: Result<SendResultDTO> = { ok: true, value: { status: 'sent', messageId: 'wamid.9', to: '+15550107777' } };

describe('the send log in the store', () => {
  it('reads an agent’s sends through messages.sent as settled send records', async () => {
    const t = setup({
      'messages.sent': {
        ok: true,
        value: [
          line({ key: 'k2', at: 2_000, via: 'cli', messageId: 'wamid.2', text: 'from the CLI' }),
          line({
            key: 'send:x',
            at: 1_000,
            messageId: undefined,
            status: 'failed',
            type: 'image',
            text: 'caption',
            media: { url: 'https://example.com/a.jpg' },
            error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'not linked' },
            clientRef: 'send-old',
          }),
        ],
      },
    });
    expect(await t.store.getState().loadSentLog('t1', 'a1')).toBeNull();
    expect(t.calls.find((c) => c.name === 'messages.sent')?.args).toEqual({ teamId: 't1', agentId: 'a1' });
    const rows = t.store.getState().sentLog['t1/a1']!;
    expect(rows.map((r) => [r.clientRef, r.state, r.via, r.kind, r.summary, r.messageId])).toEqual([
      ['log:k2', 'sent', 'cli', 'text', 'from the CLI', 'wamid.2'],
      ['send-old', 'failed', 'console', 'image', 'caption', null],
    ]);
    expect(rows[1]!.args).toEqual({
      teamId: 't1',
      agentId: 'a1',
      to: '+15550107777',
      imageUrl: 'https://example.com/a.jpg',
      text: 'caption',
    });
  });

  it('says why when the send log cannot be read, and keeps what it had', async () => {
    const t = setup({
      'messages.sent': { ok: false, error: { kind: 'internal', code: 'EIO', message: 'disk' } },
    });
    expect(await t.store.getState().loadSentLog('t1', 'a1')).toMatchObject({ code: 'EIO' });
    expect(t.store.getState().sentLog['t1/a1']).toBeUndefined();
  });

  it('one row per send: a window send and its line in the log (same clientRef, or same message id) are one', async () => {
    const t = setup({ 'send.message': SENT, 'messages.sent': { ok: true, value: [] } });
    connectStore(t.store, t.api);
    await t.store.getState().loadSentLog('t1', 'a1');
    await t.store
      .getState()
      .sendMessage({ teamId: 't1', agentId: 'a1', to: '+15550107777', text: 'hi', clientRef: 'send-1' });
    // The log's line comes as messages.new; an inbound message and another agent's send do not join this list.
    t.emit('messages.new', {
      message: line({ key: 'wamid.9', messageId: 'wamid.9', clientRef: 'send-1', text: 'hi' }),
    });
    t.emit('messages.new', { message: line({ key: 'in1', direction: 'in', via: undefined, messageId: 'in1' }) });
    t.emit('messages.new', { message: line({ key: 'o1', agentId: 'a2', messageId: 'o1' }) });
    t.emit('messages.new', {
      message: line({ key: 'k3', at: 200_000, messageId: 'wamid.3', via: 'cli', text: 'cli' }),
    });
    const s = t.store.getState();
    expect(s.sentLog['t1/a1']!.map((r) => r.clientRef)).toEqual(['log:k3', 'send-1']);
    const rows = agentSends(s.sendHistory, s.sentLog['t1/a1'], 't1', 'a1');
    expect(rows.map((r) => [r.clientRef, r.state])).toEqual([
      ['log:k3', 'sent'],
      ['send-1', 'sent'],
    ]);
    // Without the clientRef (an older line), the message id says it is the same send.
    const byId = agentSends(s.sendHistory, [{ ...s.sentLog['t1/a1']![1]!, clientRef: 'log:wamid.9' }], 't1', 'a1');
    expect(byId.map((r) => r.clientRef)).toEqual(['send-1']);
  });

  it('a failed send read from the log is retried once, through the path that made it', async () => {
    const t = setup({
      'messages.send': SENT,
      'send.message': SENT,
      'messages.sent': {
        ok: true,
        value: [
          line({
            key: 'f1',
            status: 'failed',
            messageId: undefined,
            via: 'messages',
            text: 'again',
            error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'r' },
          }),
          line({
            key: 'f2',
            status: 'failed',
            messageId: undefined,
            via: 'cli',
            text: 'cli one',
            error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'r' },
          }),
        ],
      },
    });
    await t.store.getState().loadSentLog('t1', 'a1');
    expect(await t.store.getState().retrySend('log:f1')).toMatchObject({ ok: true });
    expect(await t.store.getState().retrySend('log:f1')).toBeNull();
    await t.store.getState().retrySend('log:f2');
    expect(
      t.calls
        .filter((c) => c.name === 'messages.send' || c.name === 'send.message')
        .map((c) => [c.name, (c.args as { text: string }).text]),
    ).toEqual([
      ['messages.send', 'again'],
      ['send.message', 'cli one'],
    ]);
    expect(t.store.getState().sentLog['t1/a1']!.every((r) => r.retriedAs !== undefined)).toBe(true);
  });

  it('a composer send goes through messages.send and takes send.progress like a console send', async () => {
    let answer: (r: Result<SendResultDTO>) => void = () => undefined;
    const t = setup({ 'messages.send': () => new Promise((r) => (answer = r)) });
    connectStore(t.store, t.api);
    const done = t.store
      .getState()
      .sendMessage({ teamId: 't1', agentId: 'a1', to: '+15550107777', text: 'q', clientRef: 'c1' }, 'messages');
    t.emit('send.progress', {
      teamId: 't1',
      agentId: 'a1',
      to: '+15550107777',
      clientRef: 'c1',
      phase: 'queued',
      queuedId: 'q1',
      position: 2,
      waitMs: 9000,
    });
    const rec = () => t.store.getState().sendHistory.find((r) => r.clientRef === 'c1')!;
    expect(rec()).toMatchObject({
      state: 'queued',
      via: 'messages',
      queue: { position: 2, waitMs: 9000, queuedId: 'q1' },
    });
    answer(SENT);
    await done;
    expect(rec()).toMatchObject({ state: 'sent', messageId: 'wamid.9' });
    expect(t.calls.some((c) => c.name === 'send.message')).toBe(false);
  });
});
