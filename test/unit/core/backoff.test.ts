import { describe, expect, it } from 'vitest';
import { backoffDelay, isBackoffPolicy, jittered } from '../../../src-main/core/backoff';

describe('backoffDelay', () => {
  it('doubles from baseMs up to maxMs; without jitter the waits are exact and random is never drawn', () => {
    const policy = { baseMs: 500, maxMs: 30_000, jitter: 0 };
    const random = () => {
      throw new Error('drawn');
    };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(policy, n, random))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it('jitter only shortens the wait: a draw of 0 gives the ceiling, a draw near 1 takes the whole fraction off', () => {
    const policy = { baseMs: 1000, maxMs: 16_000, jitter: 0.5 };
    expect(backoffDelay(policy, 3, () => 0)).toBe(4000);
    expect(backoffDelay(policy, 3, () => 1)).toBe(2000);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(3000);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(policy, 2);
      expect(d).toBeGreaterThanOrEqual(1000);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });

  it('treats attempt 0 or below as the first retry', () => {
    expect(backoffDelay({ baseMs: 700, maxMs: 10_000, jitter: 0 }, 0)).toBe(700);
  });
});

describe('jittered', () => {
  it('clamps the fraction and the draw to [0, 1]', () => {
    expect(jittered(1000, 0.1, 0)).toBe(1000);
    expect(jittered(1000, 0.1, 0.5)).toBe(950);
    expect(jittered(1000, 0.1, 7)).toBe(900);
    expect(jittered(1000, 0.1, -1)).toBe(1000);
    expect(jittered(1000, 3, 1)).toBe(0);
  });
});

describe('isBackoffPolicy', () => {
  it('accepts finite non-negative waits and a jitter within [0, 1]', () => {
    expect(isBackoffPolicy({ baseMs: 5000, maxMs: 120_000, jitter: 0.1 })).toBe(true);
    expect(isBackoffPolicy({ baseMs: -1, maxMs: 100, jitter: 0 })).toBe(false);
    expect(isBackoffPolicy({ baseMs: 1, maxMs: Infinity, jitter: 0 })).toBe(false);
    expect(isBackoffPolicy({ baseMs: 1, maxMs: 100, jitter: 1.5 })).toBe(false);
  });
});
