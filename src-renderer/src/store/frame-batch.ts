// Token-frame batching: whatever arrives between two frames is committed in one go, just before the
// next frame is drawn. A fast stream then costs one store update (one render of the streaming row,
// one text change, one layout) per frame, however many network chunks arrive in between, and a
// token is still on screen in the first frame after it arrives (test/bench/ui-stream.bench.ts).

/** How long to wait for a frame before committing anyway (a hidden page draws no frames). */
const FRAME_FALLBACK_MS = 100;

/** Runs fn once, in the next animation frame or after FRAME_FALLBACK_MS, whichever comes first. */
export function nextAnimationFrame(fn: () => void): void {
  let ran = false;
  const once = (): void => {
    if (ran) return;
    ran = true;
    fn();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
  setTimeout(once, FRAME_FALLBACK_MS);
}

/**
 * Runs fn once the next frame has been painted and the page is idle after it (an idle callback asked
 * from its animation frame, at most FRAME_FALLBACK_MS later; a task when the browser has no idle
 * callbacks), or after FRAME_FALLBACK_MS when no frame comes; answers a cancel. Work that need not
 * show in that frame (a request that only reports what is on screen) then leaves after it and after
 * the tasks already waiting, not competing with them.
 */
export function afterNextPaint(fn: () => void): () => void {
  let live = true;
  let cancel = (): void => undefined;
  nextAnimationFrame(() => {
    if (!live) return;
    const run = (): void => {
      if (live) fn();
    };
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(run, { timeout: FRAME_FALLBACK_MS });
      cancel = () => cancelIdleCallback(id);
    } else {
      const timer = setTimeout(run, 0);
      cancel = () => clearTimeout(timer);
    }
  });
  return () => {
    live = false;
    cancel();
  };
}

export interface FrameBatch<T> {
  /** Adds an item under key; the first item since the last commit asks for a frame. */
  push(key: string, item: T): void;
  /** Commits what is waiting now (nothing happens when nothing waits). */
  flush(): void;
}

/**
 * Items by key, handed to `commit` in one call when the frame asked of `schedule` comes, or
 * earlier through flush() (e.g. when a turn ends). Keys keep the order they first arrived in.
 */
export function frameBatch<T>(
  schedule: (fn: () => void) => void,
  commit: (batch: Map<string, T[]>) => void,
): FrameBatch<T> {
  let pending = new Map<string, T[]>();
  let requested = false;
  const flush = (): void => {
    requested = false;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    commit(batch);
  };
  return {
    push(key, item) {
      const list = pending.get(key);
      if (list) list.push(item);
      else pending.set(key, [item]);
      if (!requested) {
        requested = true;
        schedule(flush);
      }
    },
    flush,
  };
}
