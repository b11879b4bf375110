// Availability in words: "99.5 %" of the observed time connected, "observed 20 h of 24 h".
import type { AvailabilityWindowDTO } from '../../../../src-shared/contract';

const H = 3_600_000;

/**
/** A length of time, rounded down: "45 s", "40 min", "20 h", "6 d 4 h". */
function formatObserved(ms: number): string {
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`;
  if (ms < H) return `${Math.floor(ms / 60_000)} min`;
  const h = Math.floor(ms / H);
  if (h <= 24) return `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/**
/** The share connected, rounded down to a tenth (never "100 %" for less); null when nothing was observed. */
function formatShare(w: AvailabilityWindowDTO): string | null {
  if (w.observedMs <= 0) return null;
  if (w.upMs >= w.observedMs) return '100 %';
  return `${(Math.floor((w.upMs / w.observedMs) * 1000) / 10).toFixed(1)} %`;
}

/** The window's name ("24 h"), the share connected (null: nothing observed) and "observed N of M". */
export function windowWords(w: AvailabilityWindowDTO): { label: string; share: string | null; observed: string } {
  const label = formatObserved(w.windowMs);
  return { label, share: formatShare(w), observed: `observed ${formatObserved(w.observedMs)} of ${label}` };
}
