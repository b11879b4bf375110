// @vitest-environment jsdom
// Simulated (or replayed) deliveries in the Messages screen: each message and a conversation of
// nothing else are marked; such a conversation offers no Reply box; a real message arriving while it
// is open brings the Reply box back.
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageContactDTO, MessageDTO } from '../../../src-shared/contract';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

const TO = '+15550100002';
const at = Date.UTC(2026, 10, 29, 9, 30);

const made = (over: Partial<MessageDTO> = {}): MessageDTO => ({
  key: 'wamid_sim_1',
  teamId: 't1',
  agentId: 'a1',
  contact: TO,
  at,
  direction: 'in',
  fromMe: false,
  type: 'text',
  text: 'Hello from channel-companion trigger',
  messageId: 'wamid_sim_1',
  simulated: true,
  ...over,
});

const conversation: MessageContactDTO = {
  teamId: 't1',
  agentId: 'a1',
  contact: TO,
  lastAt: at,
  last: made(),
  unread: 1,
  count: 1,
  simulated: true,
};

function open() {
  const t = setup(
    {
      'teams.list': { ok: true, value: [team({ agentIds: ['a1'] })] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
      'messages.contacts': {
        ok: true,
        value: { contacts: [conversation], agents: [], unread: 1, retentionDays: 90 },
      },
      'messages.thread': { ok: true, value: { messages: [made()], more: false, simulated: true } },
    },
    { t: at },
  );
  connectStore(t.store, t.api);
  mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={TO} />);
  return t;
}

afterEach(() => cleanup());

describe('simulated deliveries in Messages', () => {
  it('marked in the list and the thread, with no Reply box; a real message brings it back', async () => {
    const t = open();
    await flush();
    expect(screen.getAllByText('Simulated').length).toBeGreaterThan(0);
    expect(screen.getByText('Simulated, not from WhatsApp')).toBeTruthy();
    expect(screen.getByRole('note').textContent).toContain('there is no one to reply to');
    expect(screen.queryByLabelText('Reply')).toBeNull();
    act(() =>
      t.emit('messages.new', {
        message: made({ key: 'wamid_real_1', messageId: 'wamid_real_1', text: 'a real one', simulated: undefined }),
      }),
    );
    await flush();
    expect(screen.getByLabelText('Reply')).toBeTruthy();
    expect(screen.queryByRole('note')).toBeNull();
  });
});
