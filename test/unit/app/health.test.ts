// The one mapping between the monitor's health words and the contract's, and their order.
import { describe, expect, it } from 'vitest';
import { FOLDED_NOTES, HEALTH_STATE_OF, healthState, unknownHealth, worstHealth } from '../../../src-main/app/health';
import { HEALTHS } from '../../../src-main/core/monitor';
import { HEALTH_STATES } from '../../../src-shared/contract';

describe('health words', () => {
  it('maps every core word: the five shared ones to themselves, auth-error and not-found to unreachable', () => {
    expect(Object.keys(HEALTH_STATE_OF).sort()).toEqual([...HEALTHS].sort());
    for (const h of HEALTHS) {
      const mapped = healthState(h);
      expect(HEALTH_STATES).toContain(mapped);
      if ((HEALTH_STATES as readonly string[]).includes(h)) expect(mapped).toBe(h);
      else expect(mapped).toBe('unreachable');
    }
    expect(healthState('auth-error')).toBe('unreachable');
    expect(healthState('not-found')).toBe('unreachable');
  });

  it('every contract word is reached, and every folded word has a note saying what it was', () => {
    expect(new Set(HEALTHS.map(healthState))).toEqual(new Set(HEALTH_STATES));
    const folded = HEALTHS.filter((h) => healthState(h) !== h);
    expect(Object.keys(FOLDED_NOTES).sort()).toEqual([...folded].sort());
  });

  it('worstHealth ranks needs-scan worst and answers unknown for none', () => {
    expect(worstHealth([])).toBe('unknown');
    expect(worstHealth(['connected'])).toBe('connected');
    expect(worstHealth(['connected', 'unknown'])).toBe('unknown');
    expect(worstHealth(['reconnecting', 'unreachable', 'connected'])).toBe('unreachable');
    expect(worstHealth(['unreachable', 'needs-scan', 'reconnecting'])).toBe('needs-scan');
  });

  it('unknownHealth: not polled yet, no state', () => {
    expect(unknownHealth('t1', 'a1', 5)).toEqual({ teamId: 't1', agentId: 'a1', health: 'unknown', state: null, phone: null, needsScan: false, since: 5, checkedAt: null });
  });
});
