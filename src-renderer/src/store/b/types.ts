// Shared plumbing for the chat, console and tunnel slices: how they read and write the one store.
import type { ErrorDTO, Result } from '../../../../src-shared/contract';

/** The zustand `set`, narrowed to the part of the state a slice owns. */
export type SetOf<S> = (partial: Partial<S> | ((s: S) => Partial<S>)) => void;
export type GetOf<S> = () => S;

/** Injected time and frame scheduling, so tests are deterministic. */
export interface SliceEnv {
  now(): number;
  /** Runs fn before the next frame is drawn (batches every token that arrives until then). */
  nextFrame(fn: () => void): void;
  /** Cancels nothing; timers for countdowns live in components. */
}

export function defaultEnv(): SliceEnv {
  return {
    now: () => Date.now(),
    nextFrame: (fn) => {
      // Once per animation frame: every token that arrived since the last frame is committed in
      // one store update (one render of the streaming row, one text change, one layout), just
      // before the frame is drawn — so a token is on screen in the first frame after it arrives,
      // without a render per network chunk (those cost ~16 renders and layouts' worth of main
      // thread per frame at 2,000 tokens/s: test/bench/ui-stream.bench.ts). A hidden page draws no
      // frames, so a timer stands in when no frame comes (and a turn's end always commits at once).
      let ran = false;
      const once = (): void => {
        if (ran) return;
        ran = true;
        fn();
      };
      if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
      setTimeout(once, 100);
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
