// The chat slice's frame scheduling: tokens commit in the next animation frame, and when no frame
// comes (a hidden window draws none) a timer commits them instead — once, never twice.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultEnv } from '../../../src-renderer/src/store/b/types';

describe('defaultEnv().nextFrame', () => {
  let frames: Array<() => void>;
  beforeEach(() => {
    frames = [];
    vi.useFakeTimers();
    vi.stubGlobal('requestAnimationFrame', (cb: () => void) => frames.push(cb));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('runs in the next animation frame, and the fallback timer then does nothing', () => {
    const fn = vi.fn();
    defaultEnv().nextFrame(fn);
    expect(fn).not.toHaveBeenCalled();
    expect(frames).toHaveLength(1);
    frames[0]!();
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs after 100 ms when no frame comes, and a late frame does not run it again', () => {
    const fn = vi.fn();
    defaultEnv().nextFrame(fn);
    vi.advanceTimersByTime(99);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    frames[0]!();
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
