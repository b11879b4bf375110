// Relative time in words ("12 s ago", "for 5 min").
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d`;
}

export function formatAgo(at: number, now: number): string {
  const d = now - at;
  if (d < 5000) return 'just now';
  return `${formatSpan(d)} ago`;
}

export function formatClock(at: number): string {
  return new Date(at).toLocaleString();
}
