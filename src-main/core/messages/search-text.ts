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
  const words = query
    .split(/\s+/)
    .map((w) => w.replace(/"/g, ''))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"${prefix ? '*' : ''}`).join(' ');
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
