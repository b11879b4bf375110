// Core records → contract DTOs (plain data, never a key or a signing secret).
import type { ServiceErrorDTO } from '../../core/api/errors';
import type { CompanionSettings, TeamView } from '../../core/companion';
import type { AgentSnapshot, Health } from '../../core/monitor';
import type { AgentHealthDTO, AppSettingsDTO, ErrorDTO, ErrorKind, HealthState, TeamDTO } from '../../../src-preload/contract';

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

const SERVICE_KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'reconnecting',
  'not-configured',
  'rate-limited',
  'quota-exceeded',
  'unauthorized',
  'not-found',
  'invalid-request',
  'server-error',
  'network-error',
  'timeout',
  'aborted',
]);

export function serviceErrorDTO(e: ServiceErrorDTO): ErrorDTO {
  const dto: ErrorDTO = { kind: SERVICE_KINDS.has(e.kind) ? (e.kind as ErrorKind) : 'internal', code: e.code, message: e.message };
  if (e.status !== undefined) dto.status = e.status;
  if (e.retryAfterSec !== undefined) dto.retryAfterSec = e.retryAfterSec;
  return dto;
}

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
  return {
    startAtLogin: s.app.startAtLogin,
    notifications: s.prefs.notifications,
    pollIntervalSec: s.app.pollIntervalSec,
    escalateAfterMin: s.prefs.escalateAfterMin,
    tunnel: { port: s.app.tunnelPort, forwardTo: s.prefs.forwardTo },
  };
}
