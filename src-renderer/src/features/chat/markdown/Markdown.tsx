// An agent's reply as GitHub-flavoured markdown (headings, lists, task lists, tables, quotes, code
// with highlighting and Copy), built as React elements from marked's tokens: no HTML string is
// ever put into the page. This module and marked are one chunk the chat screen loads before it
// shows a conversation (so a reply never shows raw first).
//
// While a reply streams, closed blocks keep their token objects (blocks.ts) and each block's
// rendering is memoised on its token, so a frame re-renders only the last block; a paragraph still
// being written is laid out a few lines at a time (Paragraph.tsx).
import { createContext, memo, useContext, useMemo, useRef, type ReactNode } from 'react';
import type { Token, Tokens } from 'marked';
import { lexAll, lexGrowing, type GrowingBlocks } from './blocks';
import { CodeBlock } from './CodeBlock';
import { Paragraph } from './Paragraph';
import { renderInline } from './inline';

/** A reply's headings sit under the page's own (h1 app, h2 screen, h3 conversation): its top
 *  heading level is an h4, the next an h5, and so on (at most h6). This is the reply's top depth. */
const TopDepth = createContext(1);

function Heading({ t }: { t: Tokens.Heading }) {
  const top = useContext(TopDepth);
  const Tag = `h${Math.min(6, 4 + Math.max(0, t.depth - top))}` as 'h4';
  return <Tag className={`md-h md-h${t.depth}`}>{renderInline(t.tokens)}</Tag>;
}

function Table({ t }: { t: Tokens.Table }) {
  const align = (a: Tokens.TableCell['align']) => (a ? `md-${a}` : undefined);
  return (
    // Wide tables scroll sideways inside the reply; the group takes focus so keys can scroll it.
    <div className="md-table" role="group" aria-label={`Table: ${t.header.map((c) => c.text).join(', ')}`} tabIndex={0}>
      <table>
        <thead>
          <tr>
            {t.header.map((c, i) => (
              <th key={i} scope="col" className={align(c.align)}>
                {renderInline(c.tokens)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {t.rows.map((row, r) => (
            <tr key={r}>
              {row.map((c, i) => (
                <td key={i} className={align(c.align)}>
                  {renderInline(c.tokens)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ListItem({ item, live }: { item: Tokens.ListItem; live: boolean }) {
  return <li className={item.task ? 'md-task' : undefined}>{renderBlocks(item.tokens, live)}</li>;
}

function List({ t, live }: { t: Tokens.List; live: boolean }) {
  const items = t.items.map((item, i) => <ListItem key={i} item={item} live={live && i === t.items.length - 1} />);
  if (!t.ordered) return <ul className={t.loose ? 'md-loose' : undefined}>{items}</ul>;
  return (
    <ol
      start={typeof t.start === 'number' && t.start !== 1 ? t.start : undefined}
      className={t.loose ? 'md-loose' : undefined}
    >
      {items}
    </ol>
  );
}

/** One block token; `live` is true for the last block of a reply still streaming. */
function renderBlock(t: Token, live: boolean): ReactNode {
  switch (t.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return <Paragraph tokens={t.tokens ?? []} live={live} />;
    case 'heading':
      return <Heading t={t as Tokens.Heading} />;
    case 'code':
      return <CodeBlock lang={(t as Tokens.Code).lang ?? ''} code={(t as Tokens.Code).text} complete={!live} />;
    case 'blockquote':
      return <blockquote>{renderBlocks(t.tokens ?? [], live)}</blockquote>;
    case 'list':
      return <List t={t as Tokens.List} live={live} />;
    case 'table':
      return <Table t={t as Tokens.Table} />;
    case 'hr':
      return <hr />;
    case 'checkbox':
      return (
        <input
          type="checkbox"
          checked={(t as Tokens.Checkbox).checked}
          disabled
          aria-label={(t as Tokens.Checkbox).checked ? 'Done' : 'Not done'}
        />
      );
    case 'text':
      // The text of a tight list item.
      return t.tokens ? renderInline(t.tokens) : t.raw;
    default:
      // An HTML block (or anything unknown): the characters as written.
      return <p className="md-html">{t.raw.trimEnd()}</p>;
  }
}

const Block = memo(
  function Block({ token, live }: { token: Token; live: boolean }) {
    return renderBlock(token, live);
  },
  // The same source renders the same: a block lexed again from unchanged text is not re-rendered.
  (a, b) =>
    a.live === b.live && (a.token === b.token || (a.token.type === b.token.type && a.token.raw === b.token.raw)),
);

function renderBlocks(tokens: readonly Token[], live: boolean): ReactNode[] {
  return tokens.map((t, i) => <Block key={i} token={t} live={live && i === tokens.length - 1} />);
}

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const growing = useRef<GrowingBlocks | null>(null);
  const blocks = useMemo(() => {
    if (!streaming) {
      growing.current = null;
      return lexAll(text);
    }
    growing.current = lexGrowing(growing.current, text);
    return growing.current.closed.concat(growing.current.open);
  }, [text, streaming]);
  let last = blocks.length - 1;
  while (last >= 0 && blocks[last]?.type === 'space') last--;
  let top = 6;
  for (const t of blocks) if (t.type === 'heading') top = Math.min(top, (t as Tokens.Heading).depth);
  return (
    <TopDepth value={top}>
      <div className="md">
        {blocks.map((t, i) => (
          <Block key={i} token={t} live={streaming && i === last} />
        ))}
      </div>
    </TopDepth>
  );
}
