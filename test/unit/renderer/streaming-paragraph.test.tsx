// @vitest-environment jsdom
// A paragraph still streaming is laid out a few lines at a time: its finished lines are moved into
// runs of their own, cut exactly where the lines break. jsdom lays nothing out, so these tests give
// Range a line layout of their own (greedy, `columns` characters a line, breaking at spaces, a space
// where a line breaks has no box) and check that the runs, laid out each on its own, give the very
// lines of the whole text, that the text stays exact, and that a change before the cut text starts over.
import { act, cleanup, render } from '@testing-library/react';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Markdown } from '../../../src-renderer/src/features/chat/markdown/Markdown';

/** Characters a line (60 unless a test says otherwise). */
let columns = 60;
const LINE = 20;

/** The line each character of `text` is on (greedy at spaces, a word longer than a line is cut), -1 for a space that ends a line. */
function lineOf(text: string): number[] {
  const out: number[] = new Array<number>(text.length).fill(-1);
  let line = 0;
  let used = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      // A space fits if a character could follow it on this line; otherwise it ends the line.
      if (used > 0 && used < columns) {
        out[i] = line;
        used++;
      } else if (used > 0) {
        line++;
        used = 0;
      }
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && text[end] !== ' ') end++;
    const word = end - i;
    if (used > 0 && used + word > columns) {
      line++;
      used = 0;
    }
    for (let k = i; k < end; k++) {
      if (used === columns) {
        line++;
        used = 0;
      }
      out[k] = line;
      used++;
    }
    i = end;
  }
  return out;
}

/** The text of each line, as `lineOf` breaks it. */
function lines(text: string): string[] {
  const of = lineOf(text);
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) if (of[i]! >= 0) out[of[i]!] = (out[of[i]!] ?? '') + text[i];
  return out.map((l) => l.trimEnd());
}

const measured: Array<{ node: Node; at: number }> = [];
const rectList = (rects: DOMRect[]) =>
  Object.assign(rects, { item: (i: number) => rects[i] ?? null }) as unknown as DOMRectList;
/** Ranges of more than one character asked for (the look at all the line boxes at once). */
let wholeLooks = 0;
/**
 * The layout: 8 px a character, each on its line (none for a space that ends a line); a range of
 * one character has its box, a longer one a box per line it spans.
 */
const laidOut = vi.fn(function (this: Range): DOMRectList {
  const node = this.startContainer;
  const of = lineOf(node.textContent ?? '');
  if (this.endOffset - this.startOffset !== 1) {
    wholeLooks++;
    const widths = new Map<number, number>();
    for (let i = this.startOffset; i < this.endOffset; i++)
      if (of[i]! >= 0) widths.set(of[i]!, (widths.get(of[i]!) ?? 0) + 8);
    return rectList([...widths].map(([line, w]) => new DOMRect(0, line * LINE, w, LINE)));
  }
  measured.push({ node, at: this.startOffset });
  const line = of[this.startOffset] ?? -1;
  return rectList(line < 0 ? [] : [new DOMRect(0, line * LINE, 8, LINE)]);
});

/** Runs `fn` while a look at all the line boxes at once is answered with `boxes`. */
function withLineBoxes<T>(boxes: DOMRect[], fn: () => T): T {
  const inner = laidOut.getMockImplementation()!;
  laidOut.mockImplementation(function (this: Range) {
    return this.endOffset - this.startOffset !== 1 ? rectList(boxes) : inner.call(this);
  });
  try {
    return fn();
  } finally {
    laidOut.mockImplementation(inner);
  }
}

beforeEach(() => {
  columns = 60;
  measured.length = 0;
  wholeLooks = 0;
  // jsdom has no Range.getClientRects at all.
  Object.defineProperty(Range.prototype, 'getClientRects', { value: laidOut, configurable: true, writable: true });
});

afterEach(() => {
  cleanup();
  laidOut.mockClear();
  delete (Range.prototype as Partial<Range>).getClientRects;
});

/** Streams `text` into a Markdown element in pieces of the given sizes; calls `each` after every step. */
function stream(text: string, sizes: number[], each?: (container: HTMLElement, shown: string) => void): HTMLElement {
  const { container, rerender } = render(<Markdown text="" streaming />);
  for (let at = 0, i = 0; at < text.length; i++) {
    at = Math.min(text.length, at + sizes[i % sizes.length]!);
    rerender(<Markdown text={text.slice(0, at)} streaming />);
    each?.(container, text.slice(0, at));
  }
  return container;
}

const runsOf = (container: HTMLElement) =>
  [...container.querySelectorAll('.md > p > .md-run')].map((r) => r.textContent ?? '');

/**
 * Where a paragraph of `text` (long enough to be measured), shown while it streams, is cut: the
 * start of its live run, which holds its last two lines; 0 when it is one run (not cut).
 */
function cutAt(text: string): number {
  const { container } = render(<Markdown text={text} streaming />);
  expect(container.querySelector('.md')?.textContent).toBe(text);
  const runs = runsOf(container);
  cleanup();
  return runs.length < 2 ? 0 : text.length - runs.at(-1)!.length;
}

describe('a streaming paragraph is cut where its second-to-last line starts', () => {
  it('where the layout broke the line, never at a space', () => {
    const text = `${'alpha beta gamma '.repeat(130)}end`;
    const at = cutAt(text);
    const all = lines(text);
    expect(all.length).toBeGreaterThan(2);
    expect(text.slice(at).trimEnd()).toBe(all.slice(-2).join(' '));
    expect(measured.length).toBeGreaterThan(0);
    expect(measured.every((m) => m.node.textContent![m.at] !== ' ')).toBe(true);
  });

  it('not at all when the text has two lines or less', () => {
    columns = 3000;
    expect(cutAt('word '.repeat(500).trimEnd())).toBe(0);
    expect(cutAt(`${'x'.repeat(columns)} next`)).toBe(0);
    // The same texts on narrower lines are cut.
    columns = 60;
    expect(cutAt('word '.repeat(500).trimEnd())).toBeGreaterThan(0);
  });

  it('found with a handful of probes from a guess, where a search without one takes two dozen', () => {
    const text = `${'a line of words, incomprehensibilities, and a few more '.repeat(90)}end`;
    const at = cutAt(text);
    expect(text.slice(at).trimEnd()).toBe(lines(text).slice(-2).join(' '));
    expect(wholeLooks).toBe(1);
    const guessed = measured.length;
    expect(guessed).toBeLessThanOrEqual(16);
    // The same search with no line boxes to guess from (it starts from the middle of the text).
    measured.length = 0;
    expect(withLineBoxes([], () => cutAt(text))).toBe(at);
    expect(measured.length).toBeGreaterThanOrEqual(24);
    expect(2 * guessed).toBeLessThanOrEqual(measured.length);
  });

  it('found still when the guess is far off (line boxes it cannot place)', () => {
    const text = `${'some words and then some more '.repeat(70)}end`;
    const want = lines(text).slice(-2).join(' ');
    const count = lines(text).length;
    // None; none where the lines are; every line, but the last one so wide that each guess is near 0.
    const skewed = Array.from({ length: count }, (_, k) => new DOMRect(0, k * LINE, k === count - 1 ? 1e6 : 1, LINE));
    for (const boxes of [[] as DOMRect[], [new DOMRect(0, -500, 10, LINE)], skewed]) {
      expect(text.slice(withLineBoxes(boxes, () => cutAt(text))).trimEnd()).toBe(want);
    }
  });

  it('not at all when the text is not laid out (no boxes)', () => {
    Object.defineProperty(Range.prototype, 'getClientRects', {
      value: () => rectList([]),
      configurable: true,
      writable: true,
    });
    expect(cutAt('word '.repeat(2000).trimEnd())).toBe(0);
  });
});

describe('a paragraph while it streams', () => {
  it('is cut into runs whose lines are the lines of the whole text, and its text is exact at every step', () => {
    const words = [
      'a',
      'streamed',
      'reply',
      'of',
      'many',
      'words,',
      'some',
      'quite',
      'long:',
      'incomprehensibilities',
      'x',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words), { minLength: 900, maxLength: 1400 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 5 }),
        (ws, sizes) => {
          const text = `Intro line of the reply ${ws.join(' ')}`;
          const container = stream(text, sizes, (c, shown) => {
            expect(c.querySelector('.md')?.textContent).toBe(shown);
          });
          const runs = runsOf(container);
          expect(runs.length).toBeGreaterThan(2);
          // Each run starts a line: its lines, run after run, are the lines of the whole paragraph.
          expect(runs.flatMap((r) => lines(r))).toEqual(lines(text));
          // The live run stays small; the cut ones are a couple of KB each.
          for (const r of runs) expect(r.length).toBeLessThanOrEqual(2048 + 2 * columns + 400);
          cleanup();
        },
      ),
      { numRuns: 15 },
    );
  });

  it('keeps the markup before its plain text in the first run', () => {
    const text = `**Bold** start and a [link](https://e.test) then ${'plain words go on '.repeat(400)}`;
    const container = stream(text, [97]);
    const first = container.querySelector('p.md-live > .md-run');
    expect(first?.querySelector('strong')?.textContent).toBe('Bold');
    expect(first?.querySelector('a')?.getAttribute('href')).toBe('https://e.test/');
    expect(runsOf(container).length).toBeGreaterThan(2);
    const streamed = container.querySelector('.md')?.textContent;
    cleanup();
    expect(streamed).toBe(render(<Markdown text={text} />).container.textContent);
  });

  it('starts over when the text before the cuts changes', () => {
    const long = 'plain words go on '.repeat(400);
    const { container, rerender } = render(<Markdown text={long} streaming />);
    rerender(<Markdown text={`${long} and more`} streaming />);
    const before = runsOf(container);
    expect(before.length).toBeGreaterThan(1);
    // The same length of text, but different from the start: nothing cut before stays.
    const other = `other ${long.slice(6)} and more`;
    rerender(<Markdown text={other} streaming />);
    expect(container.querySelector('.md')?.textContent).toBe(other);
    const after = runsOf(container);
    expect(after[0]!.startsWith('other ')).toBe(true);
    expect(after.slice(0, -1).every((r) => r.startsWith('plain') || r.startsWith('other'))).toBe(true);
  });

  it('is laid out inline while a selection over it is copied, then in blocks again', async () => {
    const text = `Intro ${'plain words go on '.repeat(400)}and more`;
    const container = stream(text, [211]);
    const p = container.querySelector('p.md-live')!;
    expect(p.querySelectorAll('.md-run').length).toBeGreaterThan(2);
    const copy = () => document.dispatchEvent(new Event('copy', { bubbles: true }));
    // Nothing of it selected: untouched.
    getSelection()!.removeAllRanges();
    copy();
    expect(p.classList.contains('md-copying')).toBe(false);
    getSelection()!.selectAllChildren(p.querySelector('.md-run')!);
    copy();
    expect(p.classList.contains('md-copying')).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(p.classList.contains('md-copying')).toBe(false);
    getSelection()!.removeAllRanges();
  });

  it('keeps its runs when done, until its text is no longer what was cut', () => {
    const text = `Intro ${'plain words go on '.repeat(400)}and more`;
    const container = stream(text, [211]);
    const p = container.querySelector('.md > p')!;
    const runs = [...p.querySelectorAll('.md-run')];
    expect(runs.length).toBeGreaterThan(2);
    const { rerender } = render(<Markdown text={text} />, { container });
    // The same element and the same runs: nothing is laid out again when the reply ends.
    expect(container.querySelector('.md > p')).toBe(p);
    expect(p.classList.contains('md-live')).toBe(false);
    expect([...p.querySelectorAll('.md-run')]).toEqual(runs);
    expect(p.textContent).toBe(text);
    // A finished text that does not continue the cut text is one block.
    rerender(<Markdown text={`Changed ${text}`} />);
    expect(p.querySelector('.md-run')).toBeNull();
    expect(p.textContent).toBe(`Changed ${text}`);
  });

  it('is one block again when its width changes after it is done', () => {
    let notify: (() => void) | null = null;
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(fn: () => void) {
          notify = fn;
        }
        observe(): void {}
        disconnect(): void {}
      },
    );
    try {
      const text = `Intro ${'plain words go on '.repeat(400)}and more`;
      const container = stream(text, [211]);
      const { rerender } = render(<Markdown text={text} />, { container });
      const p = container.querySelector('.md > p') as HTMLParagraphElement;
      expect(p.querySelectorAll('.md-run').length).toBeGreaterThan(2);
      // A layout at the width it was measured at changes nothing.
      act(() => notify!());
      expect(p.querySelectorAll('.md-run').length).toBeGreaterThan(2);
      Object.defineProperty(p, 'clientWidth', { value: 321, configurable: true });
      act(() => notify!());
      rerender(<Markdown text={text} />);
      expect(p.querySelector('.md-run')).toBeNull();
      expect(p.textContent).toBe(text);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('is never measured while it is short', () => {
    stream('A short reply that stays on a few lines. '.repeat(20), [13]);
    expect(measured).toHaveLength(0);
  });
});
