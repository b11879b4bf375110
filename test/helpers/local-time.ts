// The wall clock of UTC, for tests that speak of local times ("08:00 tomorrow", quiet hours)
// without depending on the machine's time zone.
import type { LocalTime } from '../../src-main/core/monitor/types';

export const utcLocalTime: LocalTime = {
  minutesOfDay(ms) {
    const d = new Date(ms);
    return d.getUTCHours() * 60 + d.getUTCMinutes();
  },
  nextAt(ms, hour, minute) {
    const d = new Date(ms);
    d.setUTCHours(hour, minute, 0, 0);
    if (d.getTime() <= ms) d.setUTCDate(d.getUTCDate() + 1);
    return d.getTime();
  },
};
