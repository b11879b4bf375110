// The tray: icon per worst health, tooltip summary (with the unread messages), the menu from
// tray-model, rebuilt on change; and the app's badge count (unread messages) where the platform has
// one (macOS dock, Linux Unity launchers).
import type { MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import {
  trayIconState,
  trayMenu,
  traySummary,
  type TrayAction,
  type TrayMenuItem,
  type TrayState,
  type TrayIconState,
} from './tray-model';

interface TrayLike {
  setImage(image: unknown): void;
  setToolTip(text: string): void;
  setContextMenu(menu: unknown): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

export interface TrayDeps {
  Tray: new (image: unknown) => TrayLike;
  Menu: { buildFromTemplate(template: MenuItemConstructorOptions[]): unknown };
  nativeImage: { createFromPath(path: string): unknown };
  /** Folder holding <state>.png (and <state>@2x.png). */
  iconDir: string;
  now(): number;
  /** The app's badge (Electron's app.setBadgeCount; 0 removes it). */
  setBadgeCount(count: number): void;
}

function trayIconPath(iconDir: string, state: TrayIconState): string {
  return join(iconDir, `${state}.png`);
}

function toTemplate(items: TrayMenuItem[], dispatch: (a: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'submenu':
        return { label: item.label, submenu: toTemplate(item.items, dispatch) };
      case 'checkbox':
        return {
          label: item.label,
          type: 'checkbox',
          checked: item.checked,
          click: (mi) => dispatch(item.action(Boolean((mi as { checked?: boolean }).checked))),
        };
      case 'item':
        return { label: item.label, enabled: item.enabled ?? true, click: () => dispatch(item.action) };
    }
  });
}

export interface TrayController {
  update(state: TrayState): void;
  destroy(): void;
}

export function createTray(deps: TrayDeps, initial: TrayState, dispatch: (a: TrayAction) => void): TrayController {
  let iconState = trayIconState(initial.agents);
  const tray = new deps.Tray(deps.nativeImage.createFromPath(trayIconPath(deps.iconDir, iconState)));
  tray.on('click', () => dispatch({ type: 'open-window' }));
  const render = (state: TrayState): void => {
    const next = trayIconState(state.agents);
    if (next !== iconState) {
      iconState = next;
      tray.setImage(deps.nativeImage.createFromPath(trayIconPath(deps.iconDir, next)));
    }
    tray.setToolTip(traySummary(state.agents, state.unread));
    deps.setBadgeCount(state.unread);
    tray.setContextMenu(deps.Menu.buildFromTemplate(toTemplate(trayMenu(state, deps.now()), dispatch)));
  };
  render(initial);
  return { update: render, destroy: () => tray.destroy() };
}
