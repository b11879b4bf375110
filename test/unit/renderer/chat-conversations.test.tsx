// @vitest-environment jsdom
// The chat window's conversations (list, new, switch, rename, delete, search) and what Enter does
// while a reply is coming (the message is queued, shown with Cancel, and sent when the reply ends).
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatConversationDTO, ChatResultDTO } from '../../../src-shared/contract';
import { plainPreview } from '../../../src-renderer/src/features/chat/preview';
import { INSTALL_ID, sendHello, setup } from './chat-fixtures';
import { flush } from './fixtures';

const result: ChatResultDTO = { reply: 'Sure.', conversationId: 'c1', actions: [], usage: {} };
const conv = (userId: string, over: Partial<ChatConversationDTO> = {}): ChatConversationDTO => ({
  userId,
  turns: 2,
  lastAt: 5000,
  conversationId: null,
  title: `About ${userId}`,
  preview: `Last words of ${userId}`,
  match: null,
  ...over,
});

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const startedWith = (t: ReturnType<typeof setup>) =>
  t.calls
    .filter((c) => c.name === 'chat.startTurn')
    .map((c) => (c.args as { message: string; userId: string }).message);
const list = () => screen.getByRole('navigation', { name: 'Conversations' });
const queued = () => document.querySelectorAll('li.chat-queued');

describe('Enter while a reply is coming', () => {
  it('queues the message, says why, and sends it when the reply ends; Cancel takes one out', async () => {
    const t = setup();
    await t.mount();
    await sendHello('first');
    expect(screen.getByText(/A reply is coming: Enter queues your message/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Queue' })).toBeTruthy();
    await sendHello('second');
    await sendHello('third');
    expect(startedWith(t)).toEqual(['first']);
    expect([...queued()].map((li) => li.querySelector('.chat-plain')?.textContent)).toEqual(['second', 'third']);
    expect(within(queued()[0] as HTMLElement).getByText('Sends when the reply ends.')).toBeTruthy();
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe(
      'Queued: your message is sent when the reply ends.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Cancel queued message: third' }));
    expect(queued()).toHaveLength(1);

    act(() => t.emit('chat.done', { turnId: 't1', result }));
    await flush();
    expect(startedWith(t)).toEqual(['first', 'second']);
    expect(queued()).toHaveLength(0);
    expect(t.store.getState().chatMessages['u-t2']?.text).toBe('second');
  });

  it('after Stop or a failed reply the queue waits; Send now sends the next one', async () => {
    const t = setup();
    await t.mount();
    await sendHello('first');
    await sendHello('second');
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await flush();
    expect(within(queued()[0] as HTMLElement).getByText('Waiting: you stopped the reply.')).toBeTruthy();
    expect(startedWith(t)).toEqual(['first']);
    fireEvent.click(screen.getByRole('button', { name: 'Send now' }));
    await flush();
    expect(startedWith(t)).toEqual(['first', 'second']);

    await sendHello('third');
    act(() => t.emit('chat.error', { turnId: 't2', error: { kind: 'server-error', code: 'E', message: 'boom' } }));
    await flush();
    expect(within(queued()[0] as HTMLElement).getByText('Waiting: the reply failed.')).toBeTruthy();
    expect(startedWith(t)).toEqual(['first', 'second']);
  });

  it('Escape stops a reply that is coming, from the message box; with no reply coming it does nothing', async () => {
    const t = setup();
    await t.mount();
    const stops = () => t.calls.filter((c) => c.name === 'chat.stopTurn').length;
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Escape' });
    await flush();
    expect(stops()).toBe(0);
    await sendHello('first');
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Escape' });
    await flush();
    expect(stops()).toBe(1);
    expect(screen.getByRole('button', { name: 'Stop' }).getAttribute('aria-keyshortcuts')).toBe('Escape');
  });

  it('a queued message that cannot start goes back to the head of the queue, with the reason', async () => {
    let n = 0;
    const t = setup({
      'chat.startTurn': () =>
        ++n === 2
          ? { ok: false, error: { kind: 'key-rejected', code: 'UNAUTHORIZED', message: 'no', status: 401 } }
          : { ok: true, value: { turnId: `t${n}` } },
    });
    await t.mount();
    await sendHello('first');
    await sendHello('second');
    act(() => t.emit('chat.done', { turnId: 't1', result }));
    await flush();
    expect(queued()).toHaveLength(1);
    expect(within(queued()[0] as HTMLElement).getByText(/^Not sent: /)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Send now' }));
    await flush();
    expect(startedWith(t)).toEqual(['first', 'second', 'second']);
    expect(queued()).toHaveLength(0);
  });
});

describe('conversations', () => {
  it("lists the agent's conversations, switches between them, and starts new ones", async () => {
    const t = setup({
      'chat.conversations': { ok: true, value: [conv('cust-7'), conv(INSTALL_ID, { title: 'My question' })] },
    });
    await t.mount();
    await flush();
    const items = () =>
      within(list())
        .getAllByRole('button')
        .filter((b) => b.classList.contains('chat-conv'));
    expect(items().map((b) => b.querySelector('.chat-conv-name')?.textContent)).toEqual([
      'About cust-7',
      'My question',
    ]);
    expect(items()[1]?.getAttribute('aria-current')).toBe('true');
    expect(within(items()[0]!).getByText('Last words of cust-7')).toBeTruthy();
    expect(within(items()[0]!).getByText(/as cust-7/)).toBeTruthy();

    fireEvent.click(items()[0]!);
    await flush();
    expect(
      t.calls.some((c) => c.name === 'chat.transcript' && (c.args as { userId: string }).userId === 'cust-7'),
    ).toBe(true);
    expect(screen.getByRole('heading', { name: 'About cust-7' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'New conversation' }));
    await flush();
    expect(screen.getByRole('heading', { name: 'New conversation' })).toBeTruthy();
    expect(items()[0]?.getAttribute('aria-current')).toBe('true');
    expect(within(items()[0]!).getByText('No messages yet')).toBeTruthy();
    await sendHello('a fresh start');
    const userId = (t.calls.find((c) => c.name === 'chat.startTurn')?.args as { userId: string }).userId;
    expect(userId).toMatch(new RegExp(`^${INSTALL_ID}-[0-9a-z]+$`));
    // When the reply ends the list is read again (the new conversation, its preview).
    const before = t.calls.filter((c) => c.name === 'chat.conversations').length;
    act(() => t.emit('chat.done', { turnId: 't1', result }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'chat.conversations').length).toBe(before + 1);
  });

  it('a reply that ends in a conversation left while it was coming updates the list (its time and preview)', async () => {
    let lastAt = 5000;
    const t = setup({
      'chat.conversations': () => ({ ok: true, value: [conv('cust-7'), conv(INSTALL_ID, { lastAt })] }),
    });
    await t.mount();
    await flush();
    await sendHello('a question');
    // Away to another conversation while the reply comes.
    fireEvent.click(within(list()).getByRole('button', { name: /About cust-7/ }));
    await flush();
    expect(screen.getByRole('heading', { name: 'About cust-7' })).toBeTruthy();
    const before = t.calls.filter((c) => c.name === 'chat.conversations').length;
    lastAt = Date.now();
    act(() => t.emit('chat.done', { turnId: 't1', result }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'chat.conversations').length).toBe(before + 1);
    const mine = within(list())
      .getAllByRole('button')
      .find((b) => b.classList.contains('chat-conv') && !b.textContent?.includes('cust-7'))!;
    expect(mine.querySelector('.chat-conv-when')?.textContent).toBe('just now');
  });

  it('renames a conversation in this window only; an empty name goes back to its first message', async () => {
    const t = setup({ 'chat.conversations': { ok: true, value: [conv(INSTALL_ID, { title: 'Where is my order?' })] } });
    await t.mount();
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Rename' }));
    fireEvent.change(screen.getByLabelText('Conversation name'), { target: { value: '  Order   4521 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save name' }));
    expect(screen.getByRole('heading', { name: 'Order 4521' })).toBeTruthy();
    expect(within(list()).getByText('Order 4521')).toBeTruthy();
    expect(JSON.parse(localStorage.getItem('cc.chat.names') ?? '{}')).toEqual({
      [`team1/a1/${INSTALL_ID}`]: 'Order 4521',
    });
    expect(t.calls.some((c) => c.name.startsWith('chat.') && JSON.stringify(c.args).includes('Order 4521'))).toBe(
      false,
    );

    fireEvent.click(screen.getByRole('button', { name: 'Rename' }));
    fireEvent.keyDown(screen.getByLabelText('Conversation name'), { key: 'Escape' });
    expect(screen.getByRole('heading', { name: 'Order 4521' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Rename' }));
    fireEvent.change(screen.getByLabelText('Conversation name'), { target: { value: ' ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save name' }));
    expect(screen.getByRole('heading', { name: 'Where is my order?' })).toBeTruthy();
  });

  it('deletes a conversation after saying what the service keeps; a refusal is shown', async () => {
    let refuse = true;
    const t = setup({
      'chat.conversations': { ok: true, value: [conv('cust-7'), conv(INSTALL_ID)] },
      'chat.transcript': (a: unknown) => ({
        ok: true,
        value:
          (a as { userId: string }).userId === 'cust-7' ? [{ id: 'x:user', role: 'user', text: 'hello', at: 1 }] : [],
      }),
      'chat.deleteConversation': () =>
        refuse
          ? {
              ok: false,
              error: {
                kind: 'validation',
                code: 'TURN_RUNNING',
                message: 'A reply is still coming in this conversation.',
              },
            }
          : { ok: true, value: { deleted: true } },
    });
    await t.mount();
    await flush();
    fireEvent.click(within(list()).getByText('About cust-7'));
    await flush();
    localStorage.setItem('cc.chat.names', JSON.stringify({ 'team1/a1/cust-7': 'Seven' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(screen.getByText(/The service keeps its own record of the conversation with user id/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete conversation' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('still coming');
    refuse = false;
    fireEvent.click(screen.getByRole('button', { name: 'Delete conversation' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'chat.deleteConversation').at(-1)?.args).toEqual({
      teamId: 'team1',
      agentId: 'a1',
      userId: 'cust-7',
    });
    expect(within(list()).queryByText('About cust-7')).toBeNull();
    expect(within(list()).queryByText('Seven')).toBeNull();
    expect(localStorage.getItem('cc.chat.names')).toBe('{}');
    // The next conversation is on screen; the deleted one's messages are gone from this window.
    expect(screen.getByRole('heading', { name: `About ${INSTALL_ID}` })).toBeTruthy();
    expect(t.store.getState().chatMessages['x:user']).toBeUndefined();
  });

  it('search matches names and titles here, and message text through the core', async () => {
    const t = setup({
      'chat.conversations': (a: unknown) => {
        const text = (a as { text?: string }).text;
        if (!text) return { ok: true, value: [conv('cust-7'), conv('cust-8'), conv(INSTALL_ID)] };
        return { ok: true, value: text === 'refund' ? [conv('cust-8', { match: '…asked for a refund of…' })] : [] };
      },
    });
    await t.mount();
    await flush();
    const names = () => [...list().querySelectorAll('.chat-conv-name')].map((n) => n.textContent);
    const searches = () =>
      t.calls
        .filter((c) => c.name === 'chat.conversations' && (c.args as { text?: string }).text)
        .map((c) => (c.args as { text: string }).text);
    const search = screen.getByRole('searchbox', { name: 'Search conversations' });
    // The core is asked 200 ms after typing stops (on a fake clock), once per settled query.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
      fireEvent.change(search, { target: { value: 'CUST-7' } });
      expect(names()).toEqual(['About cust-7']);
      fireEvent.change(search, { target: { value: 'refun' } });
      await advance(150);
      fireEvent.change(search, { target: { value: 'refund' } });
      await advance(199);
      expect(searches()).toEqual([]);
      await advance(1);
      expect(searches()).toEqual(['refund']);
      expect(names()).toEqual(['About cust-8']);
      expect(within(list()).getByText('…asked for a refund of…')).toBeTruthy();
      fireEvent.change(search, { target: { value: 'nothing like this' } });
      await advance(200);
      expect(searches()).toEqual(['refund', 'nothing like this']);
      expect(names()).toEqual([]);
      expect(screen.getByText('No conversation matches “nothing like this”.')).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('previews', () => {
  it("show a reply's words without markdown's marks", () => {
    const reply =
      '## Order 4521\n\nHere is **what** I _found_, see [the list](https://x.test):\n\n| Item | Qty |\n|:--|--:|\n| mug | 2 |\n\n- [x] paid\n1. `step_one` done\n> quoted *note*\n\n```js\nlet a_b = 1;\n```';
    expect(plainPreview(reply)).toBe(
      'Order 4521 Here is what I found, see the list: Item Qty mug 2 paid step_one done quoted note let a_b = 1;',
    );
  });
});
