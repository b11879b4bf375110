// A question asked in place before something that cannot be undone: the question, the action, and
// the way back (and, where one is offered, another action beside them). The group is named by its
// question.
import type { ReactNode } from 'react';

export function ConfirmStep({
  id,
  className,
  question,
  confirm,
  cancel,
  busy,
  onConfirm,
  onCancel,
  more,
}: {
  /** The question's element id (names the group). */
  id: string;
  className: string;
  question: ReactNode;
  confirm: string;
  cancel: string;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
  /** Another choice, between the action and the way back. */
  more?: ReactNode;
}) {
  return (
    <div className={className} role="group" aria-labelledby={id}>
      <p id={id}>{question}</p>
      <div className="actions">
        <button type="button" className="danger small" onClick={onConfirm} disabled={busy}>
          {confirm}
        </button>
        {more}
        <button type="button" className="secondary small" onClick={onCancel}>
          {cancel}
        </button>
      </div>
    </div>
  );
}
