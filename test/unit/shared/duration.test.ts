// Durations in words: the one formatter the alert texts, the command line and the screens share.
import { describe, expect, it } from 'vitest';
import { formatAgo, formatCountdown, formatDuration, formatSpan } from '../../../src-shared/duration';

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [800, '800 ms'],
    [42_000, '42 s'],
    [60_000, '1 min'],
    [185_000, '3 min 5 s'],
    [2 * 3_600_000, '2 h'],
    [2 * 3_600_000 + 10 * 60_000 + 59_000, '2 h 10 min'],
    [30 * 3_600_000, '30 h'],
    [3 * 86_400_000 + 4 * 3_600_000, '3 d 4 h'],
    [-5_000, '0 s'],
  ])('%i ms → %s', (ms, words) => {
    expect(formatDuration(ms)).toBe(words);
  });
});

describe('formatSpan and formatAgo', () => {
  it('drop the seconds past a minute and count days from 48 h', () => {
    expect(formatSpan(12_000)).toBe('12 s');
    expect(formatSpan(5 * 60_000 + 30_000)).toBe('5 min');
    expect(formatSpan(3 * 3_600_000 + 5 * 60_000)).toBe('3 h 5 min');
    expect(formatSpan(50 * 3_600_000)).toBe('2 d');
  });

  it('say "just now" under 5 s, then "… ago"', () => {
    expect(formatAgo(10_000, 14_000)).toBe('just now');
    expect(formatAgo(10_000, 22_000)).toBe('12 s ago');
  });
});

describe('formatCountdown', () => {
  it('keeps its width while it ticks: seconds padded past a minute, rounded up', () => {
    expect(formatCountdown(65_000)).toBe('1 min 05 s');
    expect(formatCountdown(44_100)).toBe('45 s');
    expect(formatCountdown(-1)).toBe('0 s');
  });
});
