// A fenced (or indented) code block: its language, a Copy button, and the code, highlighted once
// the block is complete (the highlighter is its own chunk, asked for as soon as a block shows).
// While a block still streams it shows plain, in the same font and colours as unhighlighted code.
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { CopyButton } from '../CopyButton';

type Highlighter = (lang: string, code: string) => ReactNode[] | null;

let loaded: Highlighter | null = null;
let loading: Promise<Highlighter | null> | null = null;

function loadHighlighter(): Promise<Highlighter | null> {
  loading ??= import('./highlight').then(
    (m) => (loaded = m.highlight),
    // Not loaded (e.g. the chunk is missing): code stays plain.
    () => null,
  );
  return loading;
}

function useHighlighter(): Highlighter | null {
  const [hl, setHl] = useState<Highlighter | null>(() => loaded);
  useEffect(() => {
    if (hl) return;
    let live = true;
    void loadHighlighter().then((h) => live && h && setHl(() => h));
    return () => {
      live = false;
    };
  }, [hl]);
  return hl;
}

export function CodeBlock({ lang, code, complete }: { lang: string; code: string; complete: boolean }) {
  const hl = useHighlighter();
  const name = lang.trim().split(/\s+/)[0] ?? '';
  const highlighted = useMemo(() => (complete && hl ? hl(name, code) : null), [complete, hl, name, code]);
  return (
    <div className="md-code">
      <div className="md-code-bar">
        <span className="md-code-lang">{name || 'code'}</span>
        <CopyButton text={code} label={name ? `Copy ${name} code` : 'Copy code'} />
      </div>
      <pre tabIndex={0} data-highlighted={highlighted ? 'true' : undefined}>
        <code>{highlighted ?? code}</code>
      </pre>
    </div>
  );
}
