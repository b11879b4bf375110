// @vitest-environment jsdom
// The Messages screen over a fake Api: the contacts with unread counts and an agent's gap in words;
// the open thread with day separators, sides, a failed send's reason; opening marks it read; a new
// message lands in the open thread at once; the sidebar's unread count covers every agent. The
// composer and "New conversation": messages-compose.test.tsx.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageContactsDTO, MessageDTO, MessageThreadDTO, Result } from '../../../src-shared/contract';
import { Nav } from '../../../src-renderer/src/components/Nav';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

const DAY1 = Date.UTC(2026, 10, 26, 10, 0);
const DAY2 = Date.UTC(2026, 10, 27, 9, 30);

const msg = (over: Partial<MessageDTO>): MessageDTO => ({
  key: `k${Math.random()}`,
  teamId: 't1',
  agentId: 'a1',
  contact: '+15550107777',
  at: DAY2,
  direction: 'in',
  fromMe: false,
  type: 'text',
  text: 'hi',
  ...over,
});

const inbox = (over: Partial<MessageContactsDTO> = {}): Result<MessageContactsDTO> => ({
  ok: true,
  value: {
    contacts: [
      {
        teamId: 't1',
        agentId: 'a1',
        contact: '+15550107777',
        name: 'Dana',
        lastAt: DAY2,
        last: msg({ text: 'is my order late?\nsecond line' }),
        unread: 2,
        count: 3,
      },
    ],
    agents: [
      { teamId: 't1', agentId: 'a1', unread: 2, gap: null, reason: null },
      {
        teamId: 't1',
        agentId: 'a2',
        unread: 0,
        gap: 'not-registered',
        reason: "This app is not the agent's webhook receiver.",
      },
    ],
    unread: 2,
    retentionDays: 90,
    ...over,
  },
});

const thread = (): Result<MessageThreadDTO> => ({
  ok: true,
  value: {
    messages: [
      msg({ key: 'm1', at: DAY1, text: 'yesterday question' }),
      msg({ key: 'm2', at: DAY2, direction: 'out', text: 'our answer', status: 'sent', via: 'console' }),
      msg({
        key: 'm3',
        at: DAY2 + 60_000,
        direction: 'out',
        text: 'did not go',
        status: 'failed',
        error: { kind: 'reconnecting', code: 'CHANNEL_RECONNECTING', message: 'reconnecting' },
      }),
    ],
    more: false,
    name: 'Dana',
  },
});

function open(answers: Parameters<typeof setup>[0] = {}) {
  const t = setup({
    'teams.list': { ok: true, value: [team({ agentIds: ['a1', 'a2'] })] },
    'agents.list': { ok: true, value: [agent('a1', 'connected'), agent('a2', 'connected')] },
    'messages.contacts': inbox(),
    'messages.thread': thread(),
    'messages.unread': { ok: true, value: { total: 2, agents: [{ teamId: 't1', agentId: 'a1', unread: 2 }] } },
    ...answers,
  });
  connectStore(t.store, t.api);
  mount(
    t.store,
    <>
      <Nav route={{ name: 'messages', teamId: 't1', agentId: 'a1', contact: '+15550107777' }} />
      <MessagesScreen teamId="t1" agentId="a1" contact="+15550107777" />
    </>,
  );
  return t;
}

afterEach(() => cleanup());

describe('Messages screen', () => {
  it('lists contacts with unread counts and says why an agent may be missing messages', async () => {
    open();
    await flush();
    const row = screen.getByRole('link', { name: /Dana/ });
    expect(within(row).getByLabelText('2 unread')).toBeTruthy();
    expect(row.textContent).toContain('is my order late?');
    expect(row.textContent).not.toContain('second line');
    expect(screen.getByText("This app is not the agent's webhook receiver.")).toBeTruthy();
    // The sidebar counts every agent's unread messages.
    expect(screen.getByRole('navigation', { name: 'Main' }).textContent).toContain('2');
  });

  it('shows the thread by day, both sides, a failed send with why; opening it marks it read', async () => {
    const t = open();
    await flush();
    const conv = screen.getByRole('region', { name: 'Conversation with Dana' });
    expect(within(conv).getByText('yesterday question').closest('li')!.className).toContain('in');
    expect(within(conv).getByText('our answer').closest('li')!.className).toContain('out');
    expect(conv.querySelector('.messages-failed')!.textContent).toBe("Not sent: The agent's number is reconnecting.");
    expect(conv.querySelectorAll('.messages-day')).toHaveLength(2);
    expect(t.calls.filter((c) => c.name === 'messages.markRead').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', phone: '+15550107777' },
    ]);
  });

  it('a new message appears in the open thread at once', async () => {
    const t = open();
    await flush();
    act(() => t.emit('messages.new', { message: msg({ key: 'm9', at: DAY2 + 120_000, text: 'are you there?' }) }));
    expect(
      within(screen.getByRole('region', { name: 'Conversation with Dana' })).getByText('are you there?'),
    ).toBeTruthy();
  });
});

describe('Messages thread title', () => {
  it('names the contact through messages.setName, and deletes the conversation after asking', async () => {
    const t = open();
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Name' }));
    fireEvent.change(screen.getByLabelText('Name for +15550107777'), { target: { value: 'Dana Ortiz' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save name' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.setName').map((c) => c.args)).toEqual([
      { phone: '+15550107777', name: 'Dana Ortiz' },
    ]);
    expect(screen.getByRole('heading', { name: 'Dana Ortiz (+15550107777)' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(t.calls.some((c) => c.name === 'messages.deleteConversation')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Delete conversation' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.deleteConversation').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', phone: '+15550107777' },
    ]);
    expect(window.location.hash).toBe('#/messages?team=t1&agent=a1');
  });

  it('deletes every message of the agent only after asking, and empties its inbox', async () => {
    const t = open({ 'messages.deleteAgent': { ok: true, value: null } });
    await flush();
    fireEvent.click(screen.getByRole('button', { name: 'Delete all messages of this agent' }));
    const ask = screen.getByRole('group', { name: /Delete every conversation of/ });
    fireEvent.click(within(ask).getByRole('button', { name: 'Keep them' }));
    expect(screen.queryByRole('group', { name: /Delete every conversation of/ })).toBeNull();
    expect(t.calls.some((c) => c.name === 'messages.deleteAgent')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Delete all messages of this agent' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete all messages' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.deleteAgent').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1' },
    ]);
    expect(window.location.hash).toBe('#/messages?team=t1&agent=a1');
    expect(document.querySelectorAll('a.messages-contact')).toHaveLength(0);
  });
});
