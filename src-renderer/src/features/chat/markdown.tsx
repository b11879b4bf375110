// A tiny, safe markdown renderer for agent replies: paragraphs, line breaks, **bold**, *italic*,
// `code`, ``` fences ```, lists and [links](https://…). It builds React elements only — every piece
// of text is a text node, so HTML in a reply shows as text; links are http/https only.
import type { ReactNode } from 'react';

export type Block =
  | { type: 'p'; lines: string[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'ul' | 'ol'; items: string[] };

const FENCE = /^\s*```\s*([\w+-]*)\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;

/** Splits text into blocks. An unclosed fence (a reply still streaming) runs to the end. */
export function parseBlocks(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const endPara = () => {
    if (para.length) blocks.push({ type: 'p', lines: para });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      endPara();
      const body: string[] = [];
      i++;
      while (i < lines.length && !FENCE.test(lines[i] ?? '')) body.push(lines[i++] ?? '');
      blocks.push({ type: 'code', lang: fence[1] ?? '', text: body.join('\n') });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      endPara();
      const type = bullet ? 'ul' : 'ol';
      const re = bullet ? BULLET : NUMBERED;
      const items: string[] = [];
      while (i < lines.length) {
        const m = re.exec(lines[i] ?? '');
        if (!m) break;
        items.push(m[1] ?? '');
        i++;
      }
      i--;
      blocks.push({ type, items });
      continue;
    }
    if (line.trim() === '') endPara();
    else para.push(line);
  }
  endPara();
  return blocks;
}

/** Only absolute http(s) URLs become links; anything else (javascript:, data:, relative) stays text. */
function safeHref(raw: string): string | null {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const LINK = /^\[([^\]\n]+)\]\(([^)\s]+)\)/;

const SPECIAL = /[`*_[]/g;

/** Plain text runs are cut into pieces at fixed offsets: while a reply streams, only the last text
 *  node changes and new ones are appended, so the browser does not re-lay-out the whole reply. */
const PIECE = 1024;
function pushPlain(out: ReactNode[], text: string): void {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + PIECE);
    // Never split a surrogate pair between two text nodes.
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    out.push(text.slice(at, end));
    at = end;
  }
}

/** Inline spans; an unclosed marker is plain text. */
export function renderInline(text: string, keyPrefix = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let buf = '';
  let k = 0;
  const key = () => `${keyPrefix}-${k++}`;
  const flushText = () => {
    pushPlain(out, buf);
    buf = '';
  };
  let i = 0;
  while (i < text.length) {
    // Plain text up to the next marker character is copied in one slice (not char by char).
    SPECIAL.lastIndex = i;
    const next = SPECIAL.exec(text);
    const stop = next ? next.index : text.length;
    if (stop > i) {
      buf += text.slice(i, stop);
      i = stop;
      continue;
    }
    const c = text[i];
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flushText();
        out.push(<code key={key()}>{text.slice(i + 1, end)}</code>);
        i = end + 1;
        continue;
      }
    } else if (c === '*' && text[i + 1] === '*') {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        flushText();
        const kk = key();
        out.push(<strong key={kk}>{renderInline(text.slice(i + 2, end), kk)}</strong>);
        i = end + 2;
        continue;
      }
    } else if ((c === '*' || c === '_') && text[i + 1] !== undefined && text[i + 1] !== ' ') {
      const end = text.indexOf(c, i + 1);
      if (end > i + 1 && text[end - 1] !== ' ') {
        flushText();
        const kk = key();
        out.push(<em key={kk}>{renderInline(text.slice(i + 1, end), kk)}</em>);
        i = end + 1;
        continue;
      }
    } else if (c === '[') {
      const m = LINK.exec(text.slice(i));
      if (m) {
        const href = safeHref(m[2] ?? '');
        if (href) {
          flushText();
          const kk = key();
          out.push(
            <a key={kk} href={href} target="_blank" rel="noopener noreferrer">
              {renderInline(m[1] ?? '', kk)}
            </a>,
          );
          i += m[0].length;
          continue;
        }
      }
    }
    buf += c;
    i++;
  }
  flushText();
  return out;
}

export function Markdown({ text }: { text: string }) {
  const blocks = parseBlocks(text);
  return (
    <div className="md">
      {blocks.map((b, n) => {
        if (b.type === 'code') {
          return (
            <pre key={n} className="md-code" data-lang={b.lang || undefined}>
              <code>{b.text}</code>
            </pre>
          );
        }
        if (b.type === 'p') {
          return (
            <p key={n}>
              {b.lines.map((line, j) => (
                <span key={j}>
                  {j > 0 && <br />}
                  {renderInline(line, `${n}-${j}`)}
                </span>
              ))}
            </p>
          );
        }
        const items = b.items.map((it, j) => <li key={j}>{renderInline(it, `${n}-${j}`)}</li>);
        return b.type === 'ul' ? <ul key={n}>{items}</ul> : <ol key={n}>{items}</ol>;
      })}
    </div>
  );
}
