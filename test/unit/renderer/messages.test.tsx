// @vitest-environment jsdom
// The Messages screen over a fake Api: the contacts with unread counts and an agent's gap in words;
// the open thread with day separators, sides, a failed send's reason; opening marks it read; a new
// message lands in the open thread at once; the sidebar's unread count covers every agent. The
// composer and "New conversation": messages-compose.test.tsx.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  MessageContactsDTO,
  MessageDTO,
  MessageThreadDTO,
  Result,
  TunnelStatusDTO,
} from '../../../src-shared/contract';
import { Nav } from '../../../src-renderer/src/components/Nav';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { formatTimeOfDay } from '../../../src-renderer/src/components/time';
import { afterPaint, agent, flush, mount, setup, team } from './fixtures';

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

function open(answers: Parameters<typeof setup>[0] = {}, contact: string | null = '+15550107777') {
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
      <Nav route={{ name: 'messages', teamId: 't1', agentId: 'a1', contact }} />
      <MessagesScreen teamId="t1" agentId="a1" contact={contact} />
    </>,
  );
  return t;
}

afterEach(() => cleanup());

const TAKEOVER =
  'The service keeps one webhook URL per agent; the one it has now stops receiving. The service issues a new signing secret.';
const tunnelStatus = (exposedUrl: string | null): Result<TunnelStatusDTO> => ({
  ok: true,
  value: {
    running: true,
    listenUrl: 'http://127.0.0.1:47615',
    forwardTo: null,
    agents: ['a1', 'a2'].map((agentId) => ({
      teamId: 't1',
      agentId,
      publicUrl: null,
      registration: { state: 'unknown', text: 'unknown', last: null, takeover: TAKEOVER },
      hasSecret: false,
      localAppDownSince: null,
      pending: 0,
      receiverUrl: `http://127.0.0.1:47615/hooks/${agentId}`,
      exposedUrl: exposedUrl && `${exposedUrl}/hooks/${agentId}`,
    })),
    counts: { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 },
    exposure: {
      state: exposedUrl ? 'up' : 'off',
      kind: null,
      url: exposedUrl,
      since: 0,
      error: null,
      registrations: [],
      ngrokAuthtoken: { stored: false, hint: null },
    },
  },
});

describe('Messages screen', () => {
  it('lists contacts with unread counts and says why an agent may be missing messages', async () => {
    open({}, null);
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
    // The rows above the view come once the first paint is on screen.
    await afterPaint();
    const conv = screen.getByRole('region', { name: 'Conversation with Dana' });
    expect(within(conv).getByText('yesterday question').closest('li')!.className).toContain('in');
    expect(within(conv).getByText('our answer').closest('li')!.className).toContain('out');
    expect(conv.querySelector('.messages-failed')!.textContent).toBe("Not sent: The agent's number is reconnecting.");
    expect(conv.querySelectorAll('.messages-day')).toHaveLength(2);
    // Once the messages are painted (a frame after they are in).
    await waitFor(() =>
      expect(t.calls.filter((c) => c.name === 'messages.markRead').map((c) => c.args)).toEqual([
        { teamId: 't1', agentId: 'a1', phone: '+15550107777' },
      ]),
    );
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

describe('Messages: an agent whose deliveries do not come here', () => {
  it('offers the public URL with the confirm step that names what stops receiving; the inbox is asked again', async () => {
    let registered = false;
    const t = open({
      'tunnel.status': tunnelStatus('https://pub.example.test'),
      'messages.contacts': () =>
        inbox(registered ? { agents: [{ teamId: 't1', agentId: 'a2', unread: 0, gap: null, reason: null }] } : {}),
      'webhook.register': () => {
        registered = true;
        return { ok: true, value: { mode: 'passthrough', url: 'https://pub.example.test/hooks/a2' } };
      },
    });
    await flush();
    // The team's service is not on this machine: no "this receiver"; the public URL is up.
    expect(screen.queryByRole('button', { name: /Register this receiver/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Register the public URL for Agent a2' }));
    await flush();
    expect(t.calls.some((c) => c.name === 'webhook.register')).toBe(false);
    const ask = screen.getByRole('group', { name: 'Confirm the new webhook URL of Agent a2' });
    expect(ask.textContent).toContain(
      `Point the webhook of Agent a2 at https://pub.example.test/hooks/a2? ${TAKEOVER}`,
    );
    fireEvent.click(within(ask).getByRole('button', { name: 'Replace the webhook' }));
    await flush();
    expect(t.calls.find((c) => c.name === 'webhook.register')?.args).toEqual({
      teamId: 't1',
      agentId: 'a2',
      publicUrl: 'https://pub.example.test/hooks/a2',
    });
    await flush();
    expect(screen.queryByText("This app is not the agent's webhook receiver.")).toBeNull();
  });

  it('with nothing to offer (no public URL, service elsewhere) it leads to the Tunnel screen only', async () => {
    open({ 'tunnel.status': tunnelStatus(null) });
    await flush();
    expect(screen.getByText("This app is not the agent's webhook receiver.")).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Register/ })).toBeNull();
    expect(screen.getByRole('link', { name: 'Open the Tunnel screen' }).getAttribute('href')).toBe('#/tunnel');
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

  it('the open conversation shows no unread count (it is being read); times read "9:30 AM" as on every screen', async () => {
    open();
    await flush();
    const row = screen.getByRole('link', { name: /Dana/ });
    expect(row.getAttribute('aria-current')).toBe('true');
    expect(within(row).queryByLabelText('2 unread')).toBeNull();
    expect(row.querySelector('.count')).toBeNull();
    expect(row.querySelector('.messages-contact-time')?.textContent).toBe(formatTimeOfDay(DAY2));
    expect(formatTimeOfDay(DAY2)).toBe('9:30 AM');
  });

  it('"Delete all messages of this agent" sits in the agent\'s More menu above the list, not as a button under it', async () => {
    open();
    await flush();
    const del = screen.getByRole('button', { name: 'Delete all messages of this agent' });
    const menu = del.closest('details');
    expect(menu).not.toBeNull();
    expect(menu!.open).toBe(false);
    expect(del.className).not.toContain('danger');
    const list = document.querySelector('ul.messages-contacts')!;
    expect(list.compareDocumentPosition(del) & Node.DOCUMENT_POSITION_PRECEDING).toBeTruthy();
    // The agent picker and the search are labelled controls of the screen's own style.
    expect((screen.getByLabelText('Agent') as HTMLSelectElement).id).toBe('messages-agent');
    expect(screen.getByLabelText('Search').closest('.messages-search')).not.toBeNull();
  });
});
