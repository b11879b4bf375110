// The notices (toasts), in the sidebar under the navigation so they never cover the page: a bounded
// stack of compact notices, shown whole (urgent first, then the newest; new messages of several
// conversations as one; "+N more" for the rest, "Dismiss all" from two), announced politely
// (role=status). Each title opens its page (a link) and each can be dismissed, with the keyboard
// too. Every notice leaves on its own, held while the pointer or focus is on it: info, messages and
// resolved ones after 12 s; a warning or urgent one after 2 min (its incident stays on the Alerts
// screen and in the sidebar's count), sooner when its incident's notice turns into its resolved state
// (in place). A dismissed notice hands keyboard focus to the one that takes its place (else the region).
import { useCallback, useEffect, useRef, useState } from 'react';
import { SEVERITY_WORDS } from '../../../src-shared/words';
import { useKeepFocus } from '../router/focus';
import { useApp } from '../store/react';
import { noticeStack, type Notice } from '../store/notices';

/** An incident's notice says its severity in the words of the Alerts screen and the command line. */
const TONE_WORD: Record<Notice['tone'], string> = {
  info: SEVERITY_WORDS.info,
  message: 'Message',
  success: 'Resolved',
  warning: SEVERITY_WORDS.warning,
  urgent: SEVERITY_WORDS.urgent,
};
const AUTO_DISMISS_MS = 12_000;
/** How long a notice of a problem (warning, urgent) stays: the Alerts screen keeps the incident. */
const LASTING_MS = 120_000;
/** Notices that pass quickly; the others tell of a problem and stay longer. */
const PASSING: ReadonlySet<Notice['tone']> = new Set(['info', 'message', 'success']);

function Toast({ n, onDismiss }: { n: Notice; onDismiss(): void }) {
  const dismissOne = useApp((s) => s.dismissNotice);
  const dismissMany = useApp((s) => s.dismissNotices);
  const navigate = useApp((s) => s.setRoute);
  const [held, setHeld] = useState(false);
  const members = n.members;
  const dismiss = useCallback(
    () => (members ? dismissMany(members) : dismissOne(n.id)),
    [members, n.id, dismissMany, dismissOne],
  );
  useEffect(() => {
    if (held) return;
    const t = setTimeout(dismiss, PASSING.has(n.tone) ? AUTO_DISMISS_MS : LASTING_MS);
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
                dismiss();
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
            dismiss();
          }}
          aria-label={`Dismiss: ${n.title}`}
          title="Dismiss"
        >
          <span aria-hidden="true">×</span>
        </button>
      </div>
      {n.body && <p className="muted toast-body">{n.body}</p>}
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
      {shown.length + more > 1 && (
        <p className="toasts-more">
          <span>{more > 0 ? `+${more} more` : ''}</span>
          <button type="button" className="secondary small" onClick={dismissAll}>
            Dismiss all
          </button>
        </p>
      )}
    </div>
  );
}
