// A reply's paragraph, and the one a reply is still writing. A browser shapes and lays out a
// paragraph as a whole: a paragraph that grows to tens of KB costs several ms of every frame, however
// little was added. So once the paragraph being written is long, the lines it has finished are moved
// out of the block being written into blocks of their own (runs, one display:block span each, a
// couple of KB apiece), cut exactly where the browser broke the lines: the text looks the same, and
// each frame only the last lines are laid out again. While a selection over them is copied, the runs
// are laid out inline (once, for the copy), so the copied text reads one paragraph.
//
// A paragraph that is done keeps its runs (laying tens of KB out again as one block would cost tens
// of ms at the moment the reply ends or moves on) until its width changes; then it is one block
// again. It is the same <p> element throughout.
//
// Only the paragraph's last run of plain text (its last inline token, when plain) is cut; what comes
// before it (links, emphasis, code) stays in the first run. Should that part change, or the text
// stop being a continuation of what was cut, or the paragraph change width (the lines break
// elsewhere now), the cuts are dropped and the paragraph is one run again.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Token } from 'marked';
import { decodeEntities, renderInline } from './inline';

/** The live run is cut once it holds more than this many characters. */
const LIVE_MAX = 2048;

interface Cuts {
  /** The source of the inline tokens before the plain text the cuts apply to. */
  head: string;
  /** Offsets into that plain text where a run ends, ascending. */
  at: number[];
  /** The plain text up to the last cut. */
  text: string;
}

const NONE: Cuts = { head: '', at: [], text: '' };

/** The top of the first line box of character `i` of `node`, or NaN where it has none. */
function charTop(range: Range, node: Text, i: number): number {
  range.setStart(node, i);
  range.setEnd(node, i + 1);
  const r = range.getClientRects()[0];
  return r && r.height > 0 ? r.top : NaN;
}

/**
 * Where each line of `node` is likely to start, from one look at all its line boxes: the offset
 * into the text in proportion to the width of the lines before it (a guess; null when the line with
 * that top is not among them).
 */
function lineGuesses(range: Range, node: Text): (top: number) => number | null {
  range.selectNodeContents(node);
  const lines: Array<{ top: number; width: number }> = [];
  for (const r of Array.from(range.getClientRects())) {
    if (r.height <= 0) continue;
    const line = lines.find((l) => Math.abs(l.top - r.top) < 0.5);
    if (line) line.width += r.width;
    else lines.push({ top: r.top, width: r.width });
  }
  lines.sort((a, b) => a.top - b.top);
  const total = lines.reduce((sum, l) => sum + l.width, 0);
  return (top) => {
    let before = 0;
    for (const l of lines) {
      if (Math.abs(l.top - top) < 0.5) return total > 0 ? Math.round((node.data.length * before) / total) : null;
      before += l.width;
    }
    return null;
  };
}

/**
 * Where, in `node`'s text, the line before its last line starts (0 when the text has at most two
 * lines, or is not laid out). Whitespace is never measured: a space where a line breaks belongs to
 * the line it ends (or to none), so each probe reads the first character at or after it that is not one.
 * Each line start is searched from a guess (lineGuesses) outwards in doubling steps, then by
 * halving: a handful of probes where a search over the whole text takes two dozen.
 */
function secondToLastLineStart(node: Text): number {
  const text = node.data;
  const range = document.createRange();
  const solid = (i: number): number => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    return i;
  };
  let guesses: ((top: number) => number | null) | null = null;
  /** The first character (not whitespace) whose line's top is at or below `top`; `hi` is one. */
  const lineStart = (top: number, hi: number): number => {
    const below = (i: number): boolean => {
      const j = solid(i);
      return (j < text.length ? charTop(range, node, j) : Infinity) >= top - 0.5;
    };
    guesses ??= lineGuesses(range, node);
    const guess = Math.min(hi, Math.max(0, guesses(top) ?? hi >>> 1));
    // The answer is in (lo, up]: below(up) holds, below(lo) does not (or lo is -1).
    let lo: number;
    let up: number;
    let step = 8;
    if (below(guess)) {
      up = guess;
      lo = guess - step;
      while (lo >= 0 && below(lo)) {
        up = lo;
        step *= 2;
        lo = up - step;
      }
      lo = Math.max(lo, -1);
    } else {
      lo = guess;
      up = guess + step;
      while (up < hi && !below(up)) {
        lo = up;
        step *= 2;
        up = lo + step;
      }
      up = Math.min(up, hi);
    }
    while (up - lo > 1) {
      const mid = (lo + up) >>> 1;
      if (below(mid)) up = mid;
      else lo = mid;
    }
    return solid(up);
  };
  let end = text.length - 1;
  while (end >= 0 && /\s/.test(text[end]!)) end--;
  if (end <= 0) return 0;
  const lastTop = charTop(range, node, end);
  if (Number.isNaN(lastTop)) return 0;
  const last = lineStart(lastTop, end);
  let before = last - 1;
  while (before >= 0 && /\s/.test(text[before]!)) before--;
  if (before < 0) return 0;
  const prevTop = charTop(range, node, before);
  if (Number.isNaN(prevTop) || prevTop >= lastTop) return 0;
  const start = lineStart(prevTop, before);
  return start < text.length ? start : 0;
}

/** A paragraph; `live` while the reply it is in still streams and it is the reply's last block. */
export function Paragraph({ tokens, live }: { tokens: readonly Token[]; live: boolean }) {
  const last = tokens.at(-1);
  const [stored, setCuts] = useState<Cuts>(NONE);
  // Done, it is split only to keep the cuts it was given while it streamed.
  const plain = (live || stored.at.length > 0) && last?.type === 'text' && !last.tokens;
  const head = plain ? tokens.slice(0, -1) : tokens;
  const tail = plain ? decodeEntities(last.text) : '';
  const headSource = plain ? head.map((t) => t.raw).join('') : '';
  const cuts = plain && stored.head === headSource && tail.startsWith(stored.text) ? stored : NONE;
  /** The live run's text length at which to measure again after a measure that found no line to cut. */
  const retryAt = useRef(0);
  const liveRun = useRef<HTMLSpanElement>(null);
  const paragraph = useRef<HTMLParagraphElement>(null);
  const from = cuts.text.length;
  const rest = tail.slice(from);

  /** The paragraph's width when the lines were last measured (read then, while the layout is fresh). */
  const measuredWidth = useRef(0);

  // Only cuts can go stale with the width: a paragraph without any is not watched. Its width is read
  // in the observer's callbacks only (after a layout): reading it here, right after the commit that
  // made the first cut, would lay the page out again in that frame.
  const cut = cuts.at.length > 0;
  useEffect(() => {
    const p = paragraph.current;
    if (!cut || !p || typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(() => {
      if (p.clientWidth === measuredWidth.current) return;
      retryAt.current = 0;
      setCuts(NONE);
    });
    watch.observe(p);
    return () => watch.disconnect();
  }, [cut]);

  // A copy of a selection over the runs: inline for the copy (the browser lays the paragraph out once
  // to serialise it), blocks again right after.
  useEffect(() => {
    const p = paragraph.current;
    if (!cut || !p) return;
    const doc = p.ownerDocument;
    const onCopy = () => {
      const sel = doc.getSelection();
      let touched = false;
      for (let i = 0; sel && i < sel.rangeCount; i++) touched ||= sel.getRangeAt(i).intersectsNode(p);
      if (!touched) return;
      p.classList.add('md-copying');
      setTimeout(() => p.classList.remove('md-copying'), 0);
    };
    doc.addEventListener('copy', onCopy);
    return () => doc.removeEventListener('copy', onCopy);
  }, [cut]);

  useLayoutEffect(() => {
    if (!live || rest.length <= LIVE_MAX || rest.length < retryAt.current) return;
    // Before the first cut the text is the paragraph's own last child; after it, the live run's.
    const node = (cut ? liveRun.current : paragraph.current)?.lastChild;
    const at = node instanceof Text && node.data === rest ? secondToLastLineStart(node) : 0;
    if (at <= 0) {
      retryAt.current = rest.length + LIVE_MAX;
      return;
    }
    retryAt.current = 0;
    measuredWidth.current = paragraph.current?.clientWidth ?? 0;
    setCuts({ head: headSource, at: [...cuts.at, from + at], text: tail.slice(0, from + at) });
  });

  // Not cut (yet), or done and not cut: the same element throughout, so nothing is put in its place
  // when the reply moves on or ends (a person scrolled up keeps the view still).
  if (!cut && !live) return <p ref={paragraph}>{renderInline(tokens)}</p>;
  // Always an array: a lone string child would be set as the element's whole text.
  if (!cut)
    return (
      <p className="md-live" ref={paragraph}>
        {[...renderInline(head), rest]}
      </p>
    );
  const runs: ReactNode[] = [];
  let start = 0;
  for (const [i, end] of cuts.at.entries()) {
    runs.push(
      <span key={i} className="md-run">
        {i === 0 ? [...renderInline(head), tail.slice(0, end)] : tail.slice(start, end)}
      </span>,
    );
    start = end;
  }
  runs.push(
    <span key={cuts.at.length} className="md-run" ref={liveRun}>
      {[rest]}
    </span>,
  );
  return (
    <p className={live ? 'md-live' : undefined} ref={paragraph}>
      {runs}
    </p>
  );
}
