// A search hit's text with its matches marked: the [start, end) ranges messages.search answers
// become <mark> elements around React text nodes (never HTML from the data). Ranges out of the text,
// empty, unordered or overlapping are clamped, sorted and merged. A long text is cut to a window
// that starts shortly before the first match, so the match is in view.
import type { MatchRangeDTO } from '../../../../src-shared/contract';

/** Characters kept before the first match when the text is cut. */
const LEAD = 40;

interface Part {
  text: string;
  hit: boolean;
}

/** The text in plain and marked parts, in order; their texts joined give back the text. */
function highlightParts(text: string, ranges: readonly MatchRangeDTO[]): Part[] {
  const sorted = ranges
    .map(([a, b]): MatchRangeDTO => [Math.max(0, Math.min(a, text.length)), Math.max(0, Math.min(b, text.length))])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const merged: MatchRangeDTO[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const parts: Part[] = [];
  let at = 0;
  for (const [a, b] of merged) {
    if (a > at) parts.push({ text: text.slice(at, a), hit: false });
    parts.push({ text: text.slice(a, b), hit: true });
    at = b;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return parts;
}

/** The text from shortly before its first match (an ellipsis says it was cut), with the ranges moved along. */
function fromFirstMatch(text: string, ranges: readonly MatchRangeDTO[]): { text: string; ranges: MatchRangeDTO[] } {
  const first = Math.min(...ranges.map(([a]) => a));
  if (!Number.isFinite(first) || first <= LEAD) return { text, ranges: [...ranges] };
  // Cut at a word's start when there is one near, not in the middle of a word.
  let cut = first - LEAD;
  const space = text.indexOf(' ', cut);
  if (space >= 0 && space < first) cut = space + 1;
  return { text: `…${text.slice(cut)}`, ranges: ranges.map(([a, b]): MatchRangeDTO => [a - cut + 1, b - cut + 1]) };
}

export function Highlight({
  text,
  ranges,
  lead = false,
}: {
  text: string;
  ranges: readonly MatchRangeDTO[];
  lead?: boolean;
}) {
  const shown = lead ? fromFirstMatch(text, ranges) : { text, ranges };
  return (
    <>{highlightParts(shown.text, shown.ranges).map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : p.text))}</>
  );
}
