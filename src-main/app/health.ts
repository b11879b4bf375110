// Health words and their order: the monitor's list is the contract's (src-shared/vocabulary.ts).
import { HEALTHS, type AgentHealthDTO, type Health } from '../../src-shared/contract';

/** An agent's health from its session status: the monitor's rule. */
export { healthOfStatus } from '../core/monitor/health';

/** The worst of some states (HEALTHS is best → worst); 'unknown' for none. Used by health.snapshot and the tray. */
export function worstHealth(states: readonly Health[]): Health {
  let worst = -1;
  for (const s of states) worst = Math.max(worst, HEALTHS.indexOf(s));
  return HEALTHS[worst] ?? 'unknown';
}

export function unknownHealth(teamId: string, agentId: string, since: number): AgentHealthDTO {
  return { teamId, agentId, health: 'unknown', state: null, phone: null, needsScan: false, since, checkedAt: null };
}
