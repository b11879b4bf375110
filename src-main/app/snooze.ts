// When a snooze ends: N minutes from now, or 'tomorrow' = 08:00 local time on the next day.

const TOMORROW_HOUR = 8;

export function snoozeUntil(spec: { minutes: number } | { until: 'tomorrow' }, nowMs: number): number {
  if ('minutes' in spec) return nowMs + spec.minutes * 60_000;
  const d = new Date(nowMs);
  d.setDate(d.getDate() + 1);
  d.setHours(TOMORROW_HOUR, 0, 0, 0);
  return d.getTime();
}
