// Core records → contract DTOs (plain data, never a key or a signing secret).
import { serviceErrorDTO } from '../errors';
import type { CompanionSettings, TeamView } from '../../core/companion';
import type { AgentSnapshot, Health, TimelineEntry } from '../../core/monitor';
import type { AgentHealthDTO, AppSettingsDTO, HealthHistoryEntryDTO, HealthState, TeamDTO } from '../../../src-shared/contract';

/**
 * The monitor's health words → the contract's five states. A rejected key and an agent the service
 * does not know leave the agent unobservable: 'unreachable', with the poll's error attached (and
 * the team marked authError for a rejected key).
 */
export function healthState(h: Health): HealthState {
  switch (h) {
    case 'connected':
    case 'reconnecting':
    case 'needs-scan':
    case 'unreachable':
    case 'unknown':
      return h;
    case 'auth-error':
    case 'not-found':
      return 'unreachable';
  }
}

export { serviceErrorDTO } from '../errors';

export function agentHealthDTO(s: AgentSnapshot): AgentHealthDTO {
  const dto: AgentHealthDTO = {
    teamId: s.teamId,
    agentId: s.agentId,
    health: healthState(s.health),
    sessionState: s.rawState,
    phone: s.phone,
    needsScan: s.needsScan,
    since: s.since,
    checkedAt: s.lastPollAt,
  };
  if (s.lastError) dto.error = serviceErrorDTO(s.lastError);
  return dto;
}

export function teamDTO(t: TeamView, authError: boolean): TeamDTO {
  return { teamId: t.id, label: t.label, baseUrl: t.baseUrl, keyHint: t.keyHint, authError, agentIds: t.agents.map((a) => a.agentId) };
}

export function settingsDTO(s: CompanionSettings): AppSettingsDTO {
  const r = s.app.alertRules;
  return {
    installId: s.app.installId,
    startAtLogin: s.app.startAtLogin,
    notifications: s.prefs.notifications,
    pollIntervalSec: s.app.pollIntervalSec,
    escalateAfterMin: s.prefs.escalateAfterMin,
    tunnel: { port: s.app.tunnelPort, forwardTo: s.prefs.forwardTo },
    alertRules: { reconnectGraceSec: r.reconnectGraceSec, realertMinutes: r.realertMinutes, flapCount: r.flapCount, flapWindowMinutes: r.flapWindowMinutes },
    alertWebhookUrl: s.app.alertWebhookUrl,
    theme: s.app.theme,
  };
}

/** A URL with its path segments that look like tokens (16+ chars) and its query hidden, for diagnostics. */
export function redactUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/[^/]{16,}/g, '/…')}${u.search ? '?…' : ''}`;
  } catch {
    return '…';
  }
}

const HEALTH_WORDS: Partial<Record<Health, string>> = {
  'auth-error': 'The service rejected the API key.',
  'not-found': 'The service does not know this agent.',
};

/** One timeline entry → the contract's history entry (the error text is already redacted by the monitor). */
export function historyEntryDTO(e: TimelineEntry): HealthHistoryEntryDTO {
  const dto: HealthHistoryEntryDTO = { at: e.at, health: healthState(e.to), previous: healthState(e.from) };
  if (e.rawState !== null) dto.rawState = e.rawState;
  const note = e.error?.message ?? HEALTH_WORDS[e.to];
  if (note) dto.note = note;
  return dto;
}
