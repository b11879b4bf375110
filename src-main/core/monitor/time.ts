// Durations, quiet hours and snooze ends, on injected local time.
import type { LocalTime, QuietHours, SnoozePreset, AlertRules } from './types';

export { formatDuration } from '../../../src-shared/duration';

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function parseHHMM(text: string): { hour: number; minute: number } {
  const m = HHMM.exec(text);
  if (!m) throw new RangeError(`Expected a time as HH:MM, got "${text}".`);
  return { hour: Number(m[1]), minute: Number(m[2]) };
}

/** Whether `ms` falls inside the quiet hours (start inclusive, end exclusive; may span midnight). */
export function inQuietHours(q: QuietHours | null, ms: number, local: LocalTime): boolean {
  if (!q) return false;
  const s = parseHHMM(q.start);
  const e = parseHHMM(q.end);
  const start = s.hour * 60 + s.minute;
  const end = e.hour * 60 + e.minute;
  if (start === end) return false;
  const m = local.minutesOfDay(ms);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

/** When the current quiet hours end (only meaningful while inside them). */
export function quietHoursEnd(q: QuietHours, ms: number, local: LocalTime): number {
  const e = parseHHMM(q.end);
  return local.nextAt(ms, e.hour, e.minute);
}

/**
 * When a snooze chosen now ends: 15 min, 1 h, N minutes, or "until tomorrow": the next 08:00 local
 * (all configurable). The one rule for every shell (app/usecases/monitor.ts snoozeAlerts).
 */
export function snoozeEnd(
  preset: SnoozePreset | { minutes: number },
  now: number,
  rules: AlertRules,
  local: LocalTime,
): number {
  if (typeof preset === 'object') return now + preset.minutes * 60_000;
  if (preset === 'short') return now + rules.snoozeShortMinutes * 60_000;
  if (preset === 'long') return now + rules.snoozeLongMinutes * 60_000;
  // "Until tomorrow": the next 08:00 local (after midnight, that is this morning's 08:00).
  return local.nextAt(now, rules.snoozeTomorrowHour, 0);
}
