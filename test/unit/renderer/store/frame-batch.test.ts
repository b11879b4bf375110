// Token-frame batching: items commit in the next animation frame, and when no frame comes (a hidden
// window draws none) a timer commits them instead, once, never twice. Whatever arrives before the
// frame is committed in one call; flush() commits at once. afterNextPaint: once the frame is painted and
// the page is idle after it (a task where there are no idle callbacks), cancellable until then.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterNextPaint, frameBatch, nextAnimationFrame } from '../../../../src-renderer/src/store/frame-batch';

describe('nextAnimationFrame', () => {
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
    nextAnimationFrame(fn);
    expect(fn).not.toHaveBeenCalled();
    expect(frames).toHaveLength(1);
    frames[0]!();
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs after 100 ms when no frame comes, and a late frame does not run it again', () => {
    const fn = vi.fn();
    nextAnimationFrame(fn);
    vi.advanceTimersByTime(99);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    frames[0]!();
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('frameBatch', () => {
  function harness() {
    const frames: Array<() => void> = [];
    const commits: Array<Array<[string, string[]]>> = [];
    const batch = frameBatch<string>(
      (fn) => frames.push(fn),
      (b) => commits.push([...b.entries()]),
    );
    return { frames, commits, batch };
  }

  it('asks for one frame however many items arrive, and commits them all in one call, by key in arrival order', () => {
    const { frames, commits, batch } = harness();
    batch.push('t1', 'Hel');
    batch.push('t2', 'other');
    batch.push('t1', 'lo');
    expect(frames).toHaveLength(1);
    expect(commits).toEqual([]);
    frames[0]!();
    expect(commits).toEqual([
      [
        ['t1', ['Hel', 'lo']],
        ['t2', ['other']],
      ],
    ]);
  });

  it('asks for a new frame after a commit; a frame with nothing waiting commits nothing', () => {
    const { frames, commits, batch } = harness();
    batch.push('t1', 'a');
    frames[0]!();
    batch.push('t1', 'b');
    expect(frames).toHaveLength(2);
    frames[1]!();
    expect(commits.map((c) => c[0]![1])).toEqual([['a'], ['b']]);
    frames[1]!();
    expect(commits).toHaveLength(2);
  });

  it('flush() commits at once; the frame already asked for then finds nothing', () => {
    const { frames, commits, batch } = harness();
    batch.push('t1', 'a');
    batch.flush();
    expect(commits).toEqual([[['t1', ['a']]]]);
    batch.flush();
    frames[0]!();
    expect(commits).toHaveLength(1);
  });
});

describe('afterNextPaint', () => {
  let frames: Array<() => void>;
  let idle: Array<{ cb: () => void; timeout: number | undefined }>;
  beforeEach(() => {
    frames = [];
    idle = [];
    vi.useFakeTimers();
    vi.stubGlobal('requestAnimationFrame', (cb: () => void) => frames.push(cb));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('runs in an idle callback asked from the next frame (at most 100 ms later), not in the frame', () => {
    vi.stubGlobal('requestIdleCallback', (cb: () => void, o?: { timeout?: number }) =>
      idle.push({ cb, timeout: o?.timeout }),
    );
    vi.stubGlobal('cancelIdleCallback', () => undefined);
    const fn = vi.fn();
    afterNextPaint(fn);
    expect(idle).toHaveLength(0);
    frames[0]!();
    expect(fn).not.toHaveBeenCalled();
    expect(idle).toEqual([{ cb: expect.any(Function), timeout: 100 }]);
    vi.advanceTimersByTime(1000);
    expect(fn).not.toHaveBeenCalled();
    idle[0]!.cb();
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('cancelled before the frame or before the idle callback, it never runs', () => {
    const cancelled: number[] = [];
    vi.stubGlobal('requestIdleCallback', (cb: () => void) => idle.push({ cb, timeout: undefined }));
    vi.stubGlobal('cancelIdleCallback', (id: number) => cancelled.push(id));
    const early = vi.fn();
    afterNextPaint(early)();
    frames[0]!();
    vi.advanceTimersByTime(1000);
    expect(early).not.toHaveBeenCalled();
    const late = vi.fn();
    const cancel = afterNextPaint(late);
    frames[1]!();
    cancel();
    expect(cancelled).toEqual([idle.length]);
    for (const i of idle) i.cb();
    expect(late).not.toHaveBeenCalled();
  });

  it('without idle callbacks: a task after the frame', () => {
    const fn = vi.fn();
    afterNextPaint(fn);
    frames[0]!();
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
