// An error, said plainly: what happened, what to do, and the code for support. Text only.
import type { ErrorDTO } from '../../../src-shared/contract';
import { describeError } from './errors';

export function ErrorNotice({ error, id, onDismiss }: { error: ErrorDTO; id?: string; onDismiss?: () => void }) {
  const { what, todo } = describeError(error);
  return (
    <div role="alert" id={id} className="notice notice-error">
      <p>
        <strong>
          <span aria-hidden="true">⚠ </span>
          {what}
        </strong>{' '}
        {todo}{' '}
        <span className="muted">({error.code})</span>
      </p>
      {onDismiss && (
        <button type="button" className="secondary small" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
