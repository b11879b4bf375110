// Core records → contract DTOs (plain data, never a key or a signing secret).
import { redactUrl } from '../../core/url';
import type { SessionStatus } from '../../core/api/types';
import type { AgentSnapshot, TimelineEntry } from '../../core/monitor';
import type { AgentRecord } from '../../core/teams';
import type {
  MessageNotificationsDTO,
  AgentDTO,
  AgentHealthDTO,
  AppSettingsDTO,
  HealthHistoryEntryDTO,
  SessionDTO,
  TeamDTO,
} from '../../../src-shared/contract';
import type { CompanionSettings, TeamView } from '../companion/companion';
import { serviceErrorDTO } from '../errors';
import { unknownHealth } from '../health';

export function agentHealthDTO(s: AgentSnapshot): AgentHealthDTO {
  const dto: AgentHealthDTO = {
    teamId: s.teamId,
    agentId: s.agentId,
    health: s.health,
    state: s.state,
    phone: s.phone,
    needsScan: s.needsScan,
    since: s.since,
    checkedAt: s.lastPollAt,
  };
  if (dto.health === 'unreachable' && s.lastKnown && s.lastKnown !== 'unreachable' && s.lastKnown !== 'unknown')
    dto.lastKnown = s.lastKnown;
  if (s.lastError) dto.error = serviceErrorDTO(s.lastError);
  return dto;
}

/** An agent of a team with its health: as last polled, unknown (at `now`) until the monitor has polled it. */
export function agentDTO(
  teamId: string,
  a: AgentRecord,
  polled: AgentHealthDTO | undefined,
  now: () => number,
): AgentDTO {
  return {
    teamId,
    agentId: a.agentId,
    label: a.label,
    health: polled ?? unknownHealth(teamId, a.agentId, now()),
    watchClosely: a.watchClosely === true,
    labels: a.labels,
  };
}

/** One timeline entry → the contract's history entry (the error text is already redacted by the monitor). */
export function historyEntryDTO(e: TimelineEntry): HealthHistoryEntryDTO {
  const dto: HealthHistoryEntryDTO = { at: e.at, health: e.to, previous: e.from };
  if (e.state !== null) dto.state = e.state;
  if (e.error?.message) dto.note = e.error.message;
  return dto;
}

export function sessionDTO(teamId: string, agentId: string, s: SessionStatus): SessionDTO {
  const dto: SessionDTO = {
    teamId,
    agentId,
    connected: s.connected,
    linked: s.linked,
    state: s.state,
    needsScan: s.needsScan,
    phone: s.phone,
    qr: s.qr,
  };
  if (s.live !== undefined) dto.live = s.live;
  return dto;
}

export function teamDTO(t: TeamView, keyRejected: boolean): TeamDTO {
  return {
    teamId: t.id,
    label: t.label,
    baseUrl: t.baseUrl,
    keyHint: t.keyHint,
    keyRejected,
    agentIds: t.agents.map((a) => a.agentId),
    allowInsecureHttp: t.allowInsecureHttp,
  };
}

export function settingsDTO(s: CompanionSettings): AppSettingsDTO {
  const r = s.app.alertRules;
  return {
    installId: s.app.installId,
    startAtLogin: s.app.startAtLogin,
    notifications: s.prefs.notifications,
    pollIntervalSec: s.app.pollIntervalSec,
    fastPollIntervalSec: Math.min(s.app.fastPollIntervalSec, s.app.pollIntervalSec),
    escalateAfterMin: s.prefs.escalateAfterMin,
    tunnel: {
      port: s.app.tunnelPort,
      forwardTo: s.prefs.forwardTo,
      allowLegacySignature: s.prefs.allowLegacySignature,
    },
    alertRules: {
      reconnectGraceSec: r.reconnectGraceSec,
      repeatDropGraceSec: r.repeatDropGraceSec,
      realertMinutes: r.realertMinutes,
      flapCount: r.flapCount,
      flapWindowMinutes: r.flapWindowMinutes,
    },
    alertWebhookUrl: s.app.alertWebhookUrl,
    alertmanagerUrl: s.app.alertmanagerUrl,
    metricsPort: s.app.metricsPort,
    theme: s.app.theme,
    messageNotifications: messageNotificationsDTO(s),
  };
}

export function messageNotificationsDTO(s: CompanionSettings): MessageNotificationsDTO {
  const m = s.prefs.messageNotifications;
  return {
    enabled: m.enabled,
    showText: m.showText,
    quietHours: { ...m.quietHours },
    muted: m.muted.map((x) => ({ teamId: x.teamId, agentId: x.agentId })),
  };
}

/** A stored URL for diagnostics: token-like path segments and the query hidden. */
export function redactStoredUrl(url: string | null): string | null {
  return url === null ? null : redactUrl(url);
}
