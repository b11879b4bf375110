// What a search field's words become: a phone number in any written form ("+1 555 010 7777",
// "15550107777", "(555) 010-7777", "555.010.7777") is its digits, matched anywhere in a contact's
// number; words are prefixes for the full-text index; and matches come back as ranges of the text.

/** Separators people write numbers with. */
const PHONE_SEPARATORS = /[\s()\-./+]/g;

/** The digits of a query written as a phone number (at least 3 of them), or null. */
export function phoneDigits(query: string): string | null {
  const q = query.trim();
  if (!/^[\d\s()\-./+]+$/.test(q)) return null;
  const digits = q.replace(PHONE_SEPARATORS, '');
  return digits.length >= 3 ? digits : null;
}

/**
 * A full-text query: every word quoted (so no word is taken for an operator), as a prefix when
 * `prefix` (a word being typed), else whole; null when there is no word.
 */
export function ftsQuery(query: string, prefix: boolean): string | null {
  const words = queryWords(query);
  if (words.length === 0) return null;
  // A prefix longer than the index's longest (4) is asked as its first 4 characters, served by the
  // prefix index; the rows are then kept when each word starts a matched token (prefixMatches).
  return words.map((w) => (prefix ? `"${[...w].slice(0, PREFIX_MAX).join('')}"*` : `"${w}"`)).join(' ');
}

/** The longest prefix the full-text index keeps an index of (sqlite-schema.ts, prefix='2 3 4'). */
const PREFIX_MAX = 4;

function queryWords(query: string): string[] {
  return query
    .split(/\s+/)
    .map((w) => w.replace(/"/g, ''))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
}

/** Lower case without diacritics, as the index compares words. */
const folded = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** A word of a text as a full-text index keeps it: where it is, and its folded form. */
interface Word {
  start: number;
  end: number;
  folded: string;
}

/**
 * The words of a text as SQLite's index splits them (unicode61: runs of letters and digits, their marks
 * kept with them), each folded (lower case, no diacritics): what an index of another engine keeps.
 */
export function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    const f = folded(m[0]);
    if (f !== '') out.push({ start: m.index, end: m.index + m[0].length, folded: f });
  }
  return out;
}

/** The folded words of a query (a word written with separators is its words). */
export function queryTokens(query: string): string[] {
  return queryWords(query).flatMap((w) => wordsOf(w).map((x) => x.folded));
}

/** The ranges of the words of `text` that are (or, `prefix`, start with) one of `tokens`. */
export function rangesOfWords(text: string, tokens: readonly string[], prefix: boolean): Array<[number, number]> {
  return wordsOf(text)
    .filter((w) => tokens.some((t) => (prefix ? w.folded.startsWith(t) : w.folded === t)))
    .map((w) => [w.start, w.end]);
}

/**
 * Whether every word of the query starts one of the matched tokens (`ranges` in `texts`): the check
 * behind a prefix asked as its first 4 characters.
 */
export function prefixMatches(query: string, texts: Array<{ text: string; ranges: Array<[number, number]> }>): boolean {
  const tokens = texts.flatMap((t) => t.ranges.map(([a, b]) => folded(t.text.slice(a, b))));
  return queryWords(query).every((w) => {
    const f = folded(w);
    // Words the tokenizer splits (a number written with dashes) are left to the index.
    return !/^[\p{L}\p{N}]+$/u.test(f) || tokens.some((t) => t.startsWith(f));
  });
}

/** Marks the full-text index puts around a match (private-use characters, never in a message we show). */
export const HIT_OPEN = '\uE000';
export const HIT_CLOSE = '\uE001';

/**
 * The ranges of a text marked by the index; null when the marks do not give back the text (it held
 * the marking characters itself).
 */
export function rangesOfMarked(marked: string, text: string): Array<[number, number]> | null {
  const ranges: Array<[number, number]> = [];
  let plain = '';
  let start = -1;
  for (const ch of marked) {
    if (ch === HIT_OPEN) start = plain.length;
    else if (ch === HIT_CLOSE) {
      if (start >= 0) ranges.push([start, plain.length]);
      start = -1;
    } else plain += ch;
  }
  return plain === text ? ranges : null;
}

/** Case-insensitive ranges of `needle` in `text` (for names and numbers). */
export function rangesOf(text: string, needle: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (needle === '') return out;
  const hay = text.toLowerCase();
  const n = needle.toLowerCase();
  for (let i = hay.indexOf(n); i >= 0; i = hay.indexOf(n, i + n.length)) out.push([i, i + n.length]);
  return out;
}
