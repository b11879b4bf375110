// AppServices over the companion (src-main/core/companion.ts): every port, with the core's records
// mapped to contract DTOs and the core's events to contract events. API keys and signing secrets
// stay in the companion: no DTO built here carries one.
import type { Companion } from '../core/companion';
import type { AgentHealthDTO, AppSettingsPatchDTO, DemoDTO, DiagnosticsDTO, TeamDTO } from '../../src-shared/contract';
import { AppError } from './errors';
import { createEventHub } from './events';
import { unknownHealth } from './health';
import type { AccountsPort, AppServices, MonitorPort } from './services';
import { AlertMapper } from './real/alerts';
import { createChatPort } from './real/chat';
import { agentHealthDTO, historyEntryDTO, redactUrl, settingsDTO, teamDTO } from './real/dto';
import { guard } from './real/errors';
import type { MediaOptions } from './real/media';
import { createTunnelPort, forwardDTO } from './real/tunnel';

export interface RealServices extends AppServices {
  /** Stops listening to the companion (the companion itself is closed by its owner). */
  dispose(): void;
}

export interface RealServicesOptions {
  /** tunnel.media: where the temp file goes and the size cap (tests). */
  media?: MediaOptions;
}

export function createRealServices(c: Companion, opts: RealServicesOptions = {}): RealServices {
  const now = (): number => c.clock.now();
  const events = createEventHub((e) => c.logger.warn('app: event listener failed', { error: e instanceof Error ? e.message : String(e) }));

  const teamAuthError = (teamId: string): boolean => c.monitor().snapshot().some((s) => s.teamId === teamId && s.health === 'auth-error');
  const teams = (): TeamDTO[] => c.listTeams().map((t) => teamDTO(t, teamAuthError(t.id)));
  const requireTeam = (teamId: string) => {
    const t = c.findTeam(teamId);
    if (!t) throw new AppError('not-found', 'NO_TEAM', `No team "${teamId}".`);
    return t;
  };

  /** Health of every watched agent, 'unknown' for those not polled yet. */
  const snapshot = (): AgentHealthDTO[] => {
    const polled = new Map(c.monitor().snapshot().map((s) => [`${s.teamId}\u0000${s.agentId}`, agentHealthDTO(s)]));
    return c.listTeams().flatMap((t) => t.agents.map((a) => polled.get(`${t.id}\u0000${a.agentId}`) ?? unknownHealth(t.id, a.agentId, now())));
  };

  const accounts: AccountsPort = {
    listTeams: async () => teams(),
    addTeam: (input) =>
      guard(async () => {
        const t = await c.addTeam(input);
        return teamDTO(t, false);
      }),
    removeTeam: (teamId) => guard(() => c.removeTeam(requireTeam(teamId).id)),
    listAgents: (teamId) =>
      guard(async () => {
        const list = teamId === undefined ? c.listTeams() : [requireTeam(teamId)];
        return list.flatMap((t) => t.agents.map((a) => ({ teamId: t.id, agentId: a.agentId, label: a.label })));
      }),
    addAgent: (teamId, agent) =>
      guard(async () => {
        const team = requireTeam(teamId);
        const rec = await c.addAgent(team.id, agent);
        return { teamId: team.id, agentId: rec.agentId, label: rec.label };
      }),
    removeAgent: (teamId, agentId) => guard(() => c.removeAgent(requireTeam(teamId).id, agentId)),
    settings: async () => settingsDTO(c.settings()),
    updateSettings: (patch: AppSettingsPatchDTO) =>
      guard(async () => {
        const app: Record<string, unknown> = {};
        const prefs: Record<string, unknown> = {};
        if (patch.startAtLogin !== undefined) app.startAtLogin = patch.startAtLogin;
        if (patch.pollIntervalSec !== undefined) {
          app.pollIntervalSec = patch.pollIntervalSec;
          // The fast interval must not exceed the normal one.
          const fast = c.settings().app.fastPollIntervalSec;
          if (fast > patch.pollIntervalSec) app.fastPollIntervalSec = patch.pollIntervalSec;
        }
        if (patch.tunnel !== undefined) {
          app.tunnelPort = patch.tunnel.port;
          prefs.forwardTo = patch.tunnel.forwardTo;
        }
        // The monitor applies new rules at once (setRules); a new webhook URL rebuilds its sinks.
        if (patch.alertRules !== undefined) app.alertRules = { ...patch.alertRules };
        if (patch.alertWebhookUrl !== undefined) app.alertWebhookUrl = patch.alertWebhookUrl;
        if (patch.theme !== undefined) app.theme = patch.theme;
        if (patch.notifications !== undefined) prefs.notifications = patch.notifications;
        if (patch.escalateAfterMin !== undefined) prefs.escalateAfterMin = patch.escalateAfterMin;
        return settingsDTO(await c.updateSettings({ app, prefs }));
      }),
  };

  const alerts = new AlertMapper((e) => events.publish('alert', e), now, () => c.settings().prefs.escalateAfterMin);

  const monitor: MonitorPort = {
    snapshot,
    incidents: () =>
      c
        .monitor()
        .incidents()
        .sort((a, b) => b.openedAt - a.openedAt)
        .map((i) => alerts.toDTO(i)),
    acknowledge(incidentId) {
      if (c.monitor().acknowledge(incidentId) === 0) throw new AppError('not-found', 'NO_INCIDENT', 'No open incident with that id (it may have been resolved).');
    },
    acknowledgeAll: () => c.monitor().acknowledgeAll(),
    snooze: (until) => c.monitor().snooze(until),
    status() {
      const s = c.monitor().status();
      const remembered = c.settings().prefs.quietHours;
      const q = s.quietHours ?? remembered;
      return { snoozedUntil: s.snoozedUntil, quietHours: { enabled: s.quietHours !== null, start: q.start, end: q.end } };
    },
    setQuietHours(q) {
      const hours = { start: q.start, end: q.end };
      c.monitor().setQuietHours(q.enabled ? hours : null);
      // Saved in the background: the monitor already applies them; a failed save is logged.
      void c.updateSettings({ app: { alertRules: { quietHours: q.enabled ? hours : null } }, prefs: { quietHours: hours } }).catch((e: unknown) =>
        c.logger.warn('app: quiet hours not saved', { error: e instanceof Error ? e.message : String(e) }),
      );
    },
    history: (teamId, agentId) =>
      guard(async () => {
        const team = requireTeam(teamId);
        if (!team.agents.some((a) => a.agentId === agentId)) throw new AppError('not-found', 'NO_AGENT', `No agent "${agentId}" in team "${team.label}".`);
        // Timelines are kept per agent id; entries carry their team, so another team's agent of the same id is left out.
        const entries = await c.monitor().timeline(agentId);
        return entries
          .filter((e) => e.teamId === team.id)
          .sort((a, b) => b.at - a.at)
          .map(historyEntryDTO);
      }),
  };

  const offs = [
    // Published after every poll, not only when the health word changes: checkedAt moves with each
    // poll (the UI shows "polled … ago"), and a window that missed an event (e.g. one that arrived
    // while it was still loading the agent list) is corrected by the next poll.
    c.events.on('poll', (r) => {
      const s = c.monitor().snapshot().find((x) => x.teamId === r.teamId && x.agentId === r.agentId);
      if (s) events.publish('health.changed', agentHealthDTO(s));
    }),
    c.events.on('health', (e) => {
      if (e.health === 'auth-error' || e.previous === 'auth-error') events.publish('accounts.changed', { teams: teams() });
    }),
    c.events.on('incident', (u) => alerts.onIncident(u)),
    c.events.on('alert', (a) => alerts.onAlert(a)),
    c.events.on('forward', (a) => events.publish('tunnel.forward', forwardDTO(a))),
  ];
  const tunnel = createTunnelPort(c, opts.media);
  offs.push(
    c.events.on('delivery', (d) => events.publish('tunnel.delivery', tunnel.summaryOf(d))),
  );

  return {
    accounts,
    monitor,
    client: (teamId) => guard(async () => c.clientFor(requireTeam(teamId).id)),
    tunnel,
    chat: createChatPort(c, (name, payload) => events.publish(name, payload)),
    diagnostics: () =>
      guard(async (): Promise<DiagnosticsDTO> => {
        const at = now();
        const report = {
          generatedAt: new Date(at).toISOString(),
          teams: teams(),
          health: snapshot(),
          incidents: monitor.incidents(),
          alerts: monitor.status(),
          tunnel: tunnel.status(),
          // The alert webhook URL may carry a token in its path or query: shown redacted.
          settings: { ...settingsDTO(c.settings()), alertWebhookUrl: redactUrl(c.settings().app.alertWebhookUrl) },
          monitor: await c.monitor().exportDiagnostics(),
        };
        const stamp = new Date(at).toISOString().replace(/[:.]/g, '-');
        return { filename: `channel-companion-diagnostics-${stamp}.json`, content: `${JSON.stringify(report, null, 2)}\n` };
      }),
    startDemo: () =>
      guard(async (): Promise<DemoDTO> => {
        const { team, emulator } = await c.startDemo();
        return { team: teamDTO(team, false), baseUrl: emulator.baseUrl };
      }),
    events,
    now,
    dispose() {
      for (const off of offs.splice(0)) off();
    },
  };
}
