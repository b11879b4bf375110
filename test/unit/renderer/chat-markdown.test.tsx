// @vitest-environment jsdom
// Agent replies as GitHub-flavoured markdown: what renders, what stays text (HTML, unsafe links,
// images), code blocks (highlighting, Copy), and streaming: a growing reply keeps its closed blocks
// (same token objects, so they are not re-rendered) and ends exactly as the whole text lexed at once.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import fc from 'fast-check';
import type { Token } from 'marked';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lexAll, lexGrowing, type GrowingBlocks } from '../../../src-renderer/src/features/chat/markdown/blocks';
import { decodeEntities } from '../../../src-renderer/src/features/chat/markdown/inline';
import { Markdown } from '../../../src-renderer/src/features/chat/markdown/Markdown';

afterEach(cleanup);

const md = (text: string, streaming = false) => render(<Markdown text={text} streaming={streaming} />).container;

describe('markdown rendering', () => {
  it('renders headings under the page headings, quotes, lists, task lists, tables, rules and inline marks', () => {
    const c = md(
      [
        '# Title',
        '## Part',
        '> quoted **bold**',
        '- one',
        '- two',
        '',
        '3. three',
        '4. four',
        '',
        '- [x] done task',
        '- [ ] open task',
        '',
        '| Left | Mid | Right |',
        '|:-----|:---:|------:|',
        '| a | `b` | ~~c~~ |',
        '',
        '***',
        '',
        '*em*, www.example.com and line  ',
        'break',
      ].join('\n'),
    );
    expect(c.querySelector('h4')?.textContent).toBe('Title');
    expect(c.querySelector('h5')?.textContent).toBe('Part');
    expect(c.querySelector('h1, h2, h3')).toBeNull();
    expect(c.querySelector('blockquote strong')?.textContent).toBe('bold');
    expect([...c.querySelectorAll('ul:not(:has(.md-task)) > li')].map((li) => li.textContent)).toEqual(['one', 'two']);
    expect(c.querySelector('ol')?.getAttribute('start')).toBe('3');
    const tasks = [...c.querySelectorAll('li.md-task')];
    expect(tasks.map((li) => li.textContent)).toEqual(['done task', 'open task']);
    expect(tasks.map((li) => (li.querySelector('input[type="checkbox"]') as HTMLInputElement).checked)).toEqual([
      true,
      false,
    ]);
    expect(tasks.every((li) => (li.querySelector('input') as HTMLInputElement).disabled)).toBe(true);
    expect(screen.getByRole('checkbox', { name: 'Done' })).toBeTruthy();
    const table = screen.getByRole('group', { name: 'Table: Left, Mid, Right' }).querySelector('table')!;
    expect([...table.querySelectorAll('th')].map((th) => [th.textContent, th.className])).toEqual([
      ['Left', 'md-left'],
      ['Mid', 'md-center'],
      ['Right', 'md-right'],
    ]);
    expect(table.querySelector('td code')?.textContent).toBe('b');
    expect(table.querySelector('td del')?.textContent).toBe('c');
    expect(c.querySelector('hr')).not.toBeNull();
    expect(c.querySelector('em')?.textContent).toBe('em');
    expect(c.querySelector('a')?.getAttribute('href')).toBe('http://www.example.com/');
    expect(c.querySelector('p br')).not.toBeNull();
  });

  it("starts a reply's headings at h4 (under the conversation's h3), whatever level it starts at", () => {
    const c = md('### Top\n\n#### Sub\n\n###### Deep');
    expect([...c.querySelectorAll('h4, h5, h6')].map((h) => `${h.tagName} ${h.textContent}`)).toEqual([
      'H4 Top',
      'H5 Sub',
      'H6 Deep',
    ]);
  });

  it('keeps HTML as text, follows only http(s) links (outside the app) and never loads an image', () => {
    const c = md(
      '<img src=x onerror=alert(1)>\n\n<div onclick="x()">block</div>\n\n[click](javascript:alert(1)) [data](data:text/html,hi) [rel](/etc/passwd) [ok](https://example.test/a "T") ![pic](https://example.test/p.png) &amp; &lt;b&gt; &#x1F600; &bogus;',
    );
    expect(c.querySelector('img, div[onclick], script')).toBeNull();
    expect(c.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(c.textContent).toContain('<div onclick="x()">block</div>');
    const links = [...c.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.test/a', 'https://example.test/p.png']);
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')).toBe('noopener noreferrer');
    }
    expect(links[0]?.getAttribute('title')).toBe('T');
    expect(links[1]?.textContent).toBe('Image: pic');
    // Links that are not followed show as written.
    expect(c.textContent).toContain('[click](javascript:alert(1)) [data](data:text/html,hi) [rel](/etc/passwd) ok');
    expect(c.textContent).toContain('& <b> 😀 &bogus;');
  });

  it('decodes character references and leaves unknown ones as written', () => {
    expect(decodeEntities('a &amp; b &copy; &#65;&#x42; &#0; &nope; &amp')).toBe('a & b © AB \uFFFD &nope; &amp');
  });

  it('cuts long text into text nodes of at most 1,024 characters, never inside a surrogate pair, and keeps it exact', () => {
    const PIECE = 1024;
    const text = `${'a'.repeat(PIECE - 1)}😀${'b'.repeat(2000)} and **bold** then ${'c'.repeat(1500)}`;
    const c = md(text);
    expect(c.textContent).toBe(text.replace('**bold**', 'bold'));
    const p = c.querySelector('p')!;
    const nodes = [...p.childNodes].filter((n): n is Text => n.nodeType === Node.TEXT_NODE).map((n) => n.data);
    // The paragraph's own text nodes (the bold word is inside <strong>).
    expect(nodes.join('')).toBe(text.replace('**bold**', ''));
    expect(nodes.length).toBeGreaterThan(3);
    for (const piece of nodes) {
      expect(piece.length).toBeLessThanOrEqual(PIECE + 1);
      const last = piece.charCodeAt(piece.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff, 'no piece ends inside a surrogate pair').toBe(false);
    }
    // The first piece ends after the emoji: one more character than a piece, not half a pair.
    expect(nodes[0]).toBe(`${'a'.repeat(PIECE - 1)}😀`);
  });
});

describe('code blocks', () => {
  it('show their language and a Copy button that copies the code', async () => {
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    try {
      md('```ts\nconst a: number = 1; // <b>\n```\n\n```\nplain\n```');
      expect(screen.getByText('ts')).toBeTruthy();
      fireEvent.click(screen.getByRole('button', { name: 'Copy ts code' }));
      await act(async () => undefined);
      expect(writeText).toHaveBeenCalledWith('const a: number = 1; // <b>');
      expect(screen.getByRole('button', { name: 'Copy ts code' }).textContent).toBe('Copied');
      fireEvent.click(screen.getByRole('button', { name: 'Copy code' }));
      expect(writeText).toHaveBeenLastCalledWith('plain');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('are highlighted (spans, no markup from the code) once complete; a block still streaming stays plain', async () => {
    const code = 'const x = "<b>hi</b>"; // note';
    const done = md(`\`\`\`js\n${code}\n\`\`\``);
    await vi.waitFor(() => expect(done.querySelector('pre[data-highlighted="true"]')).not.toBeNull());
    const pre = done.querySelector('pre')!;
    expect(pre.textContent).toBe(code);
    expect(pre.querySelector('.hljs-keyword')?.textContent).toBe('const');
    expect(pre.querySelector('.hljs-string')?.textContent).toBe('"<b>hi</b>"');
    expect(pre.querySelector('.hljs-comment')?.textContent).toBe('// note');
    expect(pre.querySelector('b')).toBeNull();
    cleanup();
    const live = md(`\`\`\`js\n${code}`, true);
    expect(live.querySelector('pre')?.textContent).toBe(code);
    expect(live.querySelector('pre [class]')).toBeNull();
    // An unknown language is shown plain.
    cleanup();
    const unknown = md('```brainfuck\n+++.\n```');
    expect(unknown.querySelector('pre')?.textContent).toBe('+++.');
    expect(unknown.querySelector('pre [class]')).toBeNull();
  });
});

/** Adjacent plain text tokens as one (they render as the same text). */
const inner = (t: Token): Token[] | undefined => ('tokens' in t ? (t.tokens as Token[] | undefined) : undefined);

function mergeText(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    const prev = out.at(-1);
    if (t.type === 'text' && !inner(t) && prev?.type === 'text' && !inner(prev))
      out[out.length - 1] = { ...prev, raw: prev.raw + t.raw, text: `${prev.text as string}${t.text as string}` };
    else out.push(inner(t) ? ({ ...t, tokens: mergeText(inner(t) ?? []) } as Token) : t);
  }
  return out;
}

/** Tokens as structure (raw texts left out: a closed block's raw keeps its trailing blank line). */
const shape = (tokens: Token[]) =>
  JSON.stringify(mergeText(tokens.filter((t) => t.type !== 'space')), (k, v) => (k === 'raw' ? undefined : v));

function stream(chunks: string[]): { blocks: GrowingBlocks; states: GrowingBlocks[] } {
  let blocks: GrowingBlocks | null = null;
  const states: GrowingBlocks[] = [];
  let text = '';
  for (const c of chunks) {
    text += c;
    blocks = lexGrowing(blocks, text);
    states.push(blocks);
  }
  return { blocks: blocks ?? lexGrowing(null, ''), states };
}

describe('streaming', () => {
  const FRAGMENTS = [
    'word',
    ' ',
    'plain words of a sentence',
    '1986',
    '. ',
    '.',
    'x@y',
    '.com',
    'www',
    'http',
    '://',
    '[label]',
    ': /u',
    '-',
    '--',
    '=',
    '\n',
    '\n\n',
    '**',
    '*',
    '_',
    '`',
    '```',
    '```js\n',
    '~~',
    '# ',
    '## ',
    '- ',
    '* ',
    '1. ',
    '> ',
    '| a | b |',
    '\n|---|---|',
    '\n| 1 | 2 |',
    '- [ ] ',
    '- [x] ',
    '    ',
    '---',
    '===',
    '[l](https://e.test)',
    'http://e.test',
    '<b>',
    '&amp;',
    '\\*',
    '  \n',
  ];

  it('any split of any reply ends with the same blocks as the whole text lexed at once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 10 }),
        (parts, sizes) => {
          const text = parts.join('');
          const chunks: string[] = [];
          for (let at = 0, i = 0; at < text.length; i++) {
            const n = sizes[i % sizes.length]!;
            chunks.push(text.slice(at, at + n));
            at += n;
          }
          const { blocks } = stream(chunks);
          expect(shape(blocks.closed.concat(blocks.open))).toBe(shape(lexAll(text)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('plain words streamed into a paragraph render exactly as the whole text does (with and without lexing)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
        (parts, sizes) => {
          const text = parts.join('');
          const { container, rerender } = render(<Markdown text="" streaming />);
          for (let at = 0, i = 0; at < text.length; i++) {
            at += sizes[i % sizes.length]!;
            rerender(<Markdown text={text.slice(0, at)} streaming />);
          }
          const streamed = container.innerHTML;
          cleanup();
          const whole = md(text, true).innerHTML;
          // The same nodes and attributes; the order React set an attribute in (a button disabled later) is not content.
          const tree = (html: string) => Object.assign(document.createElement('div'), { innerHTML: html });
          expect(tree(streamed).isEqualNode(tree(whole)), `${streamed}\n  is not\n${whole}`).toBe(true);
          cleanup();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('plain words appended to a long paragraph line are not lexed again', () => {
    const start = lexGrowing(null, 'Intro.\n\nA paragraph that is long enough');
    const next = lexGrowing(start, 'Intro.\n\nA paragraph that is long enough to settle, 42 = 6 x 7.');
    expect(next.open.at(-1)).toMatchObject({
      type: 'paragraph',
      text: 'A paragraph that is long enough to settle, 42 = 6 x 7.',
    });
    expect(next.open.slice(0, -1)).toEqual(start.open.slice(0, -1));
    expect(next.open[0]).toBe(start.open[0]); // not lexed again: the same token object
    // Text that could start markup is lexed.
    const marked = lexGrowing(next, `${next.source} and **bold**`);
    expect(marked.open[0]).not.toBe(start.open[0]);
    expect(JSON.stringify(marked.open.at(-1))).toContain('"type":"strong"');
  });

  it('closed blocks keep their token objects; each update lexes only the last blocks', () => {
    const paras = Array.from({ length: 50 }, (_, i) => `Paragraph ${i} with **bold** text.\n\n`);
    const { states } = stream(paras.concat(['The last one, still ', 'growing']));
    const end = states.at(-1)!;
    expect(end.closed.length).toBeGreaterThanOrEqual(96);
    // What is lexed again on the next update: the last blocks only, not the reply.
    expect(end.source.length - end.closedLength).toBeLessThan(100);
    expect(end.open.at(-1)).toMatchObject({ type: 'paragraph', text: 'The last one, still growing' });
    // The first paragraph is the same object from the update that closed it to the end.
    const from = states.findIndex((s) => s.closed.length > 0);
    const first = states[from]!.closed[0];
    expect(first).toMatchObject({ type: 'paragraph', text: 'Paragraph 0 with **bold** text.' });
    for (const s of states.slice(from)) expect(s.closed[0]).toBe(first);
  });

  it('shows a partial table and a partial fence sanely while they stream', () => {
    const table = md('| a | b |\n|--', true);
    expect(table.querySelector('table')).toBeNull();
    expect(table.textContent).toContain('| a | b |');
    cleanup();
    const grown = md('| a | b |\n|---|---|\n| 1 |', true);
    expect([...grown.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1', '']);
    cleanup();
    const fence = md('Look:\n\n```py\nprint(1)\nprint(', true);
    expect(fence.querySelector('pre')?.textContent).toBe('print(1)\nprint(');
    expect(fence.querySelector('p')?.textContent).toBe('Look:');
  });

  it('a reply that is replaced (not appended to) starts over', () => {
    const a = lexGrowing(null, 'first\n\nsecond');
    const b = lexGrowing(a, 'other\n\ntext');
    expect(shape(b.closed.concat(b.open))).toBe(shape(lexAll('other\n\ntext')));
  });
});
