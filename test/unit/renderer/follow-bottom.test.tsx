// @vitest-environment jsdom
// A streaming list follows its bottom until the person scrolls up; a wheel turn or key press up stops
// following before its scroll has moved anything, so a row growing meanwhile cannot pull it back.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useFollowBottom } from '../../../src-renderer/src/features/chat/useFollowBottom';

/** ResizeObserver stand-in: grow() runs every observer's callback, as a layout after growth would. */
const observers = new Set<() => void>();
class FakeResizeObserver {
  private readonly run = () => this.cb();
  constructor(private readonly cb: () => void) {
    observers.add(this.run);
  }
  observe(): void {}
  disconnect(): void {
    observers.delete(this.run);
  }
}

/**
 * A list whose scrollHeight the test sets; scrollTop clamps like a browser's, and a move fires
 * 'scroll' later, as a browser does at its next frame (frame()).
 */
function sized(el: HTMLElement, clientHeight: number) {
  let height = clientHeight;
  let top = 0;
  let scrolled = false;
  const frame = () => {
    if (!scrolled) return;
    scrolled = false;
    el.dispatchEvent(new Event('scroll'));
  };
  Object.defineProperty(el, 'clientHeight', { get: () => clientHeight });
  Object.defineProperty(el, 'scrollHeight', { get: () => height });
  Object.defineProperty(el, 'scrollTop', {
    get: () => top,
    set: (v: number) => {
      const next = Math.max(0, Math.min(v, height - clientHeight));
      if (next === top) return;
      top = next;
      scrolled = true;
    },
  });
  return {
    /** Rows grew: a frame's scroll events, then its resize observations. */
    grow(to: number, opts: { frameFirst?: boolean } = {}) {
      height = to;
      if (opts.frameFirst !== false) frame();
      for (const o of observers) o();
    },
    frame,
    /** The person's scroll has ended: 'scrollend', then the next frame's scroll events. */
    end() {
      el.dispatchEvent(new Event('scrollend'));
      frame();
    },
    /** The person's scroll, once it has moved the view. */
    scrollTo(v: number) {
      el.scrollTop = v;
      frame();
    },
  };
}

function List({ rows }: { rows: number }) {
  const ref = useRef<HTMLOListElement>(null);
  useFollowBottom(ref, rows);
  return (
    <ol ref={ref} data-testid="list">
      {Array.from({ length: rows }, (_, i) => (
        <li key={i}>row {i}</li>
      ))}
    </ol>
  );
}

beforeEach(() => {
  observers.clear();
  vi.stubGlobal('ResizeObserver', FakeResizeObserver);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A 400 px list whose rows have grown to 1,000 px (the view pinned at 600). */
function mount(grow: { frameFirst?: boolean } = {}) {
  // Sizes are set before the hook's effect runs: render into a container, then re-run the effect.
  const view = render(<List rows={1} />);
  const el = view.getByTestId('list');
  const box = sized(el, 400);
  view.rerender(<List rows={2} />);
  act(() => box.grow(1_000, grow));
  return { el, box };
}

describe('useFollowBottom', () => {
  it('follows the bottom while rows grow', () => {
    const { el, box } = mount();
    expect(el.scrollTop).toBe(600);
    act(() => box.grow(1_500));
    expect(el.scrollTop).toBe(1_100);
  });

  it('a wheel turn up stops following before its scroll moves: growth meanwhile does not pull the view down', () => {
    const { el, box } = mount();
    fireEvent.wheel(el, { deltaY: -60 });
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(600);
    act(() => box.scrollTo(540));
    act(() => box.grow(1_400));
    expect(el.scrollTop).toBe(540);
  });

  it("the scroll event of the view's own last pin, arriving after a wheel turn up, does not bring following back", () => {
    const { el, box } = mount({ frameFirst: false });
    expect(el.scrollTop).toBe(600);
    fireEvent.wheel(el, { deltaY: -60 });
    act(() => box.frame());
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(600);
  });

  it('a wheel turn down to the bottom follows again, though rows grew before its scroll landed', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(100);
    fireEvent.wheel(el, { deltaY: 1_000_000 });
    act(() => box.grow(1_400, { frameFirst: false }));
    // The wheel's scroll lands at the bottom of 1,200 px, 200 px short of the bottom now.
    act(() => box.scrollTo(800));
    act(() => box.grow(1_600));
    expect(el.scrollTop).toBe(1_200);
  });

  it('a small wheel turn down far from the bottom does not follow', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    fireEvent.wheel(el, { deltaY: 60 });
    act(() => box.scrollTo(160));
    act(() => box.end());
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(160);
  });

  it('a wheel turn down aimed past the bottom goes all the way when its scroll ends short, and follows', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    // The browser's scroll stops 316 px short (it clamped to a height it had not caught up with).
    fireEvent.wheel(el, { deltaY: 1_000_000 });
    act(() => box.scrollTo(284));
    expect(el.scrollTop).toBe(284);
    act(() => box.end());
    expect(el.scrollTop).toBe(600);
    act(() => box.grow(1_300));
    expect(el.scrollTop).toBe(900);
  });

  it('a wheel turn down in lines or pages counts as aimed at the bottom when it reaches it', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    fireEvent.wheel(el, { deltaY: 3, deltaMode: 1 }); // 3 lines: well short of 500 px
    act(() => box.scrollTo(148));
    act(() => box.end());
    expect(el.scrollTop).toBe(148);
    fireEvent.wheel(el, { deltaY: 2, deltaMode: 2 }); // 2 pages of 400 px: past the bottom
    act(() => box.scrollTo(500));
    act(() => box.end());
    expect(el.scrollTop).toBe(600);
  });

  it('a wheel turn up after one aimed at the bottom wins: the end of the scroll does not pull the view down', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    fireEvent.wheel(el, { deltaY: 1_000_000 });
    act(() => box.scrollTo(300));
    fireEvent.wheel(el, { deltaY: -60 });
    act(() => box.scrollTo(240));
    act(() => box.end());
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(240);
  });

  it('End follows again at once', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(100));
    fireEvent.keyDown(el, { key: 'End' });
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(800);
  });

  it('a wheel turn down does not stop following', () => {
    const { el, box } = mount();
    fireEvent.wheel(el, { deltaY: 60 });
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(800);
  });

  it('PageUp stops following; scrolling back near the bottom follows again', () => {
    const { el, box } = mount();
    fireEvent.keyDown(el, { key: 'PageUp' });
    act(() => box.grow(1_200));
    expect(el.scrollTop).toBe(600);
    act(() => box.scrollTo(790));
    act(() => box.grow(1_400));
    expect(el.scrollTop).toBe(1_000);
  });

  it('a scroll up by other means (the scrollbar) stops following too', () => {
    const { el, box } = mount();
    act(() => box.scrollTo(300));
    act(() => box.grow(1_300));
    expect(el.scrollTop).toBe(300);
  });
});
