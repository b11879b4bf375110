// A delivery body as a collapsible JSON tree (nested <details>, so it is keyboard-reachable as is),
// or the raw text. The tree is drawn from JSON.parse; a body that is not JSON shows raw with a note.
import { useState, type ReactNode } from 'react';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const OPEN_DEPTH = 3;

function scalar(v: null | boolean | number | string): ReactNode {
  if (v === null) return <span className="j-null">null</span>;
  if (typeof v === 'string') return <span className="j-str">{JSON.stringify(v)}</span>;
  if (typeof v === 'number') return <span className="j-num">{String(v)}</span>;
  return <span className="j-bool">{String(v)}</span>;
}

function Node({ name, value, depth }: { name: string | null; value: Json; depth: number }) {
  const key = name !== null ? <span className="j-key">{name}: </span> : null;
  if (value === null || typeof value !== 'object') {
    return (
      <li>
        {key}
        {scalar(value)}
      </li>
    );
  }
  const entries: [string, Json][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const shape = Array.isArray(value)
    ? `[ ${entries.length} ${entries.length === 1 ? 'item' : 'items'} ]`
    : `{ ${entries.length} ${entries.length === 1 ? 'key' : 'keys'} }`;
  if (entries.length === 0) {
    return (
      <li>
        {key}
        <span className="muted">{Array.isArray(value) ? '[]' : '{}'}</span>
      </li>
    );
  }
  return (
    <li>
      <details open={depth < OPEN_DEPTH}>
        <summary>
          {key}
          <span className="muted">{shape}</span>
        </summary>
        <ul className="json-tree">
          {entries.map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

function parse(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) as Json };
  } catch {
    return { ok: false };
  }
}

export function BodyView({ raw, label }: { raw: string; label: string }) {
  const parsed = parse(raw);
  const [view, setView] = useState<'tree' | 'raw'>('tree');
  const showTree = parsed.ok && view === 'tree';
  return (
    <div className="body-view">
      <div className="segmented" role="group" aria-label={`${label}: view`}>
        <button
          type="button"
          className="secondary small"
          aria-pressed={showTree}
          disabled={!parsed.ok}
          onClick={() => setView('tree')}
        >
          Tree
        </button>
        <button type="button" className="secondary small" aria-pressed={!showTree} onClick={() => setView('raw')}>
          Raw
        </button>
        {!parsed.ok && <span className="muted">Not JSON: shown as received.</span>}
      </div>
      {showTree ? (
        <ul className="json-tree json-root" aria-label={label}>
          <Node name={null} value={parsed.value} depth={0} />
        </ul>
      ) : (
        <pre className="raw" tabIndex={0} aria-label={label}>
          {raw}
        </pre>
      )}
    </div>
  );
}
