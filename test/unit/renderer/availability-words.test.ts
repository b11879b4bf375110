import { describe, expect, it } from 'vitest';
import { formatObserved, formatShare } from '../../../src-renderer/src/features/agents/availability-words';

const H = 3_600_000;

describe('availability words', () => {
  it('says lengths of time rounded down', () => {
    expect(formatObserved(45_900)).toBe('45 s');
    expect(formatObserved(40 * 60_000 + 59_000)).toBe('40 min');
    expect(formatObserved(20 * H + 59 * 60_000)).toBe('20 h');
    expect(formatObserved(24 * H)).toBe('24 h');
    expect(formatObserved(6 * 24 * H + 4 * H)).toBe('6 d 4 h');
    expect(formatObserved(30 * 24 * H)).toBe('30 d');
  });

  it('rounds the share down to a tenth, never to 100 % for less, and says nothing for nothing observed', () => {
    expect(formatShare({ windowMs: 24 * H, observedMs: 0, upMs: 0 })).toBeNull();
    expect(formatShare({ windowMs: 24 * H, observedMs: 10 * H, upMs: 10 * H })).toBe('100 %');
    expect(formatShare({ windowMs: 24 * H, observedMs: 10_000 * H, upMs: 9_999.9 * H })).toBe('99.9 %');
    expect(formatShare({ windowMs: 24 * H, observedMs: 3 * H, upMs: 2 * H })).toBe('66.6 %');
    expect(formatShare({ windowMs: 24 * H, observedMs: 3 * H, upMs: 0 })).toBe('0.0 %');
  });
});
