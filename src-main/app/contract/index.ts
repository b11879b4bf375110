// The contract (src-shared/contract.ts) implemented over the companion: the one place where core
// records become contract DTOs and companion events become contract events. API keys and signing
// secrets stay in the companion: no DTO built here carries one.
import path from 'node:path';
import { IncidentHistory, INCIDENT_HISTORY_FILE } from '../../core/monitor';
import { Emitter } from '../../core/events';
import type { DiagnosticsDTO, Events } from '../../../src-shared/contract';
import type { Companion } from '../companion/companion';
import type { Implementations } from '../handlers';
import { teamRequests, teamList } from './teams';
import { alertRequests, IncidentFeed } from './alerts';
import { chatRequests } from './chat';
import { agentHealthDTO, redactStoredUrl, settingsDTO } from './dto';
import { healthOfAll, healthRequests } from './health';
import { mediaFiles, type MediaOptions } from './media';
import { PairingClock, pairingReads, type MonitorView } from './pairing';
import { createScope, type Scope } from './scope';
import { serviceRequests } from './service';
import { forwardDTO, refusedDTO, tunnelSide } from './tunnel';
import { exposeRequests, exposureDTO } from './expose';
import { messageDTOs, messageRequests } from './messages';
import { messageNoticeSide } from './message-notices';
import { webhookRequests } from './webhooks';
import { noHubRequests } from './hub';

/** What the shells (IPC, the browser host) listen to: every contract event. */
export type ContractEvents = Pick<Emitter<Events>, 'onAny'>;

export interface ContractOptions {
  /** tunnel.media, messages.media and messages.saveMedia: the size caps, and the desktop app's save dialog. */
  media?: MediaOptions;
  /**
   * false: no tunnel.delivery event from the companion's deliveries, which are published elsewhere (a hub's
   * replica: in the transaction that commits them, app/hub/deliveries.ts). Default true.
   */
  deliveryEvents?: boolean;
}

export interface CompanionContract {
  implementations: Implementations;
  events: ContractEvents;
  /** ms epoch of the companion's clock. */
  now(): number;
  /** The OS screen locked or unlocked: new-message notices leave their text out while it is locked. */
  setScreenLocked(locked: boolean): void;
  /** Stops listening to the companion (the companion itself is closed by its owner). */
  dispose(): void;
}

async function diagnostics(s: Scope, implementations: Implementations): Promise<DiagnosticsDTO> {
  const { c } = s;
  const at = s.now();
  const report = {
    generatedAt: new Date(at).toISOString(),
    teams: teamList(s),
    health: healthOfAll(s),
    incidents: await implementations['alerts.list']({}),
    alerts: await implementations['alerts.status']({}),
    tunnel: await implementations['tunnel.status']({}),
    // The alert webhook URL may carry a token in its path or query: shown redacted.
    settings: {
      ...settingsDTO(c.settings()),
      alertWebhookUrl: redactStoredUrl(c.settings().app.alertWebhookUrl),
      alertmanagerUrl: redactStoredUrl(c.settings().app.alertmanagerUrl),
    },
    monitor: await c.monitor().exportDiagnostics(),
  };
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-');
  return { filename: `channel-companion-diagnostics-${stamp}.json`, content: `${JSON.stringify(report, null, 2)}\n` };
}

export function implementContract(c: Companion, opts: ContractOptions = {}): CompanionContract {
  const events = new Emitter<Events>((e) =>
    c.logger.warn('app: event listener failed', { error: e instanceof Error ? e.message : String(e) }),
  );
  const s = createScope(c, (name, payload) => events.emit(name, payload));
  const history = new IncidentHistory({
    file: path.join(c.dataDir, INCIDENT_HISTORY_FILE),
    // Two apps on one data folder: the one that posts the alerts keeps the history (alert-sender.ts).
    writable: () => c.keepsAlerts(),
    onError: (e) =>
      c.logger.warn('app: incident history not kept', { error: e instanceof Error ? e.message : String(e) }),
  });
  const feed = new IncidentFeed(
    (e) => s.publish('alert', e),
    s.now,
    () => {
      const { app, prefs } = c.settings();
      return {
        escalateAfterMin: prefs.escalateAfterMin,
        flapCount: app.alertRules.flapCount,
        flapWindowMinutes: app.alertRules.flapWindowMinutes,
      };
    },
    c.teamLabel,
    history,
  );
  const media = mediaFiles(s, opts.media);
  const tunnel = tunnelSide(s, media);
  const upSince = s.now();
  const pairingClock = new PairingClock();
  const monitorView: MonitorView = {
    lastRead: (teamId, agentId) =>
      c
        .monitor()
        .snapshot()
        .find((x) => x.teamId === teamId && x.agentId === agentId),
    pollSoon: (teamId, agentId) => c.monitor().pollSoon(teamId, agentId),
  };

  const { send, ...service } = serviceRequests({
    clientFor: async (teamId) => c.clientFor(s.requireTeam(teamId).id),
    registerWebhook: async (teamId, agentId, publicUrl, source) => {
      const team = s.requireTeam(teamId);
      const registered = await c.registerWebhook(team.id, agentId, publicUrl, source);
      tunnel.secretKept(team.id, agentId);
      return registered;
    },
    publish: s.publish,
    pairing: pairingReads(pairingClock, monitorView, s.now),
    teamLabel: (teamId) => s.c.findTeam(teamId)?.label ?? teamId,
    monitor: {
      isReconnecting: (teamId, agentId) => {
        const team = s.requireTeam(teamId).id;
        return c
          .monitor()
          .snapshot()
          .some((a) => a.teamId === team && a.agentId === agentId && a.health === 'reconnecting');
      },
      pollSoon: (teamId, agentId) => c.monitor().pollSoon(s.requireTeam(teamId).id, agentId),
    },
    sends: {
      log: c.messages.sendLog,
      now: s.now,
      teamIdOf: (teamId) => s.requireTeam(teamId).id,
      recorded: () => void c.messages.takeSend().catch(() => undefined),
      sender: () => c.actingMember(),
      logError: (err) =>
        c.logger.warn('messages: a send could not be recorded in the send log', {
          error: err instanceof Error ? err.message : String(err),
        }),
    },
  });
  const messageDTO = messageDTOs(s);
  const notices = messageNoticeSide(s, messageDTO);

  const implementations: Implementations = {
    ...teamRequests(s, () => healthOfAll(s)),
    ...healthRequests(s),
    ...alertRequests(s, feed, history),
    ...service,
    ...messageRequests(s, send, media),
    ...notices.requests,
    ...tunnel.requests,
    ...webhookRequests(s, (teamId, agentId) => tunnel.secretKept(teamId, agentId)),
    ...exposeRequests(s),
    ...chatRequests(s),
    'diagnostics.export': () => diagnostics(s, implementations),
    'app.ping': async () => ({ at: s.now(), upSince }),
    ...noHubRequests,
  };

  /** Publishes the alert status once `first` is done. */
  const tellAlertStatus = (first: Promise<void>): void => {
    void first
      .then(() => implementations['alerts.status']({}))
      .then((st) => s.publish('alerts.status', st))
      .catch((e: unknown) =>
        c.logger.warn('app: the alert status could not be told', {
          error: e instanceof Error ? e.message : String(e),
        }),
      );
  };
  const offs = [
    // Published after every poll, not only when the health word changes: checkedAt moves with each
    // poll (the UI shows "polled … ago"), and a window that missed an event (e.g. one that arrived
    // while it was still loading the agent list) is corrected by the next poll.
    c.events.on('poll', (r) => {
      // The monitor's reads keep the pairing's clock too (a QR change seen while no window asks).
      if (r.status) pairingClock.observe(r.teamId, r.agentId, r.status, r.at);
      const snap = c.monitor().snapshotOf(r.teamId, r.agentId);
      if (snap) s.publish('health.changed', agentHealthDTO(snap));
    }),
    c.events.on('teams', () => s.publish('teams.changed', { teams: teamList(s) })),
    c.events.on('settings', () => s.publish('settings.changed', { settings: settingsDTO(c.settings()) })),
    c.events.on('alertSender', () => {
      // Taken over from an app that kept the history meanwhile: its file is what counts now.
      tellAlertStatus(c.keepsAlerts() ? history.reload() : Promise.resolve());
    }),
    // Set or ended here (every window hears it) or in another app on the data folder.
    c.events.on('snooze', () => tellAlertStatus(Promise.resolve())),
    c.events.on('health', (e) => {
      if (e.health === 'key-rejected' || e.previous === 'key-rejected')
        s.publish('teams.changed', { teams: teamList(s) });
    }),
    c.events.on('incident', (u) => feed.onIncident(u)),
    c.events.on('alert', (a) => feed.onAlert(a)),
    c.events.on('forward', (a) => s.publish('tunnel.forward', forwardDTO(a))),
    opts.deliveryEvents === false
      ? () => {}
      : c.events.on('delivery', (d) => s.publish('tunnel.delivery', tunnel.summaryOf(d))),
    c.events.on('exposure', (v) => {
      for (const r of v.registrations) if (r.state === 'registered') tunnel.secretKept(r.teamId, r.agentId);
      s.publish('tunnel.exposure', exposureDTO(v));
    }),
    c.events.on('refused', (r) => s.publish('tunnel.refused', refusedDTO(r))),
    c.messages.on('message', (m) => s.publish('messages.new', { message: messageDTO.message(m) })),
    c.messages.on('changed', ({ agentId }) => s.publish('messages.changed', { agentId })),
    events.on('teams.changed', () => notices.teamsChanged()),
    () => notices.dispose(),
  ];

  return {
    implementations,
    events,
    now: s.now,
    setScreenLocked: (locked) => notices.setScreenLocked(locked),
    dispose() {
      for (const off of offs.splice(0)) off();
    },
  };
}
