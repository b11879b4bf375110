// A clock that runs `factor` times faster than real time (real timers, scaled), so a test can let
// a 60-second window pass in a fraction of a second without faking timers.
import type { Clock } from '../../src-main/core/ports';

export function scaledClock(factor: number): Clock {
  const realStart = Date.now();
  return {
    now: () => realStart + (Date.now() - realStart) * factor,
    setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms / factor)),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
}
