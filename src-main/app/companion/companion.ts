// The companion: the whole app behind any shell (Electron, the browser host, the CLI's `serve` and `up`, a
// command that finds none running), Electron-free. This file is the composition: the team store (config +
// keychain), one service client per team, the monitor over every agent of every team, the webhook tunnel, the
// message store, chat, the demo emulator, and one event hub whose listeners survive the monitor and tunnel being
// rebuilt. Its parts: types.ts (its shape), webhooks.ts (registrations), tunnel-host.ts, exposure-host.ts,
// observability.ts, alert-sender.ts, team-set.ts, prefs.ts, config-watch.ts, demo.ts; hosted.ts starts one
// that owns its data folder (endpoint.ts).
import path from 'node:path';
import { createServiceClient } from '../../core/api/client';
import type { ServiceClient } from '../../core/api/service';
import { TeamStore, defaultConfigDir, type AppSettings, type ClientFactory } from '../../core/teams';
import { ChatService } from '../../core/chat';
import { Emitter } from '../../core/events';
import { WebhookAlertSink, type AlertSink, type Handover, type PollTarget } from '../../core/monitor';
import { silentLogger, systemClock } from '../../core/ports';
import { KeychainSecretStore } from '../../core/secrets';
import { TeamSet } from './team-set';
import { DEMO_TEAM_LABEL, DemoHost, hasKeptDemo } from './demo';
import { PrefsStore } from './prefs';
import { ConfigWatch } from './config-watch';
import { TunnelHost } from './tunnel-host';
import { ExposureHost } from './exposure-host';
import { teamSecrets } from '../../core/expose';
import { Observability, type MetricsListen } from './observability';
import { AlertSender } from './alert-sender';
import { alertRules, createAgentMonitor, pollConfig } from '../usecases/monitor';
import { REGISTRATION_SOURCES } from '../usecases/registration-status';
import { RegistrationHistory } from '../../core/tunnel';
import { webhookPart } from './webhooks';
import type { Companion, CompanionEvents, CompanionOptions, WebhookRegistry } from './types';
import { privateTree } from '../../core/tunnel/private-files';
import { Messages, TunnelLogWatch, messageBodies } from '../../core/messages';

export type { TeamView } from './team-set';
export type { Companion, CompanionOptions, CompanionSettings, SettingsPatch } from './types';

/** How often the app looks for messages its receiver's events do not bring (see watchMessages). */
const MESSAGES_WATCH_MS = 2000;

const hasOwn = (o: object | undefined, k: string): boolean =>
  o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

export async function createCompanion(opts: CompanionOptions = {}): Promise<Companion> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? silentLogger;
  const configDir = opts.configDir ?? defaultConfigDir();
  const dataDir = opts.dataDir ?? path.join(configDir, 'data');
  // Private on open: whatever an older version (or another tool) left 0644 in it is 0600 from now on.
  await privateTree(dataDir);
  const secrets = opts.secrets ?? new KeychainSecretStore();
  const clientFactory: ClientFactory =
    opts.clientFactory ??
    ((o) => createServiceClient({ ...o, clock, ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}) }));
  const events = new Emitter<CompanionEvents>((err) =>
    logger.warn('companion: listener failed', { error: err instanceof Error ? err.message : String(err) }),
  );

  const main = await TeamStore.open({
    configDir,
    secrets,
    clientFactory,
    clock,
    ...(opts.configStore ? { configStore: opts.configStore } : {}),
  });
  const set = new TeamSet(main);
  const prefs = new PrefsStore(configDir, logger);
  await prefs.load();
  const demo = new DemoHost(dataDir, clock, clientFactory, logger, opts.demoDialect ?? []);

  const chat = new ChatService({
    clientFor: (teamId) => set.clientFor(teamId),
    installId: main.settings().installId,
    dataDir: path.join(dataDir, 'chat'),
    ...(opts.chatTranscripts ? { transcripts: opts.chatTranscripts } : {}),
    clock,
    logger,
  });

  const registry: WebhookRegistry = opts.webhookRegistry ?? {
    history: RegistrationHistory.in(dataDir, () => clock.now()),
    publicUrlOf: (teamId, agentId) => prefs.publicUrlOf(teamId, agentId),
    publicHookOf: () => null,
  };
  const registrations = registry.history;
  const tunnelHost = new TunnelHost({
    dataDir: path.join(dataDir, 'tunnel'),
    getSecrets: (agentId) => set.secretsOfAgent(agentId),
    clock,
    logger,
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    onDelivery: (d) => events.emit('delivery', d),
    onForward: (a) => events.emit('forward', a),
    onRefused: (r) => events.emit('refused', r),
    ...(opts.commitDelivery ? { commit: opts.commitDelivery } : {}),
  });
  registry.onRegisteredElsewhere?.((agentId) => void tunnelHost.secretsChanged(agentId));

  // ----- public exposure of the receiver -------------------------------------------------------
  const exposure: ExposureHost = new ExposureHost({
    secrets,
    clock,
    logger,
    port: async () => (await tunnelHost.start()).port,
    register: (teamId, agentId, url) => companion.registerWebhook(teamId, agentId, url, REGISTRATION_SOURCES.appExpose),
    onChange: (v) => events.emit('exposure', v),
    ...(opts.exposure?.timeoutMs !== undefined ? { timeoutMs: opts.exposure.timeoutMs } : {}),
    ...(opts.exposure?.loadNgrok ? { loadNgrok: opts.exposure.loadNgrok } : {}),
    knownSecrets: () => teamSecrets(set),
  });

  // ----- monitor ------------------------------------------------------------------------------
  const pollOf = (s: AppSettings) => pollConfig(s, opts.poll);
  const teamLabel = (teamId: string): string => set.findTeam(teamId)?.label ?? teamId;
  // The clients handed out, by team id: their send budgets are what the metrics report.
  const opened = new Map<string, ServiceClient>();
  const clientFor = async (teamIdOrLabel: string): Promise<ServiceClient> => {
    const client = await set.clientFor(teamIdOrLabel);
    const id = set.findTeam(teamIdOrLabel)?.id;
    if (id !== undefined) opened.set(id, client);
    return client;
  };
  // One app per data folder posts the alerts and keeps the on-call files (alert-sender.ts); the other
  // one does not page twice. It takes the files over (monitor.takeOverFiles) once the first one stops.
  let senderStarted = false;
  const alertSender = new AlertSender({
    dataDir,
    clock,
    logger,
    onChange: () => {
      const takeOver =
        senderStarted && alertSender.here() ? monitor.takeOverFiles().then(tellHandover) : Promise.resolve();
      void takeOver
        .catch((err: unknown) =>
          logger.warn('alerts: the on-call files could not be taken over', {
            error: err instanceof Error ? err.message : String(err),
          }),
        )
        .finally(() => events.emit('alertSender', undefined));
    },
    ...(opts.alertSenderRetryMs !== undefined ? { retryMs: opts.alertSenderRetryMs } : {}),
  });
  await alertSender.start();
  senderStarted = true;
  const share = opts.pollShare;
  const monitor = createAgentMonitor({
    targets: share ? () => share.targets(set.targets()) : () => set.targets(),
    ...(share ? { watchedElsewhere: (t: PollTarget) => share.watchedElsewhere(t) } : {}),
    ...(share?.teamJudge ? { teamJudge: share.teamJudge } : {}),
    readSession: async (teamId, agentId, signal) => (await clientFor(teamId)).getSession(agentId, { signal }),
    settings: main.settings(),
    ...(opts.poll ? { poll: opts.poll } : {}),
    teamLabel,
    clock,
    logger,
    dataDir: path.join(dataDir, 'timeline'),
    keepsFiles: () => alertSender.here(),
    sinks: opts.notifier ? [opts.notifier] : [],
  });
  monitor.on('health', (e) => events.emit('health', e));
  monitor.on('poll', (r) => events.emit('poll', r));
  monitor.on('incident', (u) => events.emit('incident', u));
  monitor.on('alert', (a) => events.emit('alert', a));
  monitor.on('snooze', (sn) => events.emit('snooze', sn));
  const onlyWhenSending = (sink: AlertSink): AlertSink => ({
    deliver: (a) => (alertSender.here() ? sink.deliver(a) : Promise.resolve()),
  });
  // The outbound alert webhook: replaced in place when its URL changes (the monitor keeps its state).
  let webhookSink: { url: string; sink: AlertSink; off: () => void } | null = null;
  const setAlertWebhook = (url: string | null): void => {
    if (webhookSink?.url === url) return;
    webhookSink?.off();
    if (!url) {
      webhookSink = null;
      return;
    }
    const sink = new WebhookAlertSink(url, {
      clock,
      logger,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    webhookSink = { url, sink, off: monitor.addSink(onlyWhenSending(sink)) };
  };
  // Taking over from the app that posted before: the team's channels hear what it did not tell them
  // (this app's own windows and desktop were told as it happened).
  const tellHandover = (h: Handover): void => {
    for (const a of h.alerts) void webhookSink?.sink.deliver(a);
    observability.takeOverAlerts(h.recovered);
  };
  setAlertWebhook(main.settings().alertWebhookUrl);
  const observability = new Observability({
    monitor,
    teamLabel,
    sendBudgets: () =>
      [...opened].filter(([teamId]) => set.findTeam(teamId)).map(([teamId, c]) => ({ teamId, ...c.sendBudget() })),
    clock,
    logger,
    postsAlerts: () => alertSender.here(),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  });
  const metricsListen = (s: AppSettings): MetricsListen | null =>
    opts.metrics ?? (s.metricsPort === null ? null : { port: s.metricsPort, host: '127.0.0.1' });
  observability.setAlertmanager(opts.alertmanagerUrl ?? main.settings().alertmanagerUrl);
  await observability.setMetricsServer(metricsListen(main.settings()));
  events.on('delivery', (d) => observability.countDelivery(d));
  events.on('refused', (r) => observability.countRefused(r));

  const agentIds = (): string[] => [...new Set(set.targets().map((t) => t.agentId))];
  /** The teams as the running monitor and receiver have them (config.json's, in JSON). */
  let knownTeams = JSON.stringify(main.listTeams());
  const teamsChanged = (): void => {
    knownTeams = JSON.stringify(main.listTeams());
    monitor.refresh();
    tunnelHost.setAgents(agentIds());
  };

  /** The settings what runs was given last. */
  let applied = main.settings();
  /**
   * Settings changed (here, or in config.json from outside): applied to what runs, which keeps its
   * state. Windows are told once, when they or the preferences (`prefsChanged`) changed.
   */
  const applySettings = async (app: AppSettings, prefsChanged = false): Promise<void> => {
    const before = applied;
    applied = app;
    const same = JSON.stringify(before) === JSON.stringify(app);
    if (!same || prefsChanged) events.emit('settings', undefined);
    if (same) return;
    // Applied to the running monitor: its health, incidents and snooze are kept.
    if (JSON.stringify(pollOf(before)) !== JSON.stringify(pollOf(app))) monitor.setPollConfig(pollOf(app));
    if (JSON.stringify(alertRules(before)) !== JSON.stringify(alertRules(app))) monitor.setRules(alertRules(app));
    setAlertWebhook(app.alertWebhookUrl);
    observability.setAlertmanager(opts.alertmanagerUrl ?? app.alertmanagerUrl);
    await observability.setMetricsServer(metricsListen(app));
    if (before.tunnelPort !== app.tunnelPort) {
      // The exposure forwards to the old port: stopped (it says where the service still points).
      await exposure.unexpose();
      await tunnelHost.setPort(app.tunnelPort);
    }
  };

  /** Preferences changed (here, or in companion.json by another app): the receiver follows them. */
  const applyPrefs = (): void => {
    const p = prefs.get();
    tunnelHost.setForwardTo(p.forwardTo, agentIds());
    tunnelHost.setAllowLegacySignature(p.allowLegacySignature);
  };

  // ----- config.json or companion.json changed from outside ------------------------------------
  // A command (`team add`, `agent add`, `webhook set`) or another app on the same config (the
  // desktop app and `serve`) writes config.json while this one runs, and another app writes
  // companion.json (its preferences): this one reads them again and follows, so they never
  // disagree. Its own writes come back here too and change nothing.
  const configWatch = new ConfigWatch(configDir, clock, logger, async () => {
    await main.refresh();
    if (JSON.stringify(main.listTeams()) !== knownTeams) {
      teamsChanged();
      events.emit('teams', undefined);
    }
    const prefsChanged = await prefs.reload();
    if (prefsChanged) applyPrefs();
    await applySettings(main.settings(), prefsChanged);
  });
  // A shared config (the hub's database) says when another process changed it; the file is watched above.
  const stopConfigSignal = opts.configStore?.watch?.(() => configWatch.changedElsewhere());

  // ----- tunnel -------------------------------------------------------------------------------
  tunnelHost.setForwardTo(prefs.get().forwardTo, agentIds());
  tunnelHost.setAllowLegacySignature(prefs.get().allowLegacySignature);
  await tunnelHost.setPort(opts.tunnelPort ?? main.settings().tunnelPort);
  await tunnelHost.open();
  // Messages: every stored delivery goes to the index (it keeps only verified message.received ones).
  // Kept in the message database; a deletion also blanks the tunnel log's copies (when this app writes it).
  const messages = new Messages({
    dataDir,
    now: () => clock.now(),
    logger,
    ...opts.messages,
    eraseDeliveries: async (ids) => {
      const log = tunnelHost.current.log;
      if (!log.readOnly) await log.eraseBodies(ids);
      await opts.messages?.eraseDeliveries?.(ids);
    },
  });
  // Queued only: written after the receiver's acknowledgement, never on its path.
  events.on('delivery', (d) => messages.takeDelivery(d));
  await messages.open(messageBodies(tunnelHost.current.log)).catch((err: unknown) =>
    logger.warn('messages: could not read the send log or the message database', {
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  // What the receiver's events do not bring: sends made by the CLI, the deliveries of a log opened
  // again (a new port, or taken over from another writer), and, while another process (`listen`)
  // writes the data folder, what it stores.
  const logWatch = new TunnelLogWatch(path.join(dataDir, 'tunnel'), clock);
  let indexedLog = tunnelHost.current.log;
  let messagesTimer: unknown = null;
  const watchMessages = async (): Promise<void> => {
    const log = tunnelHost.current.log;
    if (log !== indexedLog) {
      indexedLog = log;
      await messages.refresh(messageBodies(log));
    } else if (tunnelHost.lockedReason !== null) {
      await messages.refresh((await logWatch.readIfChanged()) ?? undefined);
    } else await messages.refresh();
  };
  const scheduleMessages = (): void => {
    messagesTimer = clock.setTimeout(() => {
      void watchMessages()
        .catch((err: unknown) =>
          logger.warn('messages: could not read the logs', { error: err instanceof Error ? err.message : String(err) }),
        )
        .finally(() => {
          if (messagesTimer !== null) scheduleMessages();
        });
    }, MESSAGES_WATCH_MS);
  };
  scheduleMessages();
  // Registered hooks point at the receiver's fixed port: it listens again at once.
  if (opts.startTunnel ?? prefs.get().webhooks.length > 0) {
    await tunnelHost.start().catch(() => undefined); // logged by the host; the app keeps running
  }

  let closed = false;

  const webhooks = webhookPart({
    set,
    tunnelHost,
    exposure: () => exposure,
    registrations,
    prefs,
    publicUrlOf: registry.publicUrlOf,
    clientFor,
    logger,
  });

  const companion: Companion = {
    configDir,
    dataDir,
    clock,
    logger,
    events,
    chat,
    messages,
    actingMember: () => opts.actingMember?.() ?? null,
    monitor: () => monitor,
    teamLabel,
    alertsPostedElsewhere: () => alertSender.elsewhere(),
    keepsAlerts: () => alertSender.here(),
    metrics: observability.metrics,
    metricsUrl: () => observability.metricsUrl(),
    tunnel: () => tunnelHost.current,
    tunnelUrl: () => tunnelHost.url,
    tunnelProblem: () => tunnelHost.lockedReason,
    tunnelPortTaken: () => tunnelHost.portTaken,
    forwardTo: () => tunnelHost.forwardTarget,
    startTunnel: () => tunnelHost.start(),
    exposure,

    listTeams: () => set.listTeams(),
    teamOfAgent: (agentId) => set.teamOfAgent(agentId),
    findTeam: (t) => set.findTeam(t),
    async addTeam(input) {
      const rec = await main.addTeam(input);
      teamsChanged();
      return { ...rec, demo: false };
    },
    async updateTeam(teamId, input) {
      const rec = await set.updateTeam(teamId, input);
      teamsChanged();
      // A new base URL or key: its agents are asked at once, not at their next turn.
      for (const a of rec.agents) monitor.pollSoon(rec.id, a.agentId);
      return set.findTeam(rec.id) ?? { ...rec, demo: false };
    },
    async removeTeam(teamId) {
      const team = set.findTeam(teamId);
      await set.removeTeam(teamId);
      if (team)
        await prefs
          .update((p) => ({ ...p, webhooks: p.webhooks.filter((w) => w.teamId !== team.id) }))
          .catch(() => undefined);
      if (team) await registrations.forget(team.id).catch(() => undefined);
      teamsChanged();
    },
    async addAgent(teamId, agent) {
      const rec = await set.addAgent(teamId, agent);
      teamsChanged();
      return rec;
    },
    async setAgentLabels(teamId, agentId, change) {
      const rec = await set.setAgentLabels(teamId, agentId, change);
      teamsChanged();
      return rec;
    },
    async setWatchClosely(teamId, agentId, on) {
      const rec = await set.setWatchClosely(teamId, agentId, on);
      monitor.refresh();
      return rec;
    },
    async removeAgent(teamId, agentId) {
      const team = set.findTeam(teamId);
      await set.removeAgent(teamId, agentId);
      if (team)
        await prefs
          .update((p) => ({
            ...p,
            webhooks: p.webhooks.filter((w) => !(w.teamId === team.id && w.agentId === agentId)),
          }))
          .catch(() => undefined);
      if (team) await registrations.forget(team.id, agentId).catch(() => undefined);
      teamsChanged();
    },
    clientFor,

    registerWebhook: webhooks.registerWebhook,
    restoreWebhook: webhooks.restoreWebhook,
    revealSigningSecret: webhooks.revealSigningSecret,
    registrations,
    publicUrlOf: webhooks.publicUrlOf,
    publicHookOf: registry.publicHookOf,
    hasSigningSecret: webhooks.hasSigningSecret,

    settings: () => ({ app: main.settings(), prefs: prefs.get() }),
    async updateSettings(patch) {
      const app = patch.app ? await main.updateSettings(patch.app) : main.settings();
      if (patch.prefs) {
        const p = patch.prefs;
        await prefs.update((cur) => ({
          ...cur,
          ...(hasOwn(p, 'notifications') && p.notifications !== undefined ? { notifications: p.notifications } : {}),
          ...(hasOwn(p, 'escalateAfterMin') && p.escalateAfterMin !== undefined
            ? { escalateAfterMin: p.escalateAfterMin }
            : {}),
          ...(hasOwn(p, 'forwardTo') && p.forwardTo !== undefined ? { forwardTo: p.forwardTo } : {}),
          ...(p.allowLegacySignature !== undefined ? { allowLegacySignature: p.allowLegacySignature } : {}),
          ...(p.quietHours ? { quietHours: p.quietHours } : {}),
          ...(p.messageNotifications
            ? { messageNotifications: { ...cur.messageNotifications, ...p.messageNotifications } }
            : {}),
        }));
        applyPrefs();
      }
      await applySettings(app, patch.prefs !== undefined);
      return companion.settings();
    },

    startEmulator: () => demo.info(),
    async startDemo() {
      const info = await demo.info();
      const existing = set.demoTeamStore?.listTeams()[0];
      if (existing) return { team: { ...existing, demo: true }, emulator: info };
      const teamStore = await demo.openTeamStore();
      const already = teamStore.listTeams()[0];
      // The demo team of the last run keeps its id: its key is held in memory again, and its base URL
      // follows the emulator when it had to take another port.
      const kept = already
        ? await teamStore
            .updateTeam(already.id, {
              apiKey: info.apiKey,
              ...(already.baseUrl !== info.baseUrl ? { baseUrl: info.baseUrl } : {}),
            })
            .catch(async (err: unknown) => {
              // An agent the emulator no longer has (one added to it in the last run): a new demo team.
              logger.warn('demo: the demo team of the last run could not be taken up; it starts afresh', {
                error: err instanceof Error ? err.message : String(err),
              });
              await teamStore.removeTeam(already.id);
              return null;
            })
        : null;
      const rec =
        kept ??
        (await teamStore.addTeam({
          label: DEMO_TEAM_LABEL,
          baseUrl: info.baseUrl,
          apiKey: info.apiKey,
          agents: info.agents,
        }));
      set.setDemo(teamStore);
      teamsChanged();
      await webhooks.registerDemo(
        rec.id,
        rec.agents.map((a) => a.agentId),
        await demo.webhooks(),
      );
      return { team: { ...rec, demo: true }, emulator: info };
    },

    async close() {
      if (closed) return;
      closed = true;
      clock.clearTimeout(messagesTimer);
      messagesTimer = null;
      chat.stopAll();
      configWatch.close();
      await stopConfigSignal?.();
      await exposure.close().catch(() => undefined);
      await Promise.allSettled([monitor.stop(), tunnelHost.close()]);
      await messages.close().catch(() => undefined);
      await alertSender.close();
      await observability.close();
      await set.close();
      await demo.close();
    },
  };
  if (opts.demo ?? (await hasKeptDemo(dataDir))) {
    try {
      await companion.startDemo();
    } catch (err) {
      await companion.close();
      throw err;
    }
  }
  monitor.start();
  return companion;
}
