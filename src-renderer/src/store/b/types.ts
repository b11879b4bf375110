// Shared plumbing for the chat, console and tunnel slices: how they read and write the one store.
import type { ErrorDTO, Result } from '../../../../src-preload/contract';

/** The zustand `set`, narrowed to the part of the state a slice owns. */
export type SetOf<S> = (partial: Partial<S> | ((s: S) => Partial<S>)) => void;
export type GetOf<S> = () => S;

/** Injected time and frame scheduling, so tests are deterministic. */
export interface SliceEnv {
  now(): number;
  /** Runs fn soon, once the current chunk of events is dispatched (batches the tokens of one chunk). */
  nextFrame(fn: () => void): void;
  /** Cancels nothing; timers for countdowns live in components. */
}

export function defaultEnv(): SliceEnv {
  return {
    now: () => Date.now(),
    nextFrame: (fn) => {
      // A microtask: every event of one chunk of the event stream is dispatched synchronously, so
      // they are all buffered before this runs, and the commit happens at once, with no task hop.
      // (requestAnimationFrame added ~8 ms to every token; a setTimeout task queued the commit
      // behind whatever else was waiting — test/bench/ui-stream.bench.ts.)
      queueMicrotask(fn);
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
