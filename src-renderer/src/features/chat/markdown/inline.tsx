// Inline markdown tokens → React elements. Every piece of text is a text node: HTML in a reply
// (a tag, a comment) shows as the characters it is. Links open outside the app and only for
// http(s) addresses: target=_blank, which the browser opens in a new tab and the Electron shell
// hands to the system browser; javascript:, data:, file: and relative links stay text, as written.
// Images are never loaded: they show as a link to the image.
import type { ReactNode } from 'react';
import type { Token, Tokens } from 'marked';
import { decodeNamedCharacterReference } from 'decode-named-character-reference';

/** Only absolute http(s) URLs are followed. */
function safeHref(raw: string): string | null {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const ENTITY = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});/g;

/** Character references (&amp; &#169; &#x1F600;) as the characters they stand for; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, ref: string) => {
    if (ref[0] !== '#') return decodeNamedCharacterReference(ref) || whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
  });
}

/** Plain text is cut into text nodes of this many characters: while a long reply streams only the
 *  last node changes and new ones are appended, so the browser does not lay out the whole reply again. */
const PIECE = 1024;

/** `text` as text nodes of at most PIECE characters, never splitting a surrogate pair. */
function pieces(text: string): string[] {
  if (text.length <= PIECE) return [text];
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + PIECE);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

function link(t: Tokens.Link, key: number): ReactNode {
  const href = safeHref(t.href);
  // A link that is not followed shows as written, so it is plain that it is not a link.
  if (!href) return t.raw;
  return (
    <a key={key} href={href} target="_blank" rel="noopener noreferrer" title={t.title ?? undefined}>
      {renderInline(t.tokens)}
    </a>
  );
}

function image(t: Tokens.Image, key: number): ReactNode {
  const label = `Image: ${decodeEntities(t.text) || 'untitled'}`;
  const href = safeHref(t.href);
  if (!href) return <span key={key}>{label}</span>;
  return (
    <a
      key={key}
      className="md-image"
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      title={t.title ?? undefined}
    >
      {label}
    </a>
  );
}

function inline(t: Token, key: number): ReactNode {
  switch (t.type) {
    case 'text':
      // A list item's text holds its own inline tokens.
      return t.tokens ? <span key={key}>{renderInline(t.tokens)}</span> : pieces(decodeEntities(t.text));
    case 'escape':
      return t.text;
    case 'strong':
      return <strong key={key}>{renderInline(t.tokens ?? [])}</strong>;
    case 'em':
      return <em key={key}>{renderInline(t.tokens ?? [])}</em>;
    case 'del':
      return <del key={key}>{renderInline(t.tokens ?? [])}</del>;
    case 'codespan':
      return <code key={key}>{t.text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link':
      return link(t as Tokens.Link, key);
    case 'image':
      return image(t as Tokens.Image, key);
    default:
      // html (a tag as typed) and anything unknown: the characters as written.
      return t.raw;
  }
}

/** Inline tokens as React children (adjacent strings stay separate text nodes). */
export function renderInline(tokens: readonly Token[]): ReactNode[] {
  const out: ReactNode[] = [];
  tokens.forEach((t, i) => {
    const r = inline(t, i);
    if (Array.isArray(r)) out.push(...(r as ReactNode[]));
    else out.push(r);
  });
  return out;
}
