// Small helpers for side-by-side timing: medians of alternating runs.
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs a and b alternately (a first on even rounds, b first on odd), after warm-up; returns the times in ms. */
export function alternate(rounds: number, warmup: number, a: () => void, b: () => void): { a: number[]; b: number[] } {
  const ta: number[] = [];
  const tb: number[] = [];
  const time = (fn: () => void) => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  };
  for (let i = 0; i < warmup; i++) {
    a();
    b();
  }
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      ta.push(time(a));
      tb.push(time(b));
    } else {
      tb.push(time(b));
      ta.push(time(a));
    }
  }
  return { a: ta, b: tb };
}
