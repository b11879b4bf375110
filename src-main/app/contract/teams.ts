// teams.*, agents.*, settings.* and demo.start over the companion. Every change of the team list
// is announced as teams.changed once the change is saved.
import type { AgentHealthDTO, AppSettingsPatchDTO, TeamDTO } from '../../../src-shared/contract';
import type { SettingsPatch } from '../companion/companion';
import type { Implementations } from '../handlers';
import { agentDTO, settingsDTO, teamDTO } from './dto';
import type { Scope } from './scope';

type TeamRequests = Pick<
  Implementations,
  | 'teams.list'
  | 'teams.add'
  | 'teams.remove'
  | 'teams.update'
  | 'agents.list'
  | 'agents.add'
  | 'agents.remove'
  | 'agents.watchClosely'
  | 'agents.setLabels'
  | 'settings.get'
  | 'settings.update'
  | 'demo.start'
>;

/** Every team, marked keyRejected while the monitor sees its key rejected. */
export function teamList({ c }: Scope): TeamDTO[] {
  const rejected = new Set(
    c
      .monitor()
      .snapshot()
      .filter((s) => s.health === 'key-rejected')
      .map((s) => s.teamId),
  );
  return c.listTeams().map((t) => teamDTO(t, rejected.has(t.id)));
}

/** The settings patch of the contract, split into the team store settings and the companion's preferences. */
function settingsPatch({ c }: Scope, patch: AppSettingsPatchDTO): SettingsPatch {
  const app: NonNullable<SettingsPatch['app']> = {};
  const prefs: NonNullable<SettingsPatch['prefs']> = {};
  if (patch.startAtLogin !== undefined) app.startAtLogin = patch.startAtLogin;
  if (patch.pollIntervalSec !== undefined) {
    app.pollIntervalSec = patch.pollIntervalSec;
    // The fast interval must not exceed the normal one.
    if (c.settings().app.fastPollIntervalSec > patch.pollIntervalSec) app.fastPollIntervalSec = patch.pollIntervalSec;
  }
  if (patch.tunnel !== undefined) {
    app.tunnelPort = patch.tunnel.port;
    prefs.forwardTo = patch.tunnel.forwardTo;
    if (patch.tunnel.allowLegacySignature !== undefined) prefs.allowLegacySignature = patch.tunnel.allowLegacySignature;
  }
  // The monitor applies new rules at once (setRules); a new webhook or Alertmanager URL swaps its sink.
  if (patch.alertRules !== undefined) app.alertRules = { ...patch.alertRules };
  if (patch.alertWebhookUrl !== undefined) app.alertWebhookUrl = patch.alertWebhookUrl;
  if (patch.alertmanagerUrl !== undefined) app.alertmanagerUrl = patch.alertmanagerUrl;
  if (patch.metricsPort !== undefined) app.metricsPort = patch.metricsPort;
  if (patch.theme !== undefined) app.theme = patch.theme;
  if (patch.notifications !== undefined) prefs.notifications = patch.notifications;
  if (patch.escalateAfterMin !== undefined) prefs.escalateAfterMin = patch.escalateAfterMin;
  if (patch.messageNotifications !== undefined) {
    const m = patch.messageNotifications;
    prefs.messageNotifications = {
      ...(m.enabled !== undefined ? { enabled: m.enabled } : {}),
      ...(m.showText !== undefined ? { showText: m.showText } : {}),
      ...(m.quietHours !== undefined ? { quietHours: { ...m.quietHours } } : {}),
    };
  }
  return { app, prefs };
}

export function teamRequests(s: Scope, health: () => AgentHealthDTO[]): TeamRequests {
  const { c, requireTeam, now } = s;
  const changed = (): void => s.publish('teams.changed', { teams: teamList(s) });
  const polledNow = (teamId: string, agentId: string): AgentHealthDTO | undefined =>
    health().find((h) => h.teamId === teamId && h.agentId === agentId);
  return {
    'teams.list': async () => teamList(s),
    'teams.add': async (input) => {
      const team = teamDTO(await c.addTeam(input), false);
      changed();
      return team;
    },
    'teams.update': async ({ teamId, ...input }) => {
      const team = requireTeam(teamId);
      const rejected = new Set(
        teamList(s)
          .filter((t) => t.keyRejected)
          .map((t) => t.teamId),
      );
      const rec = await c.updateTeam(team.id, input);
      changed();
      // A new key or base URL is checked before it is kept: the old key's rejection no longer stands.
      const checked = input.apiKey !== undefined || input.baseUrl !== undefined;
      return teamDTO(rec, !checked && rejected.has(rec.id));
    },
    'teams.remove': async ({ teamId }) => {
      await c.removeTeam(requireTeam(teamId).id);
      changed();
      return null;
    },

    'agents.list': async ({ teamId }) => {
      const teams = teamId === undefined ? c.listTeams() : [requireTeam(teamId)];
      const polled = new Map(health().map((h) => [`${h.teamId}\u0000${h.agentId}`, h]));
      return teams.flatMap((t) => t.agents.map((a) => agentDTO(t.id, a, polled.get(`${t.id}\u0000${a.agentId}`), now)));
    },
    'agents.add': async ({ teamId, agentId, label, labels }) => {
      const team = requireTeam(teamId);
      const rec = await c.addAgent(team.id, {
        agentId,
        ...(label !== undefined ? { label } : {}),
        ...(labels !== undefined ? { labels } : {}),
      });
      changed();
      return agentDTO(team.id, rec, undefined, now);
    },
    'agents.watchClosely': async ({ teamId, agentId, on }) => {
      const team = requireTeam(teamId);
      const rec = await c.setWatchClosely(team.id, agentId, on);
      changed();
      return agentDTO(team.id, rec, polledNow(team.id, rec.agentId), now);
    },
    'agents.setLabels': async ({ teamId, agentId, ...change }) => {
      const team = requireTeam(teamId);
      const rec = await c.setAgentLabels(team.id, agentId, change);
      changed();
      return agentDTO(team.id, rec, polledNow(team.id, rec.agentId), now);
    },
    'agents.remove': async ({ teamId, agentId }) => {
      await c.removeAgent(requireTeam(teamId).id, agentId);
      changed();
      return null;
    },

    'settings.get': async () => settingsDTO(c.settings()),
    'settings.update': async ({ patch }) => settingsDTO(await c.updateSettings(settingsPatch(s, patch))),

    'demo.start': async () => {
      const { team, emulator } = await c.startDemo();
      changed();
      return { team: teamDTO(team, false), baseUrl: emulator.baseUrl };
    },
  };
}
