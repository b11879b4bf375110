// Markdown source → marked's tokens (GitHub-flavoured), for a reply that grows while it streams.
//
// A top-level block is closed for good once two complete lines follow it: appending text can then
// only change the blocks after it (until then, the next lines may still turn out to continue it: a
// "```" that gets backticks in its info string, a "-" that becomes a setext underline, a table
// whose delimiter row goes wrong). So closed blocks are kept, token objects and all (their
// rendering is memoised on them), and each update lexes only the text from the last open block on:
// a frame costs the size of the last block, not the size of the reply.
//
// Known limit: a link reference definition ("[x]: https://…") only serves links after it while
// the reply streams; a finished reply is lexed whole (lexAll), where it serves every link.
import { Lexer, type Links, type Token, type Tokens } from 'marked';

const OPTIONS = { gfm: true, breaks: false } as const;

export interface GrowingBlocks {
  /** The (normalised) source these blocks were lexed from. */
  source: string;
  /** Closed blocks: final; the same objects from one update to the next. */
  closed: Token[];
  /** How much of `source` the closed blocks cover. */
  closedLength: number;
  /** The blocks lexed from the rest; the last one may still change. */
  open: Token[];
  /** Link reference definitions among the closed blocks. */
  links: Links;
}

/** Line endings as the lexer would see them (so token lengths add up to the source). */
function normalise(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function lex(src: string, links: Links): Token[] {
  const lexer = new Lexer(OPTIONS);
  Object.assign(lexer.tokens.links, links);
  try {
    return lexer.lex(src);
  } catch {
    // The lexer gives up on some pathological input: the text stays readable as one paragraph.
    return [{ type: 'paragraph', raw: src, text: src, tokens: [{ type: 'text', raw: src, text: src }] }];
  }
}

/** Two complete lines from `at` on: enough to settle what the block starting there is (a table
 *  needs its header and delimiter rows), so the block before it can no longer absorb it. */
function twoLinesFrom(text: string, at: number): boolean {
  const first = text.indexOf('\n', at);
  return first !== -1 && text.indexOf('\n', first + 1) !== -1;
}

/** Characters that may start or end inline markup (or a line break, a table, an autolink). */
const INLINE_SPECIAL = /[\n\r\\`*_~[\]()<>!&@|:]/;
/** A line this long is settled as a paragraph: no list, heading, fence or HTML start is longer. */
const SETTLED_LINE = 16;

/**
 * The common streaming case without lexing: plain words appended to a paragraph's one and only line.
 * Returns null unless that provably renders as lexing again would: the appended text has no inline
 * markup character, the paragraph's line is long enough that no block start can still appear in it,
 * is no thematic break or link definition in the making, its last inline token is plain text, and
 * the word being written is no autolink in the making (www., a scheme, an e-mail address).
 */
function appendPlain(prev: GrowingBlocks, source: string): GrowingBlocks | null {
  const added = source.slice(prev.source.length);
  if (!source.startsWith(prev.source) || INLINE_SPECIAL.test(added)) return null;
  const para = prev.open.at(-1);
  if (para?.type !== 'paragraph' || !para.tokens) return null;
  const line = para.raw;
  if (line.length < SETTLED_LINE || line.includes('\n') || !prev.source.endsWith(line) || para.text !== line)
    return null;
  if (/^ {0,3}\[/.test(line) || !/[^-*_=+#~`\s]/.test(line)) return null;
  const last = para.tokens.at(-1);
  if (last?.type !== 'text' || last.tokens || last.text !== last.raw) return null;
  const word = line.slice(line.search(/\S*$/)) + added;
  if (/[@:]|www\./i.test(word)) return null;
  let inline = 0;
  for (const t of para.tokens) inline += t.raw.length;
  if (inline !== line.length) return null;
  // The grown line is the end of the source (which ends with the line, then what was added): taken
  // as a slice of it, not concatenated again, and shared with the paragraph's only token. (Each new
  // concatenation is copied whole the first time it is read: tens of KB a frame for a long reply.)
  const grownLine = source.slice(source.length - line.length - added.length);
  const text = para.tokens.length === 1 ? grownLine : last.raw + added;
  const grown: Tokens.Paragraph = {
    ...(para as Tokens.Paragraph),
    raw: grownLine,
    text: grownLine,
    tokens: [...para.tokens.slice(0, -1), { ...last, raw: text, text }],
  };
  return { ...prev, source, open: [...prev.open.slice(0, -1), grown] };
}

/** A finished text, lexed whole. */
export function lexAll(text: string): Token[] {
  return lex(normalise(text), {});
}

/**
 * The blocks of `text`, reusing `prev` when `text` still starts with the source of prev's closed
 * blocks (a streamed reply only grows); anything else starts over.
 */
export function lexGrowing(prev: GrowingBlocks | null, text: string): GrowingBlocks {
  const source = normalise(text);
  let closed: Token[] = [];
  let closedLength = 0;
  let links: Links = {};
  if (prev && source.length >= prev.closedLength && source.startsWith(prev.source.slice(0, prev.closedLength))) {
    if (prev.source === source) return prev;
    const fast = appendPlain(prev, source);
    if (fast) return fast;
    ({ closed, closedLength, links } = prev);
  }
  const rest = source.slice(closedLength);
  let open = lex(rest, links);
  // Close the blocks before the last boundary (the start of a block) with two complete lines after it.
  const starts: number[] = [];
  let at = 0;
  for (const t of open) {
    starts.push(at);
    at += t.raw.length;
  }
  let cut = open.length - 1;
  while (cut > 0 && (open[cut]?.type === 'space' || !twoLinesFrom(rest, starts[cut] ?? 0))) cut--;
  // The lexer's raw texts add up to its input; should they ever not, nothing is closed (correct, only slower).
  if (
    cut > 0 &&
    rest.slice(0, starts[cut]) !==
      open
        .slice(0, cut)
        .map((t) => t.raw)
        .join('')
  )
    cut = 0;
  if (cut > 0) {
    const done = open.slice(0, cut);
    closed = closed.concat(done);
    closedLength += starts[cut] ?? 0;
    open = open.slice(cut);
    const defs = done.filter((t): t is Tokens.Def => t.type === 'def');
    if (defs.length) {
      links = { ...links };
      // The first definition of a label wins, as in the lexer.
      for (const d of defs) links[d.tag] ??= { href: d.href, title: d.title };
    }
  }
  return { source, closed, closedLength, open, links };
}
