// @vitest-environment jsdom
// Who did what on a team hub, on screen: a send through the hub says "Sent by NAME" under its bubble (only when
// known, only for a send), and Settings → Team hub lists the team's activity while connected, newest first, a page
// at a time ("Show older" asks for the entries before the last one shown).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubActivityDTO, HubConnectionDTO, MessageDTO } from '../../../src-shared/contract';
import { SendHistory } from '../../../src-renderer/src/features/console/SendHistory';
import { Bubble } from '../../../src-renderer/src/features/messages/Bubble';
import { HubConnection } from '../../../src-renderer/src/features/settings/HubConnection';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup } from './fixtures';

afterEach(cleanup);

const message = (over: Partial<MessageDTO>): MessageDTO => ({
  key: over.key ?? 'k',
  teamId: 't1',
  agentId: 'sales',
  contact: '+15550102000',
  seq: 1,
  at: 1_700_000_000_000,
  direction: 'out',
  fromMe: false,
  type: 'text',
  text: 'hello',
  status: 'sent',
  ...over,
});

describe('Sent by', () => {
  it('shows the member under a send made through the hub, and nothing when no one is known', () => {
    render(
      <ul>
        <Bubble m={message({ key: 'a', text: 'from bob', sentBy: 'bob' })} />
        <Bubble m={message({ key: 'b', text: 'from this machine' })} />
        <Bubble m={message({ key: 'c', text: 'from the contact', direction: 'in', sentBy: 'bob' })} />
      </ul>,
    );
    const items = screen.getAllByRole('listitem');
    expect(items[0]!.textContent).toContain('Sent by bob');
    expect(items[1]!.textContent).not.toContain('Sent by');
    expect(items[2]!.textContent).not.toContain('Sent by');
  });
});

describe('the send log', () => {
  it('says who sent each send through the hub', async () => {
    const t = setup({
      'messages.sent': {
        ok: true,
        value: [
          message({ key: 'w2', teamId: 't1', text: 'from alice', sentBy: 'alice', via: 'messages' }),
          message({ key: 'w1', teamId: 't1', text: 'from here', via: 'console' }),
        ],
      },
    });
    connectStore(t.store, t.api);
    mount(t.store, <SendHistory teamId="t1" agentId="sales" />);
    await flush();
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent?.includes('Sent by alice'))).toEqual([true, false]);
  });
});

const NONE: HubConnectionDTO = { url: null, member: null, role: null, publicUrl: null, problem: null };
const VIC: HubConnectionDTO = {
  url: 'https://hub.example.test',
  member: 'vic',
  role: 'viewer',
  publicUrl: null,
  problem: null,
};
const PAGE_1: HubActivityDTO = {
  entries: [
    {
      id: 9,
      at: 1_700_000_300_000,
      member: 'carol',
      action: 'messages.deleteConversation',
      subject: 'agent sales: 12 messages',
    },
    { id: 8, at: 1_700_000_200_000, member: 'bob', action: 'messages.send', subject: 'agent sales' },
  ],
  next: 8,
};
const PAGE_2: HubActivityDTO = {
  entries: [{ id: 3, at: 1_700_000_100_000, member: null, action: 'member.add', subject: 'carol (admin)' }],
  next: null,
};

describe('team activity', () => {
  it('lists who did what while connected, newest first, and reads older pages on asking', async () => {
    const t = setup({
      'hub.status': { ok: true, value: VIC },
      'hub.activity': (args: unknown) => ({
        ok: true,
        value: (args as { before?: number }).before === 8 ? PAGE_2 : PAGE_1,
      }),
    });
    connectStore(t.store, t.api);
    mount(t.store, <HubConnection />);
    await flush();
    await flush();
    const list = screen.getByRole('list', { name: 'Team activity' });
    const lines = () => Array.from(list.querySelectorAll('li')).map((li) => li.textContent ?? '');
    expect(lines()).toEqual([
      expect.stringContaining('carol deleted a conversation (agent sales: 12 messages)'),
      expect.stringContaining('bob sent a message (agent sales)'),
    ]);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show older' })));
    await flush();
    expect(t.calls.filter((c) => c.name === 'hub.activity').map((c) => c.args)).toEqual([{}, { before: 8 }]);
    expect(lines()[2]).toContain("the hub's operator added a member (carol (admin))");
    // The last page: nothing older to ask for.
    expect(screen.queryByRole('button', { name: 'Show older' })).toBeNull();
  });

  it('is not asked for on this computer’s companion (no hub)', async () => {
    const t = setup({ 'hub.status': { ok: true, value: NONE } });
    connectStore(t.store, t.api);
    mount(t.store, <HubConnection />);
    await flush();
    expect(screen.queryByRole('list', { name: 'Team activity' })).toBeNull();
    expect(t.calls.some((c) => c.name === 'hub.activity')).toBe(false);
  });

  it('says the hub’s refusal instead of a list', async () => {
    const t = setup({
      'hub.status': { ok: true, value: VIC },
      'hub.activity': {
        ok: false,
        error: { kind: 'internal', code: 'DATABASE_UNAVAILABLE', message: "The hub's database could not be read." },
      },
    });
    connectStore(t.store, t.api);
    mount(t.store, <HubConnection />);
    await flush();
    await flush();
    expect(screen.getByRole('alert').textContent).toContain("The hub's database could not be read.");
    expect(screen.queryByRole('list', { name: 'Team activity' })).toBeNull();
  });
});
