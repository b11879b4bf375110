// @vitest-environment jsdom
// A member's role changed on the team hub while the window is open: the hub's `hub.role` event makes the window
// read the role again (hub.status), and the controls the role now allows come back without a reload; a role
// lowered disables them again, with the reason.
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubConnectionDTO } from '../../../src-shared/contract';
import { MessagesScreen } from '../../../src-renderer/src/features/messages/MessagesScreen';
import { connectStore } from '../../../src-renderer/src/store';
import { agent, flush, mount, setup, team } from './fixtures';

afterEach(cleanup);

const TO = '+15550107777';
const as = (role: string): HubConnectionDTO => ({
  url: 'https://hub.example.test',
  member: 'vic',
  role,
  publicUrl: 'https://hub.example.test',
  problem: null,
});
const sendButton = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;

describe('a role changed on the hub reaches the open window', () => {
  it('the hub.role event re-reads the role: Send enables when raised, disables when lowered', async () => {
    let hub = as('viewer');
    const t = setup({
      'hub.status': () => ({ ok: true, value: hub }),
      'teams.list': { ok: true, value: [team()] },
      'agents.list': { ok: true, value: [agent('a1', 'connected')] },
    });
    connectStore(t.store, t.api);
    mount(t.store, <MessagesScreen teamId="t1" agentId="a1" contact={TO} />);
    await flush();
    expect(sendButton().disabled).toBe(true);
    expect(screen.getByTestId('role-note').textContent).toContain("Your role (viewer) can't send messages");
    const statusReads = () => t.calls.filter((c) => c.name === 'hub.status').length;
    const before = statusReads();

    hub = as('developer');
    t.emit('hub.role', { member: 'vic', role: 'developer' });
    await flush();
    expect(statusReads()).toBe(before + 1);
    expect(sendButton().disabled).toBe(false);
    expect(screen.queryByTestId('role-note')).toBeNull();

    hub = as('viewer');
    t.emit('hub.role', { member: 'vic', role: 'viewer' });
    await flush();
    expect(sendButton().disabled).toBe(true);
    expect(sendButton().title).toContain("Your role (viewer) can't send messages");
    // Nothing was sent or asked beyond the role: the screen was not reloaded.
    expect(t.calls.filter((c) => c.name === 'messages.send')).toEqual([]);
  });
});
