// The notices (toasts), in the sidebar under the navigation so they never cover the page: a bounded
// stack of compact notices (urgent first, then the newest; "+N more" for the rest), announced
// politely (role=status). Each title opens its page (a link) and each can be dismissed, with the
// keyboard too. A warning or urgent notice stays while its problem lasts: until it is dismissed or
// its incident's notice turns into its resolved state (in place); info and resolved notices leave
// on their own after a while, held while the pointer or focus is on them. A dismissed notice
// hands keyboard focus to the one that takes its place (else the region).
import { useEffect, useRef, useState } from 'react';
import { useKeepFocus } from '../router/focus';
import { useApp } from '../store/react';
import { noticeStack, type Notice } from '../store/notices';

const TONE_WORD: Record<Notice['tone'], string> = {
  info: 'Info',
  message: 'Message',
  success: 'Resolved',
  warning: 'Warning',
  urgent: 'Urgent',
};
const AUTO_DISMISS_MS = 12_000;
/** Notices that leave on their own; the others tell of a problem that lasts until it is resolved. */
const PASSING: ReadonlySet<Notice['tone']> = new Set(['info', 'message', 'success']);

function Toast({ n, onDismiss }: { n: Notice; onDismiss(): void }) {
  const dismiss = useApp((s) => s.dismissNotice);
  const navigate = useApp((s) => s.setRoute);
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (!PASSING.has(n.tone) || held) return;
    const t = setTimeout(() => dismiss(n.id), AUTO_DISMISS_MS);
    return () => clearTimeout(t);
  }, [n.id, n.tone, held, dismiss]);
  return (
    <li
      className={`toast toast-${n.tone}`}
      data-tone={n.tone}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <div className="toast-head">
        <p className="toast-title">
          <strong>{TONE_WORD[n.tone]}:</strong>{' '}
          {n.route ? (
            // Opening the notice's page also puts the notice away.
            <a
              href={n.route}
              onClick={(e) => {
                e.preventDefault();
                navigate(n.route!);
                dismiss(n.id);
              }}
            >
              {n.title}
            </a>
          ) : (
            n.title
          )}
        </p>
        <button
          type="button"
          className="toast-dismiss"
          onClick={() => {
            onDismiss();
            dismiss(n.id);
          }}
          aria-label={`Dismiss: ${n.title}`}
          title="Dismiss"
        >
          <span aria-hidden="true">×</span>
        </button>
      </div>
      {n.body && (
        <p className="muted toast-body" title={n.body}>
          {n.body}
        </p>
      )}
    </li>
  );
}

export function Toasts() {
  const notices = useApp((s) => s.notices);
  const dismissAll = useApp((s) => s.dismissAllNotices);
  const { shown, more } = noticeStack(notices);
  const region = useRef<HTMLDivElement>(null);
  // The place in the stack of the notice dismissed last: focus goes to the one shown there now.
  const dismissedAt = useRef(0);
  useKeepFocus(region, () => {
    const buttons = region.current?.querySelectorAll<HTMLElement>('.toast-dismiss') ?? [];
    return buttons[Math.min(dismissedAt.current, buttons.length - 1)] ?? region.current;
  });
  return (
    <div role="status" aria-live="polite" aria-label="Notifications" className="toasts" ref={region}>
      <ul>
        {shown.map((n, i) => (
          <Toast key={n.id} n={n} onDismiss={() => (dismissedAt.current = i)} />
        ))}
      </ul>
      {more > 0 && (
        <p className="toasts-more">
          <span>+{more} more</span>
          <button type="button" className="secondary small" onClick={dismissAll}>
            Dismiss all
          </button>
        </p>
      )}
    </div>
  );
}
