// The Electron shell around the contract: single-instance lock, app:// protocol, hardened sessions and
// windows, IPC, tray (and the unread badge), notifications (alerts, new messages), login item. Receives the electron module's parts by parameter.
import type * as Electron from 'electron';
import { join } from 'node:path';
import { createHandlers } from '../app/handlers';
import type { CompanionContract } from '../app/contract';
import { registerAppScheme, serveAppProtocol } from './app-protocol';
import { rendererSource, trayIconDir } from './app-paths';
import { forwardEvents, registerIpc, WindowRegistry } from './ipc';
import { createAlertNotifier, createMessageNotifier } from './notifications';
import { denyAllPermissions, enforceCsp, hardenContents } from './security';
import { createTray, type TrayController } from './tray';
import { agentRoute, type TrayAction, type TrayState } from './tray-model';
import { createMainWindow, revealWindow, type WindowCtor, type WindowLike } from './window';

export type ElectronParts = Pick<
  typeof Electron,
  | 'app'
  | 'BrowserWindow'
  | 'ipcMain'
  | 'Menu'
  | 'Notification'
  | 'Tray'
  | 'nativeImage'
  | 'powerMonitor'
  | 'protocol'
  | 'session'
  | 'shell'
>;

export interface ShellOptions {
  /** Folder of the built app: contains out/main, out/preload, out/renderer. */
  outDir: string;
  /** Electron's process.resourcesPath (the packaged app's tray icons are in its tray/ folder). */
  resourcesPath: string;
  /** ELECTRON_RENDERER_URL as found in the environment: loaded only while the app is unpackaged. */
  devServerUrl?: string;
  /** Builds the contract over the companion once the app is ready (it may need app paths). */
  createContract(): Promise<CompanionContract>;
}

export async function startElectronShell(electron: ElectronParts, opts: ShellOptions): Promise<void> {
  const { app } = electron;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  registerAppScheme(electron.protocol);

  let quitting = false;
  let win: WindowLike | null = null;
  const registry = new WindowRegistry();
  const renderer = rendererSource(app, opts.devServerUrl);
  const appUrl = renderer.url;

  app.on('before-quit', () => {
    quitting = true;
  });
  // Closing the last window hides to the tray; monitoring goes on until Quit.
  app.on('window-all-closed', () => undefined);
  app.on('web-contents-created', (_e, contents) => hardenContents(contents as never, electron.shell));

  await app.whenReady();
  const ses = electron.session.defaultSession;
  denyAllPermissions(ses as never);
  if (!renderer.devServer) enforceCsp(ses as never);
  serveAppProtocol(electron.protocol as never, join(opts.outDir, 'renderer'));

  const contract = await opts.createContract();
  const handlers = createHandlers(contract.implementations);
  // Settings that the shell applies itself: notifications on/off and the OS login item.
  let notificationsOn = true;
  const updateSettings = handlers['settings.update'];
  handlers['settings.update'] = async (raw) => {
    const r = await updateSettings(raw);
    if (r.ok) {
      notificationsOn = r.value.notifications;
      if (app.getLoginItemSettings().openAtLogin !== r.value.startAtLogin)
        app.setLoginItemSettings({ openAtLogin: r.value.startAtLogin });
    }
    return r;
  };
  const settings = await handlers['settings.get']({});
  if (settings.ok) notificationsOn = settings.value.notifications;
  registerIpc(electron.ipcMain as never, handlers, registry, appUrl);
  forwardEvents(contract.events, registry);

  const openWindow = (route?: string): WindowLike => {
    if (!win || win.isDestroyed()) {
      const w = createMainWindow({
        BrowserWindow: electron.BrowserWindow as unknown as WindowCtor,
        shell: electron.shell,
        preloadPath: join(opts.outDir, 'preload', 'index.cjs'),
        appUrl,
        isQuitting: () => quitting,
      });
      registry.add(w.webContents);
      const id = w.webContents.id;
      w.on('closed', () => {
        registry.remove(id);
        win = null;
      });
      win = w;
      if (route !== undefined) w.once('ready-to-show', () => revealWindow(w, route));
      return w;
    }
    revealWindow(win, route);
    return win;
  };
  app.on('second-instance', () => openWindow(''));
  app.on('activate', () => openWindow(''));

  // Tray
  const trayState = async (): Promise<TrayState> => {
    // Through the handlers, like every other caller: a failing request leaves its part of the tray empty.
    const [agents, alerts, incidents, unread] = await Promise.all([
      handlers['agents.list']({}),
      handlers['alerts.status']({}),
      handlers['alerts.list']({}),
      handlers['messages.unread']({}),
    ]);
    return {
      agents: agents.ok ? agents.value : [],
      alerts: alerts.ok
        ? alerts.value
        : { snoozedUntil: null, quietHours: { enabled: false, start: '22:00', end: '07:00' }, alertsPostedBy: null },
      startAtLogin: app.getLoginItemSettings().openAtLogin,
      openIncidents: incidents.ok ? incidents.value.filter((i) => i.acknowledgedAt === null).length : 0,
      unread: unread.ok ? unread.value.total : 0,
    };
  };
  let tray: TrayController | null = null;
  // Refreshes asked while one runs collapse into one more (a burst of messages or polls rebuilds the
  // tray once or twice, not once per event).
  let trayRun: Promise<void> | null = null;
  let trayAgain = false;
  const refreshTray = (): Promise<void> => {
    if (trayRun) {
      trayAgain = true;
      return trayRun;
    }
    trayRun = trayState()
      .then((s) => tray?.update(s))
      .finally(() => {
        trayRun = null;
        if (trayAgain) {
          trayAgain = false;
          void refreshTray();
        }
      });
    return trayRun;
  };
  const dispatch = (a: TrayAction): void => {
    switch (a.type) {
      case 'open-agent':
        openWindow(agentRoute(a.teamId, a.agentId, a.needsScan));
        break;
      case 'open-window':
        openWindow();
        break;
      case 'open-messages':
        openWindow('#/messages');
        break;
      case 'acknowledge-all':
        void handlers['alerts.acknowledgeAll']({}).then(refreshTray);
        break;
      case 'snooze':
        void handlers['alerts.snooze']({ minutes: a.minutes }).then(refreshTray);
        break;
      case 'snooze-tomorrow':
        void handlers['alerts.snooze']({ until: 'tomorrow' }).then(refreshTray);
        break;
      case 'unsnooze':
        void handlers['alerts.unsnooze']({}).then(refreshTray);
        break;
      case 'start-at-login':
        void handlers['settings.update']({ patch: { startAtLogin: a.enabled } }).then(refreshTray);
        break;
      case 'quit':
        quitting = true;
        app.quit();
        break;
    }
  };
  tray = createTray(
    {
      Tray: electron.Tray as never,
      Menu: electron.Menu,
      nativeImage: electron.nativeImage,
      iconDir: trayIconDir(app, opts.resourcesPath),
      now: contract.now,
      setBadgeCount: (count) => void app.setBadgeCount(count),
    },
    await trayState(),
    dispatch,
  );

  // Notifications from the alert stream; tray refresh on health/alert/team changes.
  const notifier = createAlertNotifier({
    Notification: electron.Notification as never,
    openRoute: (route) => openWindow(route),
    enabled: () => notificationsOn,
  });
  // New-message notices: the core's notify policy decided them; a locked screen hides their text.
  const messageNotifier = createMessageNotifier({
    Notification: electron.Notification as never,
    openRoute: (route) => openWindow(route),
  });
  electron.powerMonitor.on('lock-screen', () => {
    contract.setScreenLocked(true);
    messageNotifier.screenLocked();
  });
  electron.powerMonitor.on('unlock-screen', () => contract.setScreenLocked(false));
  contract.events.onAny((e) => {
    if (e.name === 'alert') notifier.handle(e.payload);
    if (e.name === 'messages.notice') messageNotifier.handle(e.payload);
    if (e.name === 'health.changed' || e.name === 'alert' || e.name === 'teams.changed' || e.name === 'messages.unread')
      void refreshTray();
  });

  openWindow();
}
