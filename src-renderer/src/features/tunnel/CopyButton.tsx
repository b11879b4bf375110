// Copies a text (a URL) to the clipboard and says so: "Copied" on the button for a moment, and to
// screen readers through a status line. Where the clipboard is not available it says that instead.
import { useEffect, useState } from 'react';
import { copyText } from '../../components/download';

export function CopyButton({ text, what }: { text: string; what: string }) {
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    if (!said) return;
    const t = setTimeout(() => setSaid(null), 2500);
    return () => clearTimeout(t);
  }, [said]);
  return (
    <>
      <button
        type="button"
        className="secondary small copy"
        aria-label={`Copy ${what}`}
        onClick={async () =>
          setSaid(
            (await copyText(text))
              ? `Copied ${what}.`
              : `Copying is not available here; select the text to copy ${what}.`,
          )
        }
      >
        {said?.startsWith('Copied') ? 'Copied' : 'Copy'}
      </button>
      <span role="status" className="sr-only">
        {said ?? ''}
      </span>
    </>
  );
}
