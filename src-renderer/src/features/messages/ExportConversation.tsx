// Export in the open thread's title: the whole conversation as JSON lines, CSV or plain text
// (messages.export), saved as a file the way the window saves any (a download; the desktop app asks
// where).
import { useRef, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { downloadText } from '../../components/download';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

const FORMATS = [
  { format: 'jsonl', label: 'JSON lines (.jsonl)' },
  { format: 'csv', label: 'CSV (.csv)' },
  { format: 'text', label: 'Plain text (.txt)' },
] as const;

export function ExportConversation({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const exportThread = useApp((s) => s.exportThread);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);
  const save = async (format: (typeof FORMATS)[number]['format']) => {
    if (menu.current) menu.current.open = false;
    setBusy(true);
    const r = await exportThread(teamId, agentId, contact, format);
    setBusy(false);
    if (r.ok) downloadText(r.value.filename, r.value.content, r.value.mimeType);
    setError(r.ok ? null : r.error);
  };
  return (
    <>
      <details className="messages-more messages-export" ref={menu}>
        <summary aria-label={`Export the conversation with ${contact}`}>Export</summary>
        <div className="messages-more-menu" role="group" aria-label="Export as">
          {FORMATS.map((f) => (
            <button
              key={f.format}
              type="button"
              className="secondary small"
              disabled={busy}
              onClick={() => void save(f.format)}
            >
              {f.label}
            </button>
          ))}
        </div>
      </details>
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </>
  );
}
