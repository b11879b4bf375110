// A Copy button: writes `text` to the clipboard and says what happened beside it for a moment
// ("Copied", or why not) in a status region screen readers announce.
import { useEffect, useState } from 'react';

const SAID_MS = 2000;

export function CopyButton({ text, label }: { text: string; label?: string }) {
  const [said, setSaid] = useState<{ ok: boolean; words: string } | null>(null);
  useEffect(() => {
    if (!said) return;
    const t = setTimeout(() => setSaid(null), SAID_MS);
    return () => clearTimeout(t);
  }, [said]);
  const copy = () => {
    if (!navigator.clipboard) return setSaid({ ok: false, words: 'Copy is not available here' });
    navigator.clipboard.writeText(text).then(
      () => setSaid({ ok: true, words: 'Copied' }),
      () => setSaid({ ok: false, words: 'Copy failed' }),
    );
  };
  return (
    <span className="copy">
      <button type="button" className="secondary small" onClick={copy} disabled={text === ''} aria-label={label}>
        {said?.ok ? 'Copied' : 'Copy'}
      </button>
      <span role="status" className={said && !said.ok ? 'copy-said' : 'sr-only'}>
        {said?.words ?? ''}
      </span>
    </span>
  );
}
