// The health words' order (one list for the monitor, the contract and the screens).
import { describe, expect, it } from 'vitest';
import { unknownHealth, worstHealth } from '../../../src-main/app/health';

describe('health words', () => {
  it('worstHealth ranks needs-scan worst, then a rejected key, and answers unknown for none', () => {
    expect(worstHealth([])).toBe('unknown');
    expect(worstHealth(['connected'])).toBe('connected');
    expect(worstHealth(['connected', 'unknown'])).toBe('unknown');
    expect(worstHealth(['reconnecting', 'unreachable', 'connected'])).toBe('unreachable');
    expect(worstHealth(['unreachable', 'key-rejected', 'not-found'])).toBe('key-rejected');
    expect(worstHealth(['unreachable', 'needs-scan', 'key-rejected', 'reconnecting'])).toBe('needs-scan');
  });

  it('unknownHealth: not polled yet, no state', () => {
    expect(unknownHealth('t1', 'a1', 5)).toEqual({
      teamId: 't1',
      agentId: 'a1',
      health: 'unknown',
      state: null,
      phone: null,
      needsScan: false,
      since: 5,
      checkedAt: null,
    });
  });
});
