// The day a message was written, as the thread's day separators show it (its time: formatTimeOfDay).
import { formatTimeOfDay } from '../../components/time';

export const dayOf = (at: number) =>
  new Date(at).toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });

/** When a search hit was written: its day, short, and its time of day ("Nov 29, 2026, 3:38 AM"). */
export const whenOf = (at: number) =>
  `${new Date(at).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}, ${formatTimeOfDay(at)}`;
