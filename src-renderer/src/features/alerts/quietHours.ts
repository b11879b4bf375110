// Quiet hours and snooze, as the renderer needs them for browser notifications.
import type { AlertStatusDTO, QuietHoursDTO } from '../../../../src-shared/contract';
import { formatTimeOfDay } from '../../components/time';

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function isHHMM(s: string): boolean {
  return HHMM.test(s);
}

function minutes(s: string): number {
  const m = HHMM.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

/** True when `at` (local time) falls inside the quiet window; windows may cross midnight. */
export function inQuietHours(q: QuietHoursDTO, at: Date): boolean {
  if (!q.enabled) return false;
  const start = minutes(q.start);
  const end = minutes(q.end);
  if (Number.isNaN(start) || Number.isNaN(end) || start === end) return false;
  const now = at.getHours() * 60 + at.getMinutes();
  return start < end ? now >= start && now < end : now >= start || now < end;
}

export function isSnoozed(status: AlertStatusDTO | null, now: number): boolean {
  return status?.snoozedUntil != null && status.snoozedUntil > now;
}

/** "2:05 PM" today, "Mon 9:00 AM" on another day: a snooze end said calmly, without seconds. */
export function formatUntil(at: number, now: number): string {
  const d = new Date(at);
  const sameDay = d.toDateString() === new Date(now).toDateString();
  return sameDay
    ? formatTimeOfDay(at)
    : d.toLocaleString(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' });
}
