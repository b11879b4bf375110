// Relative time in words ("12 s ago", "for 5 min"): the shared duration words, and the clock time.
export { formatAgo, formatSpan } from '../../../src-shared/duration';

export function formatClock(at: number): string {
  return new Date(at).toLocaleString();
}
