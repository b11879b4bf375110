// Unread messages in the tray (tooltip, menu, badge) and new-message notifications, in the tray
// model, the notifier, and the whole shell over the fake electron module.
import { describe, expect, it, vi } from 'vitest';
import type { TrayDeps } from '../../../src-main/electron/tray';

vi.mock('electron', () => ({}));

import { startElectronShell, type ElectronParts } from '../../../src-main/electron/shell';
import { trayMenu, traySummary, type TrayAction, type TrayState } from '../../../src-main/electron/tray-model';
import { createMessageNotifier } from '../../../src-main/electron/notifications';
import { EVENT_PREFIX, type MessageNoticeDTO } from '../../../src-shared/contract';
import { fakeContract, NOW } from '../contract/fake-contract';
import { fakeElectron } from './fake-electron';
import { agent, recordingNotifications, recordingTray, trayState } from './fixtures';

/** The menu template the tray built. */
type MenuTemplate = Parameters<TrayDeps['Menu']['buildFromTemplate']>[0];

const state = (unread: number): TrayState => trayState([agent('a1')], { unread });

function show(over: Partial<Extract<MessageNoticeDTO, { kind: 'show' }>> = {}): MessageNoticeDTO {
  return {
    kind: 'show',
    group: 'a1/15550100042',
    teamId: 't1',
    agentId: 'a1',
    contact: '+15550100042',
    count: 1,
    title: 'New message from +15550100042',
    body: 'Is my order on its way?\nTo Support bot (a1)',
    privateBody: 'To Support bot (a1)',
    silent: false,
    route: '#/messages?team=t1&agent=a1&with=%2B15550100042',
    ...over,
  };
}

describe('tray: unread messages', () => {
  it('the tooltip adds the unread messages on a line of their own, and none when there are none', () => {
    expect(traySummary([agent('a1')], 0)).toBe('1 agent: 1 connected');
    expect(traySummary([agent('a1')], 1)).toBe('1 agent: 1 connected\n1 unread message');
    expect(traySummary([agent('a1')], 5)).toBe('1 agent: 1 connected\n5 unread messages');
  });

  it('the menu has a Messages line with the count that opens the Messages screen', () => {
    const dispatched: TrayAction[] = [];
    const tpl = recordingTray(state(3), (a) => dispatched.push(a)).trays[0]!.menu as MenuTemplate;
    const line = tpl.find((t) => typeof t.label === 'string' && t.label.startsWith('Messages'))!;
    expect(line.label).toBe('Messages (3 unread messages)');
    (line.click as () => void)();
    expect(dispatched).toEqual([{ type: 'open-messages' }]);
    expect(trayMenu(state(0), NOW).some((i) => 'label' in i && i.label === 'Messages')).toBe(true);
  });

  it('the controller sets the badge and the tooltip from the same count, and clears the badge at 0', () => {
    const { ctl, badge, trays } = recordingTray(state(2));
    expect(badge).toEqual([2]);
    expect(trays[0]!.tooltip).toMatch(/\n2 unread messages$/);
    ctl.update(state(0));
    expect(badge).toEqual([2, 0]);
    expect(trays[0]!.tooltip).toBe('1 agent: 1 connected');
  });
});

describe('message notifications', () => {
  function setup() {
    const { shown, Notification } = recordingNotifications<{ title: string; body: string; silent: boolean }>();
    const openRoute = vi.fn();
    return { shown, openRoute, notifier: createMessageNotifier({ Notification, openRoute }) };
  }

  it('one notification per conversation: the next of the same contact replaces it; another contact has its own', () => {
    const { shown, notifier } = setup();
    notifier.handle(show());
    notifier.handle(show({ count: 3, title: '3 new messages from +15550100042', silent: true }));
    expect(shown).toHaveLength(2);
    expect(shown[0]!.closed).toBe(true);
    expect(shown[1]!.options).toMatchObject({ title: '3 new messages from +15550100042', silent: true });
    notifier.handle(show({ group: 'a1/15550100077', contact: '+15550100077' }));
    expect(notifier.live.size).toBe(2);
  });

  it('a click opens the thread; a clear (the thread was read) closes it', () => {
    const { shown, openRoute, notifier } = setup();
    notifier.handle(show());
    shown[0]!.handlers.get('click')!();
    expect(openRoute).toHaveBeenCalledWith('#/messages?team=t1&agent=a1&with=%2B15550100042');
    notifier.handle(show());
    notifier.handle({ kind: 'clear', group: 'a1/15550100042' });
    expect(shown[1]!.closed).toBe(true);
    expect(notifier.live.size).toBe(0);
  });

  it('when the screen locks, a notification showing a message text is replaced, quietly, by one without it', () => {
    const { shown, notifier } = setup();
    notifier.handle(show());
    notifier.handle(show({ group: 'a1/1999', body: 'To Support bot (a1)' }));
    notifier.screenLocked();
    expect(shown).toHaveLength(3);
    expect(shown[0]!.closed).toBe(true);
    expect(shown[2]!.options).toMatchObject({ body: 'To Support bot (a1)', silent: true });
    expect(shown.map((n) => n.options.body).filter((b) => b.includes('order'))).toHaveLength(1);
    // Already without text: left as it is; locking again changes nothing.
    notifier.screenLocked();
    expect(shown).toHaveLength(3);
  });
});

describe('Electron shell: messages', () => {
  async function start() {
    const fake = fakeElectron({ isPackaged: true });
    const contract = fakeContract();
    const setScreenLocked = vi.fn();
    await startElectronShell(fake.parts as unknown as ElectronParts, {
      outDir: '/checkout/out',
      resourcesPath: '/res',
      createContract: async () => ({
        implementations: contract.impl,
        events: contract.events,
        now: () => NOW,
        setScreenLocked,
        dispose: () => undefined,
      }),
    });
    return { ...fake, contract, setScreenLocked, win: fake.windows()[0]! };
  }

  it('a messages.notice shows a native notification whose click shows the window on the thread', async () => {
    const { contract, notifications, win } = await start();
    contract.events.emit('messages.notice', show());
    expect(notifications).toHaveLength(1);
    expect(notifications[0]!.options).toMatchObject({ title: 'New message from +15550100042', silent: false });
    notifications[0]!.handlers.get('click')!();
    expect(win.webContents.sent).toContainEqual([
      `${EVENT_PREFIX}app.navigate`,
      { route: '#/messages?team=t1&agent=a1&with=%2B15550100042' },
    ]);
    expect(win.show).toHaveBeenCalled();
  });

  it('the badge follows messages.unread (the tray is refreshed through the same request)', async () => {
    const { contract, parts } = await start();
    expect(parts.app.setBadgeCount).toHaveBeenLastCalledWith(0);
    contract.impl['messages.unread'].mockResolvedValue({
      total: 4,
      agents: [{ teamId: 't1', agentId: 'a1', unread: 4 }],
    });
    contract.events.emit('messages.unread', { total: 4, agents: [{ teamId: 't1', agentId: 'a1', unread: 4 }] });
    await vi.waitFor(() => expect(parts.app.setBadgeCount).toHaveBeenLastCalledWith(4));
  });

  it('a burst of changes rebuilds the tray at most twice more, ending on the latest count', async () => {
    const { contract, parts } = await start();
    const asked = contract.impl['messages.unread'].mock.calls.length;
    for (let i = 1; i <= 10; i++) {
      contract.impl['messages.unread'].mockResolvedValue({ total: i, agents: [] });
      contract.events.emit('messages.unread', { total: i, agents: [] });
    }
    await vi.waitFor(() => expect(parts.app.setBadgeCount).toHaveBeenLastCalledWith(10));
    expect(contract.impl['messages.unread'].mock.calls.length - asked).toBeLessThanOrEqual(2);
  });

  it("the platform's lock-screen and unlock-screen reach the core, and a locked screen hides the text on screen", async () => {
    const { contract, notifications, powerMonitor, setScreenLocked } = await start();
    contract.events.emit('messages.notice', show());
    powerMonitor.emit('lock-screen');
    expect(setScreenLocked).toHaveBeenLastCalledWith(true);
    expect(notifications.at(-1)!.options.body).toBe('To Support bot (a1)');
    powerMonitor.emit('unlock-screen');
    expect(setScreenLocked).toHaveBeenLastCalledWith(false);
  });
});
