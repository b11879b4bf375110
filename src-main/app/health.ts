// Health words: the monitor's seven (core) mapped onto the contract's five, and their order.
// A rejected key and an agent the service does not know both leave the agent unobservable: the
// contract says 'unreachable' and carries the poll's error (and marks the team authError for a
// rejected key); FOLDED_NOTES words what was folded away.
import { HEALTH_STATES, type AgentHealthDTO, type HealthState } from '../../src-shared/contract';
import type { Health } from '../core/monitor';

/** @internal Exported for tests. */
export const HEALTH_STATE_OF: Readonly<Record<Health, HealthState>> = {
  connected: 'connected',
  reconnecting: 'reconnecting',
  'needs-scan': 'needs-scan',
  unreachable: 'unreachable',
  unknown: 'unknown',
  'auth-error': 'unreachable',
  'not-found': 'unreachable',
};

/** Why an agent is 'unreachable' when the monitor's word was a more precise one. */
export const FOLDED_NOTES: Readonly<Partial<Record<Health, (agentId: string) => string>>> = {
  'auth-error': () => "The service rejected the team's API key.",
  'not-found': (agentId) => `Agent ${agentId} is not in this team on the service.`,
};

export function healthState(h: Health): HealthState {
  return HEALTH_STATE_OF[h];
}

/** The worst of some states (HEALTH_STATES is best → worst); 'unknown' for none. Used by health.snapshot and the tray. */
export function worstHealth(states: readonly HealthState[]): HealthState {
  let worst = -1;
  for (const s of states) worst = Math.max(worst, HEALTH_STATES.indexOf(s));
  return HEALTH_STATES[worst] ?? 'unknown';
}

export function unknownHealth(teamId: string, agentId: string, since: number): AgentHealthDTO {
  return { teamId, agentId, health: 'unknown', state: null, phone: null, needsScan: false, since, checkedAt: null };
}
