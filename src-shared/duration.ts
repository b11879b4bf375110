// Durations in words, one way for every runtime: alert texts, the command line, the screens.

/** "800 ms" under a second, then "42 s", "3 min 5 s", "2 h 10 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return `${Math.round(ms)} ms`;
  const total = Math.max(0, Math.round(ms / 1000));
  if (total < 60) return `${total} s`;
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d >= 2) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  const hours = d * 24 + h;
  if (hours > 0) return m > 0 ? `${hours} h ${m} min` : `${hours} h`;
  return s > 0 ? `${m} min ${s} s` : `${m} min`;
}

/** The same, coarser for a time that keeps growing: "12 s", "5 min", "3 h 5 min", "2 d". */
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d`;
}

/** "just now" under 5 s, else "12 s ago", "5 min ago" … */
export function formatAgo(at: number, now: number): string {
  const d = now - at;
  if (d < 5000) return 'just now';
  return `${formatSpan(d)} ago`;
}

/** A countdown that ticks each second without changing width: "1 min 05 s", "42 s". */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const sec = total % 60;
  return m > 0 ? `${m} min ${String(sec).padStart(2, '0')} s` : `${sec} s`;
}
