// @vitest-environment jsdom
// Unread counts in the sidebar, on the home rows and on the agent page, from one answer and one
// event; the agent page's mute switch; the browser host's in-app message notices; the report of the
// thread open with focus; and the Message notifications settings.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageNoticeDTO, MessageUnreadDTO } from '../../../src-shared/contract';
import { Nav } from '../../../src-renderer/src/components/Nav';
import { Toasts } from '../../../src-renderer/src/components/Toasts';
import { AgentList } from '../../../src-renderer/src/features/agents/AgentList';
import { AgentPage } from '../../../src-renderer/src/features/agents/AgentPage';
import { reportOpenThread } from '../../../src-renderer/src/features/messages/openThread';
import { SettingsScreen } from '../../../src-renderer/src/features/settings/SettingsScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, appSettings, flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

const unread = (a1: number, a2: number): MessageUnreadDTO => ({
  total: a1 + a2,
  agents: [
    { teamId: 't1', agentId: 'a1', unread: a1 },
    { teamId: 't1', agentId: 'a2', unread: a2 },
  ],
});

function home(answer: MessageUnreadDTO) {
  const t = setup({
    'teams.list': { ok: true, value: [team({ agentIds: ['a1', 'a2'] })] },
    'agents.list': { ok: true, value: [agent('a1', 'connected'), agent('a2', 'connected')] },
    'messages.unread': { ok: true, value: answer },
  });
  connectStore(t.store, t.api);
  mount(
    t.store,
    <>
      <Nav route={{ name: 'home' }} />
      <AgentList />
    </>,
  );
  return t;
}

const nav = () => screen.getByRole('navigation', { name: 'Main' });
const messagesLink = () => within(nav()).getByRole('link', { name: /^Messages/ });

describe('unread counts', () => {
  it('the sidebar and the home rows show the same counts, and each row links to its agent’s Messages', async () => {
    home(unread(2, 1));
    await flush();
    expect(messagesLink().textContent).toBe('Messages3, 3 unread');
    const a1 = screen.getByRole('link', { name: 'Agent a1: 2 unread messages' });
    expect(a1.getAttribute('href')).toBe('#/messages?team=t1&agent=a1');
    expect(a1.textContent).toBe('2 unread');
    expect(screen.getByRole('link', { name: 'Agent a2: 1 unread message' })).toBeTruthy();
  });

  it('a messages.unread event moves every count at once; at 0 the badges go', async () => {
    const t = home(unread(2, 1));
    await flush();
    act(() => t.emit('messages.unread', unread(0, 4)));
    expect(messagesLink().textContent).toBe('Messages4, 4 unread');
    expect(screen.queryByRole('link', { name: /Agent a1: / })).toBeNull();
    expect(screen.getByRole('link', { name: 'Agent a2: 4 unread messages' })).toBeTruthy();
    act(() => t.emit('messages.unread', unread(0, 0)));
    expect(messagesLink().textContent).toBe('Messages');
    expect(document.querySelectorAll('.agent-unread')).toHaveLength(0);
  });

  it('an answer asked before an event arrived does not undo the event', async () => {
    let answer: (v: unknown) => void = () => undefined;
    const { store, api } = setup({
      'messages.unread': () => new Promise((r) => (answer = r)) as never,
    });
    const asked = store.getState().loadUnread();
    store.getState().applyUnread(unread(0, 0));
    answer({ ok: true, value: unread(5, 5) });
    await asked;
    expect(store.getState().unreadAll).toBe(0);
    expect(api['messages.unread']).toHaveBeenCalledTimes(1);
  });
});

describe('the agent page', () => {
  it('shows the agent’s unread count with a link, and mutes its notifications', async () => {
    const t = setup({
      'settings.get': {
        ok: true,
        value: {
          messageNotifications: {
            enabled: true,
            showText: true,
            quietHours: { enabled: false, start: '22:00', end: '07:00' },
            muted: [],
          },
        },
      },
      'messages.mute': {
        ok: true,
        value: {
          enabled: true,
          showText: true,
          quietHours: { enabled: false, start: '22:00', end: '07:00' },
          muted: [{ teamId: 't1', agentId: 'a1' }],
        },
      },
    });
    t.store.setState({ teams: [team()], loaded: true });
    t.store.getState().setAgents([agent('a1', 'connected')]);
    await t.store.getState().loadSettings();
    t.store.getState().applyUnread(unread(3, 0));
    mount(t.store, <AgentPage agentId="a1" teamId="t1" />);
    await flush();
    const card = screen.getByRole('region', { name: 'Messages' });
    expect(within(card).getByRole('link', { name: '3 unread messages' }).getAttribute('href')).toBe(
      '#/messages?team=t1&agent=a1',
    );
    const box = within(card).getByRole('checkbox', { name: 'Mute new-message notifications' }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.mute').map((c) => c.args)).toEqual([
      { teamId: 't1', agentId: 'a1', muted: true },
    ]);
    expect(box.checked).toBe(true);
    expect(card.textContent).toContain('the unread counts still change');
  });
});

const notice = (over: Partial<Extract<MessageNoticeDTO, { kind: 'show' }>> = {}): MessageNoticeDTO => ({
  kind: 'show',
  group: 'a1/15550100042',
  teamId: 't1',
  agentId: 'a1',
  contact: '+15550100042',
  count: 1,
  title: 'New message from +15550100042',
  body: 'Is my order on its way?\nTo Agent a1 (a1)',
  privateBody: 'To Agent a1 (a1)',
  silent: false,
  route: '#/messages?team=t1&agent=a1&with=%2B15550100042',
  ...over,
});

describe('in-app message notices (browser host)', () => {
  it('one notice per conversation, replaced by the next; several conversations as one notice; its link opens the thread; a clear removes it', () => {
    const { store } = setup();
    mount(store, <Toasts />);
    const region = () => screen.getByRole('status', { name: 'Notifications' });
    act(() => store.getState().applyMessageNotice(notice()));
    act(() => store.getState().applyMessageNotice(notice({ count: 2, title: '2 new messages from +15550100042' })));
    expect(region().textContent).toContain('Message: 2 new messages from +15550100042');
    act(() => store.getState().applyMessageNotice(notice({ group: 'a1/1999', title: 'New message from Ana' })));
    expect(store.getState().notices.map((n) => n.title)).toEqual([
      '2 new messages from +15550100042',
      'New message from Ana',
    ]);
    // Two conversations: one notice for both, opening the inbox; dismissing it dismisses both.
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    expect(region().textContent).toContain('Message: New messages in 2 conversations');
    expect(region().textContent).toContain('Latest: New message from Ana');
    expect(screen.getByRole('link', { name: 'New messages in 2 conversations' }).getAttribute('href')).toBe(
      '#/messages',
    );
    act(() => store.getState().applyMessageNotice({ kind: 'clear', group: 'a1/1999' }));
    const link = screen.getByRole('link', { name: '2 new messages from +15550100042' });
    expect(link.getAttribute('href')).toBe('#/messages?team=t1&agent=a1&with=%2B15550100042');
    act(() => store.getState().applyMessageNotice(notice({ group: 'a1/1999', title: 'New message from Ana' })));
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss: New messages in 2 conversations' }));
    expect(store.getState().notices).toHaveLength(0);
    act(() => store.getState().applyMessageNotice(notice()));
    fireEvent.click(screen.getByRole('link', { name: 'New message from +15550100042' }));
    expect(store.getState().route).toBe('#/messages?team=t1&agent=a1&with=%2B15550100042');
    expect(store.getState().notices).toHaveLength(0);
  });
});

describe('the thread open with focus', () => {
  it('is reported when the route shows a thread and the window has focus (once its messages are in); none on blur or elsewhere; each change once', async () => {
    const { store, api, calls } = setup();
    const focus = () => calls.filter((c) => c.name === 'messages.focus').map((c) => c.args);
    let focused = true;
    let changed: () => void = () => undefined;
    const stop = reportOpenThread(store, api, {
      hasFocus: () => focused,
      visible: () => true,
      onChange: (fn) => {
        changed = fn;
        return () => undefined;
      },
    });
    const dana = { teamId: 't1', agentId: 'a1', phone: '+15550100042' };
    store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100042');
    // Not before the thread's messages are in: the host answers the thread's request first.
    expect(focus()).toEqual([{}]);
    await waitFor(() => expect(focus()).toEqual([{}, dana]));
    store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100042');
    focused = false;
    changed();
    focused = true;
    changed();
    store.getState().setRoute('#/messages?team=t1&agent=a1');
    store.getState().setRoute('#/messages?team=t1&agent=a1&with=%2B15550100077');
    await waitFor(() => expect(focus()).toHaveLength(6));
    stop();
    expect(focus()).toEqual([{}, dana, {}, dana, {}, { teamId: 't1', agentId: 'a1', phone: '+15550100077' }, {}]);
  });
});

describe('settings: Message notifications', () => {
  it('switches and quiet hours are saved as a patch of messageNotifications', async () => {
    const base = appSettings({
      messageNotifications: { ...appSettings().messageNotifications, muted: [{ teamId: 't1', agentId: 'a1' }] },
    });
    const t = setup({
      'settings.get': { ok: true, value: base },
      'settings.update': { ok: true, value: base },
    });
    t.store.getState().setAgents([agent('a1', 'connected')]);
    await t.store.getState().loadSettings();
    mount(t.store, <SettingsScreen />);
    const card = screen.getByRole('region', { name: 'Message notifications' });
    fireEvent.click(within(card).getByRole('switch', { name: /Show the message text/ }));
    fireEvent.click(within(card).getByRole('checkbox', { name: 'No message notifications during quiet hours' }));
    fireEvent.change(within(card).getByLabelText('Quiet from'), { target: { value: '21:00' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Save quiet hours' }));
    await flush();
    expect(t.calls.filter((c) => c.name === 'settings.update').map((c) => c.args)).toEqual([
      { patch: { messageNotifications: { showText: false } } },
      { patch: { messageNotifications: { quietHours: { enabled: true, start: '21:00', end: '07:00' } } } },
    ]);
    expect(card.textContent).toContain('Muted (on their pages): Agent a1.');
  });
});
