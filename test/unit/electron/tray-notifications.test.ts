import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { TrayDeps } from '../../../src-main/electron/tray';

vi.mock('electron', () => ({}));

import {
  agentRoute,
  trayIconState,
  trayMenu,
  traySummary,
  type TrayAction,
} from '../../../src-main/electron/tray-model';
import { createAlertNotifier, type NotificationOptionsLike } from '../../../src-main/electron/notifications';
import { HEALTHS, type IncidentDTO } from '../../../src-shared/contract';
import { HEALTH_SHORT } from '../../../src-shared/words';
import { NOW } from '../contract/fake-contract';
import { agent, recordingNotifications, recordingTray, trayState } from './fixtures';

/** The menu template the tray built. */
type MenuTemplate = Parameters<TrayDeps['Menu']['buildFromTemplate']>[0];

describe('tray model', () => {
  it('summarises agents by health', () => {
    expect(traySummary([agent('a', 'connected'), agent('b', 'connected'), agent('c', 'needs-scan')])).toBe(
      '3 agents: 2 connected, 1 needs a QR scan',
    );
    expect(traySummary([agent('a', 'reconnecting')])).toBe('1 agent: 1 reconnecting');
    expect(traySummary([])).toMatch(/no agents/);
  });

  it("says each health in the screens' words: a menu line as the agent's badge, the tooltip as the summary", () => {
    for (const h of HEALTHS) {
      const [line] = trayMenu(trayState([agent('a1', h, 'Bot')]), NOW);
      expect(line && 'label' in line ? line.label : '').toMatch(new RegExp(` — ${HEALTH_SHORT[h]}$`));
    }
    expect(traySummary([agent('a', 'needs-scan'), agent('b', 'needs-scan')])).toBe('2 agents: 2 need a QR scan');
  });

  it('picks the icon of the worst health', () => {
    expect(trayIconState([agent('a', 'connected')])).toBe('connected');
    expect(trayIconState([agent('a', 'connected'), agent('b', 'reconnecting')])).toBe('reconnecting');
    expect(trayIconState([agent('a', 'unreachable'), agent('b', 'reconnecting')])).toBe('unreachable');
    expect(trayIconState([agent('a', 'unreachable'), agent('b', 'needs-scan'), agent('c', 'connected')])).toBe(
      'needs-scan',
    );
    expect(trayIconState([])).toBe('unknown');
  });

  it('has an icon for every health: a rejected key or an unknown agent shows the unreachable one', async () => {
    const { existsSync } = await import('node:fs');
    for (const h of HEALTHS) {
      const icon = trayIconState([agent('a', h)]);
      expect(existsSync(`build/tray/${icon}.png`), `${h} → ${icon}.png`).toBe(true);
    }
    expect(trayIconState([agent('a', 'key-rejected'), agent('b', 'reconnecting')])).toBe('unreachable');
    expect(trayIconState([agent('a', 'not-found')])).toBe('unreachable');
  });

  it('has one line per agent that opens it (pairing when a scan is needed), and the app actions', () => {
    const menu = trayMenu(
      trayState([agent('a1', 'connected', 'Support bot'), agent('a2', 'needs-scan', 'OTP')], { openIncidents: 2 }),
      NOW,
    );
    const items = menu.filter((i) => i.kind === 'item');
    expect(items[0]).toMatchObject({
      label: '● Support bot — Connected',
      action: { type: 'open-agent', agentId: 'a1', needsScan: false },
    });
    expect(items[1]).toMatchObject({
      label: '▲ OTP — Needs a QR scan',
      action: { type: 'open-agent', agentId: 'a2', needsScan: true },
    });
    const labels = menu.map((i) => ('label' in i ? i.label : '-'));
    expect(labels).toEqual(
      expect.arrayContaining([
        'Acknowledge all alerts (2)',
        'Snooze alerts',
        'Open Channel Companion',
        'Start at login',
        'Quit',
      ]),
    );
    expect(agentRoute('t1', 'a2', true)).toBe('#/agents/a2/pairing?team=t1');
  });

  it('menu template clicks dispatch actions; start at login follows the checkbox', () => {
    const dispatched: TrayAction[] = [];
    const { trays } = recordingTray(trayState([agent('a1', 'connected')]), (a) => dispatched.push(a));
    const tpl = trays[0]!.menu as MenuTemplate;
    const find = (label: string) => tpl.find((t) => t.label === label)!;
    (find('● a1 — Connected').click as () => void)();
    (find('Start at login').click as (mi: { checked: boolean }) => void)({ checked: true });
    (find('Quit').click as () => void)();
    const snooze = find('Snooze alerts').submenu as { label: string; click: () => void }[];
    snooze.find((s) => s.label === 'Until tomorrow morning')!.click();
    expect(find('Acknowledge all alerts').enabled).toBe(false);
    expect(dispatched).toEqual([
      { type: 'open-agent', teamId: 't1', agentId: 'a1', needsScan: false },
      { type: 'start-at-login', enabled: true },
      { type: 'quit' },
      { type: 'snooze-tomorrow' },
    ]);
  });

  it('controller sets the icon per worst health and updates tooltip and menu', () => {
    const { ctl, images, trays } = recordingTray(trayState([agent('a', 'connected')]));
    expect(images).toEqual([join('/icons', 'connected.png')]);
    expect(trays[0]!.tooltip).toBe('1 agent: 1 connected');
    ctl.update(trayState([agent('a', 'connected'), agent('b', 'unreachable')]));
    expect(images.at(-1)).toBe(join('/icons', 'unreachable.png'));
    expect(trays[0]!.tooltip).toBe('2 agents: 1 connected, 1 unreachable');
    ctl.update(trayState([agent('a', 'connected'), agent('b', 'unreachable')]));
    expect(images).toHaveLength(2); // unchanged state → no icon reload
  });
});

function incident(over: Partial<IncidentDTO> = {}): IncidentDTO {
  return {
    id: 'i1',
    teamId: 't1',
    agentId: 'a1',
    kind: 'needs-scan',
    severity: 'urgent',
    title: 'OTP needs a QR scan',
    message: 'The number was unlinked.',
    openedAt: NOW,
    acknowledgedAt: null,
    resolvedAt: null,
    endedAt: null,
    durationMs: null,
    ...over,
  };
}

describe('alert notifications', () => {
  function setup(enabled = true) {
    const { shown, Notification } = recordingNotifications<NotificationOptionsLike>();
    const openRoute = vi.fn();
    const notifier = createAlertNotifier({ Notification, openRoute, enabled: () => enabled });
    return { shown, openRoute, notifier };
  }

  it('urgent → critical and kept on screen; click opens the pairing page of a needs-scan agent', () => {
    const { shown, openRoute, notifier } = setup();
    notifier.handle({ change: 'opened', incident: incident(), notify: true });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.options).toMatchObject({
      title: 'OTP needs a QR scan',
      urgency: 'critical',
      timeoutType: 'never',
    });
    shown[0]!.handlers.get('click')!();
    expect(openRoute).toHaveBeenCalledWith('#/agents/a1/pairing?team=t1');
    expect(notifier.live.size).toBe(0);
  });

  it('a warning is normal urgency and opens the agent page', () => {
    const { shown, openRoute, notifier } = setup();
    notifier.handle({
      change: 'opened',
      incident: incident({ id: 'i2', kind: 'reconnecting', severity: 'warning' }),
      notify: true,
    });
    expect(shown[0]!.options.urgency).toBe('normal');
    shown[0]!.handlers.get('click')!();
    expect(openRoute).toHaveBeenCalledWith('#/agents/a1?team=t1');
  });

  it('an urgent notification closes itself when its incident resolves; the recovery notice shows quietly in its place', () => {
    const { shown, notifier } = setup();
    notifier.handle({ change: 'opened', incident: incident(), notify: true });
    const urgent = shown[0]!;
    expect(notifier.live.get('i1')).toBe(urgent);
    notifier.handle({
      change: 'resolved',
      incident: incident({ resolvedAt: NOW, title: 'OTP is back to connected after 3 min' }),
      notify: true,
    });
    expect(urgent.closed).toBe(true);
    expect(shown).toHaveLength(2);
    expect(shown[1]!.options).toMatchObject({
      title: 'OTP is back to connected after 3 min',
      urgency: 'low',
      silent: true,
      timeoutType: 'default',
    });
  });

  it('a resolve the person was not told about closes the notification and shows nothing', () => {
    const { shown, notifier } = setup();
    notifier.handle({ change: 'opened', incident: incident(), notify: true });
    notifier.handle({ change: 'resolved', incident: incident({ resolvedAt: NOW }), notify: false });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.closed).toBe(true);
    expect(notifier.live.size).toBe(0);
  });

  it('only what the policy told the person about shows: no notification for tracked-only changes (grace, later drops of a flapping agent)', () => {
    const { shown, notifier } = setup();
    notifier.handle({
      change: 'opened',
      incident: incident({ kind: 'reconnecting', severity: 'warning' }),
      notify: false,
    });
    notifier.handle({
      change: 'updated',
      incident: incident({ kind: 'flapping', severity: 'warning' }),
      notify: false,
    });
    notifier.handle({
      change: 'resolved',
      incident: incident({ kind: 'flapping', severity: 'warning', resolvedAt: NOW }),
      notify: false,
    });
    expect(shown).toEqual([]);
  });

  it('a new alert about the same incident replaces its notification (one per incident on screen)', () => {
    const { shown, notifier } = setup();
    notifier.handle({
      change: 'opened',
      incident: incident({ kind: 'reconnecting', severity: 'warning', title: 'OTP is reconnecting' }),
      notify: true,
    });
    notifier.handle({
      change: 'updated',
      incident: incident({ kind: 'flapping', severity: 'warning', title: 'OTP is flapping' }),
      notify: true,
    });
    expect(shown.map((n) => [n.options.title, n.closed])).toEqual([
      ['OTP is reconnecting', true],
      ['OTP is flapping', false],
    ]);
    expect(notifier.live.size).toBe(1);
  });

  it('acknowledging closes it; nothing shows for an acknowledged incident or when notifications are off', () => {
    const { shown, notifier } = setup();
    notifier.handle({ change: 'opened', incident: incident(), notify: true });
    notifier.handle({ change: 'updated', incident: incident({ acknowledgedAt: NOW }), notify: false });
    expect(shown[0]!.closed).toBe(true);
    notifier.handle({ change: 'updated', incident: incident({ acknowledgedAt: NOW }), notify: true });
    expect(shown).toHaveLength(1);
    const off = setup(false);
    off.notifier.handle({ change: 'opened', incident: incident(), notify: true });
    expect(off.shown).toHaveLength(0);
  });
});
