// The toast region: in-app notices announced politely (role=status). Each can be opened or
// dismissed with the keyboard; non-urgent ones leave on their own after a while.
import { useEffect } from 'react';
import { useApp } from '../store/react';
import type { Notice } from '../store/notices';

const TONE_WORD: Record<Notice['tone'], string> = { info: 'Info', success: 'Resolved', warning: 'Warning', urgent: 'Urgent' };
const AUTO_DISMISS_MS = 12_000;

function Toast({ n }: { n: Notice }) {
  const dismiss = useApp((s) => s.dismissNotice);
  const navigate = useApp((s) => s.setRoute);
  useEffect(() => {
    if (n.tone === 'urgent') return;
    const t = setTimeout(() => dismiss(n.id), AUTO_DISMISS_MS);
    return () => clearTimeout(t);
  }, [n.id, n.tone, dismiss]);
  return (
    <li className={`toast toast-${n.tone}`}>
      <p>
        <strong>{TONE_WORD[n.tone]}:</strong> {n.title}
      </p>
      {n.body && <p className="muted">{n.body}</p>}
      <div className="actions">
        {n.route && (
          <button
            type="button"
            className="secondary small"
            onClick={() => {
              navigate(n.route!);
              dismiss(n.id);
            }}
          >
            Open
          </button>
        )}
        <button type="button" className="secondary small" onClick={() => dismiss(n.id)} aria-label={`Dismiss: ${n.title}`}>
          Dismiss
        </button>
      </div>
    </li>
  );
}

export function Toasts() {
  const notices = useApp((s) => s.notices);
  return (
    <div role="status" aria-live="polite" aria-label="Notifications" className="toasts">
      <ul>
        {notices.map((n) => (
          <Toast key={n.id} n={n} />
        ))}
      </ul>
    </div>
  );
}
