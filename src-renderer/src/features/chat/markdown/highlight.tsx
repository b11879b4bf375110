// Syntax highlighting for fenced code (its own chunk, loaded on first use): highlight.js grammars
// through lowlight, which returns a syntax tree instead of HTML, rendered here as React spans (so no
// markup string ever reaches the page). A few common languages; anything else stays plain.
import type { ReactNode } from 'react';
import { createLowlight } from 'lowlight';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const lowlight = createLowlight({
  bash,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
});
lowlight.registerAlias({ bash: ['shell', 'console'], json: ['jsonc'] });

type Root = ReturnType<typeof lowlight.highlight>;
type Element = Extract<Root['children'][number], { type: 'element' }>;
type Node = Root['children'][number] | Element['children'][number];

function toReact(nodes: readonly Node[]): ReactNode[] {
  return nodes.map((n, i) => {
    if (n.type === 'text') return n.value;
    if (n.type !== 'element') return null;
    const cls = n.properties?.className;
    return (
      <span key={i} className={Array.isArray(cls) ? cls.join(' ') : undefined}>
        {toReact(n.children)}
      </span>
    );
  });
}

/** `code` in `lang` as highlighted React nodes, or null when the language is not known here. */
export function highlight(lang: string, code: string): ReactNode[] | null {
  const name = lang.trim().toLowerCase();
  if (!name || !lowlight.registered(name)) return null;
  try {
    return toReact(lowlight.highlight(name, code).children);
  } catch {
    return null;
  }
}
