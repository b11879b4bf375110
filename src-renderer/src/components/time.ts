// Relative time in words ("12 s ago", "for 5 min"): the shared duration words, and the clock time.
// A time of day reads one way on every screen: "3:38 AM" (the locale's hours, no leading zero).
export { formatAgo, formatSpan } from '../../../src-shared/duration';

export function formatClock(at: number): string {
  return new Date(at).toLocaleString();
}

/** The time of day, "3:38 AM" in English: hours as the locale writes them, minutes in two digits. */
export function formatTimeOfDay(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
}
