// The day a message was written, as the thread's day separators show it (its time: formatTimeOfDay).
import { formatTimeOfDay } from '../../components/time';

let day: Intl.DateTimeFormat | null = null;

/** One formatter for every separator (toLocaleDateString builds a new one each time). */
export function dayOf(at: number): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return d.toLocaleDateString();
  day ??= new Intl.DateTimeFormat(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
  return day.format(d);
}

/** When a search hit was written: its day, short, and its time of day ("Nov 29, 2026, 3:38 AM"). */
export const whenOf = (at: number) =>
  `${new Date(at).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}, ${formatTimeOfDay(at)}`;
