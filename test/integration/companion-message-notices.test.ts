// Unread counts and new-message notices over the companion, its receiver and the emulator: a
// contact writes (a signed delivery through the receiver) and the counts and one notice per
// conversation follow; the thread open with focus, a muted agent and own sends are not notified;
// reading a thread closes its notice and the counts fall; the settings are validated.
import { describe, expect, it } from 'vitest';
import type { AppSettingsDTO, MessageNoticeDTO, MessageUnreadDTO } from '../../src-shared/contract';
import type { Emulator } from '../../src-main/emulator';
import { companionSuite } from '../helpers/companion-suite';
import { control, waitFor } from '../helpers/emulator';

const AGENT = 'agent-connected';
const OTHER = 'agent-flaky';
const ANA = '+15550108801';
const BEN = '+15550108802';

describe('unread counts and new-message notices', () => {
  let emu: Emulator;
  let teamId = '';
  const { call, ok, events } = companionSuite(
    'cc-notices-',
    {
      agents: [{ agentId: AGENT, label: 'Support bot' }, { agentId: OTHER }],
      register: AGENT,
      companion: { startTunnel: true },
    },
    (s) => ({ emu, teamId } = s),
  );
  let n = 0;

  const notices = (): MessageNoticeDTO[] => events.flatMap((e) => (e.name === 'messages.notice' ? [e.payload] : []));
  const lastUnread = (): MessageUnreadDTO | undefined =>
    events.flatMap((e) => (e.name === 'messages.unread' ? [e.payload] : [])).at(-1);
  /** A contact writes; resolves once the message is stored (its messages.new event). */
  async function writes(from: string, text: string): Promise<void> {
    n += 1;
    const id = `wamid_notice_${n}`;
    await control(emu, 'POST', `/agents/${AGENT}/inbound`, { from, text, id });
    await waitFor(() => events.find((e) => e.name === 'messages.new' && e.payload.message.messageId === id), 5000);
    // The counts are published right after (coalesced in the same turn).
    await new Promise((r) => setTimeout(r, 0));
  }

  it('a burst from one contact: one conversation notice counting its unread messages, and the counts agree', async () => {
    await writes(ANA, 'Hello, is anyone there?');
    await writes(ANA, 'My order is 1234');
    const shown = notices().filter((x) => x.kind === 'show');
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatchObject({
      group: `${AGENT}/15550108801`,
      teamId,
      contact: ANA,
      count: 1,
      title: `New message from ${ANA}`,
      body: `Hello, is anyone there?\nTo Support bot (${AGENT})`,
      silent: false,
      route: `#/messages?team=${teamId}&agent=${AGENT}&with=%2B15550108801`,
    });
    expect(shown[1]).toMatchObject({
      group: shown[0]!.group,
      count: 2,
      title: `2 new messages from ${ANA}`,
      silent: true,
    });
    const unread = await ok<MessageUnreadDTO>('messages.unread');
    expect(unread).toEqual({
      total: 2,
      agents: [
        { teamId, agentId: AGENT, unread: 2 },
        { teamId, agentId: OTHER, unread: 0 },
      ],
    });
    expect(lastUnread()).toEqual(unread);
    const contacts = await ok<{ unread: number }>('messages.contacts', {});
    expect(contacts.unread).toBe(unread.total);
  });

  it('the thread open with focus is not notified (its count still rises); another contact is', async () => {
    await ok('messages.focus', { teamId, agentId: AGENT, phone: ANA });
    const before = notices().length;
    await writes(ANA, 'Still waiting');
    expect(notices()).toHaveLength(before);
    expect(lastUnread()?.total).toBe(3);
    await writes(BEN, 'Hi from Ben');
    expect(notices().at(-1)).toMatchObject({ kind: 'show', contact: BEN, count: 1 });
    await ok('messages.focus', {});
  });

  it('reading a thread closes its notice and the counts fall everywhere', async () => {
    await ok('messages.markRead', { teamId, agentId: AGENT, phone: ANA });
    await waitFor(() => notices().find((x) => x.kind === 'clear' && x.group === `${AGENT}/15550108801`), 5000);
    await waitFor(() => (lastUnread()?.total === 1 ? true : null), 5000);
    expect((await ok<MessageUnreadDTO>('messages.unread')).total).toBe(1);
  });

  it('a reply sent from this install notifies no one and leaves the counts', async () => {
    const before = notices().length;
    await ok('messages.send', { teamId, agentId: AGENT, to: BEN, text: 'Hello Ben' });
    await waitFor(() => events.find((e) => e.name === 'messages.new' && e.payload.message.text === 'Hello Ben'), 5000);
    expect(notices()).toHaveLength(before);
    expect((await ok<MessageUnreadDTO>('messages.unread')).total).toBe(1);
  });

  it('a muted agent: counts still change, no notice; the mute is kept in the settings', async () => {
    const muted = await ok<AppSettingsDTO['messageNotifications']>('messages.mute', {
      teamId,
      agentId: AGENT,
      muted: true,
    });
    expect(muted.muted).toEqual([{ teamId, agentId: AGENT }]);
    const before = notices().length;
    await writes(BEN, 'Are you there?');
    expect(notices()).toHaveLength(before);
    expect(lastUnread()?.total).toBe(2);
    await ok('messages.mute', { teamId, agentId: AGENT, muted: false });
    expect((await ok<AppSettingsDTO>('settings.get')).messageNotifications.muted).toEqual([]);
  });

  it('the settings: a patch in part; bad quiet hours are refused with a clear error and change nothing', async () => {
    const s = await ok<AppSettingsDTO>('settings.update', {
      patch: { messageNotifications: { showText: false } },
    });
    expect(s.messageNotifications).toMatchObject({ enabled: true, showText: false });
    await writes(BEN, 'Secret code 4321');
    const last = notices().at(-1);
    expect(last).toMatchObject({ kind: 'show', body: `To Support bot (${AGENT})` });
    expect(JSON.stringify(last)).not.toContain('4321');

    const bad = await call('settings.update', {
      patch: { messageNotifications: { quietHours: { enabled: true, start: '22:00', end: '22:00' } } },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/quiet hours need an end time different from the start time/i);
    const wrong = await call('settings.update', {
      patch: { messageNotifications: { quietHours: { enabled: true, start: '25:00', end: '07:00' } } },
    });
    expect(wrong.ok).toBe(false);
    expect((await ok<AppSettingsDTO>('settings.get')).messageNotifications).toEqual({
      enabled: true,
      showText: false,
      quietHours: { enabled: false, start: '22:00', end: '07:00' },
      muted: [],
    });
  });

  it('a thread named with only part of its address is refused', async () => {
    const r = await call('messages.focus', { agentId: AGENT });
    expect(r.ok).toBe(false);
  });
});
