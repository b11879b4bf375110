// An error, said plainly: what happened and what to do. Text only; the code rides along as a data
// attribute for support, never in the words.
import type { ErrorDTO } from '../../../src-shared/contract';
import { describeError, type ErrorContext } from './errors';

/** `context`: 'adding' where the error answers adding a team or an agent (see ErrorContext). */
export function ErrorNotice({
  error,
  id,
  onDismiss,
  context,
}: {
  error: ErrorDTO;
  id?: string;
  onDismiss?: () => void;
  context?: ErrorContext;
}) {
  const { what, todo } = describeError(error, context);
  return (
    <div role="alert" id={id} className="notice notice-error" data-code={error.code}>
      <p>
        <strong>
          <span aria-hidden="true">⚠ </span>
          {what}
        </strong>{' '}
        {todo}
      </p>
      {onDismiss && (
        <button type="button" className="secondary small" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
