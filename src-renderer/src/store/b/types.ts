// Shared plumbing for the chat, console and tunnel slices: how they read and write the one store.
import type { ErrorDTO, Result } from '../../../../src-preload/contract';

/** The zustand `set`, narrowed to the part of the state a slice owns. */
export type SetOf<S> = (partial: Partial<S> | ((s: S) => Partial<S>)) => void;
export type GetOf<S> = () => S;

/** Injected time and frame scheduling, so tests are deterministic. */
export interface SliceEnv {
  now(): number;
  /** Runs fn soon, after the current task (batches the tokens of one stream chunk). */
  nextFrame(fn: () => void): void;
  /** Cancels nothing; timers for countdowns live in components. */
}

export function defaultEnv(): SliceEnv {
  return {
    now: () => Date.now(),
    nextFrame: (fn) => {
      // A macrotask, not requestAnimationFrame: every event that arrived in the same task (one chunk
      // of the event stream) is committed together, at once — waiting for the next frame added
      // ~8 ms to every token on average (test/bench/ui-stream.bench.ts), with no fewer long tasks.
      setTimeout(fn, 0);
    },
  };
}

export function errorOf<T>(r: Result<T>): ErrorDTO | null {
  return r.ok ? null : r.error;
}

/** A small unique id for renderer-side references (clientRef, local rows). */
let counter = 0;
export function localId(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter.toString(36)}`;
}
