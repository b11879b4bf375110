// Ordering of health states (HEALTH_STATES is best → worst); used by health.snapshot and the tray.
import { HEALTH_STATES, type AgentHealthDTO, type HealthState } from '../../src-shared/contract';

export function worstHealth(states: readonly HealthState[]): HealthState {
  let worst = -1;
  for (const s of states) worst = Math.max(worst, HEALTH_STATES.indexOf(s));
  return HEALTH_STATES[worst] ?? 'unknown';
}

export function unknownHealth(teamId: string, agentId: string, since: number): AgentHealthDTO {
  return { teamId, agentId, health: 'unknown', sessionState: null, phone: null, needsScan: false, since, checkedAt: null };
}
