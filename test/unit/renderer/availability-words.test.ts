import { describe, expect, it } from 'vitest';
import { windowWords } from '../../../src-renderer/src/features/agents/availability-words';

const H = 3_600_000;

/** The words for a window of windowMs observed for observedMs, connected for upMs. */
const words = (windowMs: number, observedMs: number, upMs: number) => windowWords({ windowMs, observedMs, upMs });

describe('availability words', () => {
  it('names the window by its length, rounded down', () => {
    expect(words(45_900, 0, 0).label).toBe('45 s');
    expect(words(40 * 60_000 + 59_000, 0, 0).label).toBe('40 min');
    expect(words(20 * H + 59 * 60_000, 0, 0).label).toBe('20 h');
    expect(words(24 * H, 0, 0).label).toBe('24 h');
    expect(words(6 * 24 * H + 4 * H, 0, 0).label).toBe('6 d 4 h');
    expect(words(30 * 24 * H, 0, 0).label).toBe('30 d');
  });

  it('says how long of the window was observed, rounded down', () => {
    expect(words(24 * H, 20 * H + 59 * 60_000, 0).observed).toBe('observed 20 h of 24 h');
    expect(words(7 * 24 * H, 6 * 24 * H + 4 * H, 0).observed).toBe('observed 6 d 4 h of 7 d');
    expect(words(24 * H, 45_900, 0).observed).toBe('observed 45 s of 24 h');
  });

  it('rounds the share down to a tenth, never to 100 % for less, and says nothing for nothing observed', () => {
    expect(words(24 * H, 0, 0).share).toBeNull();
    expect(words(24 * H, 10 * H, 10 * H).share).toBe('100 %');
    expect(words(24 * H, 10_000 * H, 9_999.9 * H).share).toBe('99.9 %');
    expect(words(24 * H, 3 * H, 2 * H).share).toBe('66.6 %');
    expect(words(24 * H, 3 * H, 0).share).toBe('0.0 %');
  });
});
