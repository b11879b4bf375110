// Relative time in words ("12 s ago", "for 5 min"): the shared duration words, and the clock time.
// A time of day reads one way on every screen: "3:38 AM" (the locale's hours, no leading zero).
export { formatAgo, formatSpan } from '../../../src-shared/duration';

export function formatClock(at: number): string {
  return new Date(at).toLocaleString();
}

let timeOfDay: Intl.DateTimeFormat | null = null;

/** The time of day, "3:38 AM" in English: hours as the locale writes them, minutes in two digits. One
 *  formatter for every call (toLocaleTimeString builds a new one each time: a thread of bubbles paid it
 *  per bubble). */
export function formatTimeOfDay(at: number): string {
  const d = new Date(at);
  // A time that is no date reads "Invalid Date", as toLocaleTimeString says (format() would throw).
  if (Number.isNaN(d.getTime())) return d.toLocaleTimeString();
  timeOfDay ??= new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
  return timeOfDay.format(d);
}
