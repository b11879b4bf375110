// @vitest-environment jsdom
// The console's "Sent from here" over a fake Api: it lists the agent's sends from the send log
// (messages.sent) — the console's, the Messages composer's and the CLI's, in a fresh window too (after
// a restart) — with this window's sends among them once each, and a send recorded while it is open
// (messages.new) joins the list.
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageDTO, SendArgs } from '../../../src-shared/contract';
import { ConsoleScreen } from '../../../src-renderer/src/features/console/ConsoleScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { flush, mount, setup } from './fixtures';

const line = (over: Partial<MessageDTO>): MessageDTO => ({
  key: 'k',
  teamId: 'team1',
  agentId: 'a1',
  contact: '+15550107777',
  at: Date.UTC(2026, 10, 27, 9, 0),
  direction: 'out',
  fromMe: false,
  type: 'text',
  text: 'hello',
  status: 'sent',
  via: 'console',
  ...over,
});

const LOG = [
  line({ key: 'w3', messageId: 'wamid.3', text: 'from the command line', via: 'cli' }),
  line({ key: 'w2', messageId: 'wamid.2', text: 'from Messages', via: 'messages' }),
  line({
    key: 'send:1',
    text: 'did not go',
    status: 'failed',
    error: { kind: 'needs-scan', code: 'NOT_CONFIGURED', message: 'not linked' },
  }),
];

function open() {
  const t = setup({
    'messages.sent': { ok: true, value: LOG },
    'send.message': { ok: true, value: { status: 'sent', messageId: 'w9', to: '+15550107777' } },
  });
  connectStore(t.store, t.api);
  mount(t.store, <ConsoleScreen teamId="team1" agentId="a1" />);
  return t;
}

const rows = () => within(screen.getByRole('table')).getAllByRole('row').slice(1);

afterEach(() => cleanup());

describe('Sent from here reads the send log', () => {
  it('a fresh window lists what the send log holds for the agent, with where each send was made', async () => {
    const t = open();
    await flush();
    expect(t.calls.filter((c) => c.name === 'messages.sent').map((c) => c.args)).toEqual([
      { teamId: 'team1', agentId: 'a1' },
    ]);
    expect(rows().map((r) => r.querySelector('.send-content')!.textContent)).toEqual([
      'from the command line',
      'from Messages',
      'did not go',
    ]);
    expect(rows()[0]!.textContent).toContain('text · from command line');
    expect(rows()[1]!.textContent).toContain('text · from Messages');
    expect(rows()[2]!.getAttribute('data-state')).toBe('failed');
    expect(rows()[2]!.textContent).toContain('Failed —');
    expect(within(rows()[2]!).getByRole('button', { name: 'Retry the send to +15550107777' })).toBeTruthy();
  });

  it("a send from this window is one row, whether or not the log's line has arrived", async () => {
    const t = open();
    await flush();
    await act(async () => {
      await t.store
        .getState()
        .sendMessage({ teamId: 'team1', agentId: 'a1', to: '+15550107777', text: 'new one', clientRef: 'send-n' });
    });
    const sent = t.calls.find((c) => c.name === 'send.message')!.args as SendArgs;
    expect(sent.clientRef).toBe('send-n');
    expect(rows()).toHaveLength(4);
    act(() =>
      t.emit('messages.new', {
        message: line({ key: 'w9', at: Date.now(), messageId: 'w9', text: 'new one', clientRef: 'send-n' }),
      }),
    );
    expect(rows()).toHaveLength(4);
    // A send another process recorded while the console is open joins the list.
    act(() =>
      t.emit('messages.new', { message: line({ key: 'w10', at: Date.now() + 1, text: 'by the CLI', via: 'cli' }) }),
    );
    expect(rows()).toHaveLength(5);
    expect(rows()[0]!.querySelector('.send-content')!.textContent).toBe('by the CLI');
  });
});
