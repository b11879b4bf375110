// The new-message notify policy on a fake clock and a fake local time (UTC): who is told, in which
// words, and when a burst is quiet.
import { describe, expect, it } from 'vitest';
import { MessageNotifyPolicy, type NotifyContext } from '../../../../src-main/core/messages/notify-policy';
import type { Message } from '../../../../src-main/core/messages';
import type { LocalTime } from '../../../../src-main/core/monitor/types';

type MessageNotifySettings = ReturnType<ConstructorParameters<typeof MessageNotifyPolicy>[0]['settings']>;

/** A message older than this when it is stored notifies no one. */
const RECENT_MS = 10 * 60_000;

/** Notices of one conversation closer together than this replace each other without a sound. */
const BURST_MS = 60_000;

/** 2025-01-15 12:00 UTC. */
const NOON = Date.UTC(2025, 0, 15, 12, 0);
const utc: LocalTime = {
  minutesOfDay: (ms) => Math.floor((ms % 86_400_000) / 60_000),
  nextAt: () => {
    throw new Error('not used');
  },
};
const at = (h: number, m = 0) => Date.UTC(2025, 0, 15, h, m);

function setup(over: Partial<MessageNotifySettings> = {}) {
  const clock = { now: NOON };
  const settings: MessageNotifySettings = {
    enabled: true,
    showText: true,
    quietHours: { enabled: false, start: '22:00', end: '07:00' },
    muted: [],
    ...over,
  };
  const policy = new MessageNotifyPolicy({ now: () => clock.now, settings: () => settings, localTime: utc });
  return { clock, settings, policy };
}

let n = 0;
function inbound(over: Partial<Message> = {}): Message {
  n += 1;
  return {
    key: `m${n}`,
    agentId: 'a1',
    contact: '15550100042',
    seq: n,
    at: NOON,
    direction: 'in',
    fromMe: false,
    type: 'text',
    text: 'Is my order on its way?',
    ...over,
  };
}

const ctx = (over: Partial<NotifyContext> = {}): NotifyContext => ({
  teamId: 't1',
  agentName: 'Support bot (a1)',
  contactName: '+15550100042',
  unread: 1,
  ...over,
});

describe('message notify policy', () => {
  it('a message a contact wrote notifies with its first line and the agent it was written to', () => {
    const { policy } = setup();
    const d = policy.decide(inbound({ text: 'Is my order on its way?\nOrder 1234' }), ctx());
    expect(d).toEqual({
      show: {
        group: 'a1/15550100042',
        teamId: 't1',
        agentId: 'a1',
        contact: '15550100042',
        count: 1,
        title: 'New message from +15550100042',
        body: 'Is my order on its way?\nTo Support bot (a1)',
        privateBody: 'To Support bot (a1)',
        silent: false,
      },
    });
  });

  it('a simulated message says so in its title', () => {
    const { policy } = setup();
    const d = policy.decide(inbound({ simulated: true }), ctx());
    expect(d).toMatchObject({ show: { title: 'New message from +15550100042 (simulated)' } });
  });

  it('a burst from one contact is one group counted by its unread messages; repeats within the burst are silent', () => {
    const { policy, clock } = setup();
    const first = policy.decide(inbound(), ctx({ unread: 1 }));
    clock.now += 5_000;
    const second = policy.decide(inbound(), ctx({ unread: 2 }));
    clock.now += 5_000;
    const third = policy.decide(inbound({ text: 'Hello?' }), ctx({ unread: 3 }));
    expect('show' in first && first.show.silent).toBe(false);
    expect(third).toMatchObject({
      show: { group: 'a1/15550100042', count: 3, title: '3 new messages from +15550100042', silent: true },
    });
    expect('show' in second && second.show.group).toBe('a1/15550100042');
    // Another contact of the same agent is a group of its own, with its own sound.
    const other = policy.decide(inbound({ contact: '15550100077' }), ctx({ contactName: 'Ana' }));
    expect(other).toMatchObject({ show: { group: 'a1/15550100077', title: 'New message from Ana', silent: false } });
    // After the burst window, the same contact is heard again.
    clock.now += BURST_MS;
    expect(policy.decide(inbound(), ctx({ unread: 4 }))).toMatchObject({ show: { silent: false, count: 4 } });
  });

  it('messages sent from this install or typed on the phone never notify', () => {
    const { policy } = setup();
    expect(policy.decide(inbound({ direction: 'out', fromMe: true }), ctx())).toEqual({ skip: 'not-inbound' });
    expect(policy.decide(inbound({ direction: 'out', sendId: 's1', via: 'messages' }), ctx())).toEqual({
      skip: 'not-inbound',
    });
  });

  it('a muted agent never notifies, in its team; another agent still does', () => {
    const { policy, settings } = setup({ muted: [{ teamId: 't1', agentId: 'a1' }] });
    expect(policy.decide(inbound(), ctx())).toEqual({ skip: 'muted' });
    expect(policy.decide(inbound({ agentId: 'a2' }), ctx())).toHaveProperty('show');
    settings.muted = [{ teamId: 't2', agentId: 'a1' }];
    expect(policy.decide(inbound(), ctx())).toHaveProperty('show');
  });

  it('notifications switched off: nothing', () => {
    const { policy } = setup({ enabled: false });
    expect(policy.decide(inbound(), ctx())).toEqual({ skip: 'disabled' });
  });

  it('quiet hours across midnight: quiet from their start up to (not at) their end, loud outside', () => {
    const { policy, clock } = setup({ quietHours: { enabled: true, start: '22:00', end: '07:00' } });
    const when = (t: number) => {
      clock.now = t;
      const d = policy.decide(inbound({ at: t }), ctx());
      return 'skip' in d ? d.skip : 'show';
    };
    expect(when(at(21, 59))).toBe('show');
    expect(when(at(22, 0))).toBe('quiet-hours');
    expect(when(at(23, 30))).toBe('quiet-hours');
    expect(when(at(0, 15))).toBe('quiet-hours');
    expect(when(at(6, 59))).toBe('quiet-hours');
    expect(when(at(7, 0))).toBe('show');
  });

  it('quiet hours switched off (the times kept) do not silence anything', () => {
    const { policy, clock } = setup({ quietHours: { enabled: false, start: '22:00', end: '07:00' } });
    clock.now = at(23);
    expect(policy.decide(inbound({ at: at(23) }), ctx())).toHaveProperty('show');
  });

  it('a locked screen, or the setting, keeps the text out of the notification', () => {
    const { policy, settings } = setup();
    policy.setScreenLocked(true);
    expect(policy.decide(inbound(), ctx())).toMatchObject({ show: { body: 'To Support bot (a1)' } });
    policy.setScreenLocked(false);
    expect(policy.decide(inbound(), ctx())).toMatchObject({ show: { body: expect.stringContaining('order') } });
    settings.showText = false;
    expect(policy.decide(inbound(), ctx())).toMatchObject({ show: { body: 'To Support bot (a1)' } });
  });

  it('the thread open with focus is not notified; another thread, or none open, is', () => {
    const { policy } = setup();
    policy.setOpenThread({ agentId: 'a1', contact: '+15550100042' });
    expect(policy.decide(inbound(), ctx())).toEqual({ skip: 'open-thread' });
    expect(policy.decide(inbound({ contact: '15550100077' }), ctx())).toHaveProperty('show');
    expect(policy.decide(inbound({ agentId: 'a2' }), ctx())).toHaveProperty('show');
    policy.setOpenThread(null);
    expect(policy.decide(inbound(), ctx())).toHaveProperty('show');
  });

  it('a message stored long after it was written (a log read again) notifies no one', () => {
    const { policy } = setup();
    expect(policy.decide(inbound({ at: NOON - RECENT_MS - 1 }), ctx())).toEqual({ skip: 'old' });
    expect(policy.decide(inbound({ at: NOON - RECENT_MS + 1000 }), ctx())).toHaveProperty('show');
  });

  it('media without text says what it is', () => {
    const { policy } = setup();
    expect(policy.decide(inbound({ type: 'image', text: '' }), ctx())).toMatchObject({
      show: { body: 'Picture\nTo Support bot (a1)' },
    });
    expect(
      policy.decide(inbound({ type: 'document', text: '', media: { filename: 'invoice.pdf' } }), ctx()),
    ).toMatchObject({ show: { body: 'Document: invoice.pdf\nTo Support bot (a1)' } });
  });

  it('read conversations among those notified are handed back once, to close their notices', () => {
    const { policy } = setup();
    policy.decide(inbound(), ctx());
    policy.decide(inbound({ contact: '15550100077' }), ctx());
    const unread = new Map([
      ['15550100042', 0],
      ['15550100077', 2],
    ]);
    expect(policy.readGroups((_a, c) => unread.get(c) ?? 0)).toEqual(['a1/15550100042']);
    expect(policy.readGroups((_a, c) => unread.get(c) ?? 0)).toEqual([]);
  });
});
