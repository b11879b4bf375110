// A checkbox whose change is saved at once (the plain checkbox beside Switch, which is a role=switch with its state in words): it follows the click while the save runs (and is
// disabled meanwhile), goes back when the save is refused, and shows why under its hint.
import { useId, useState, type ReactNode } from 'react';
import type { ErrorDTO } from '../../../src-shared/contract';
import type { RequestName } from '../../../src-shared/contract';
import { useGate } from './allowed';
import { ErrorNotice } from './ErrorNotice';

export function SavedCheckbox({
  label,
  saved,
  save,
  hint,
  request,
}: {
  label: string;
  /** The value as saved. */
  saved: boolean;
  /** Saves the new value; answers the error, or null. */
  save: (next: boolean) => Promise<ErrorDTO | null>;
  /** The words under the switch, for the value it shows. */
  hint: (on: boolean) => ReactNode;
  /** The request that saves it, for the member's role on a hub (useAllowed): disabled, saying why, when not allowed. */
  request?: RequestName;
}) {
  const gate = useGate(request ?? 'app.ping');
  const [asked, setAsked] = useState<boolean | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const id = useId();
  const on = asked ?? saved;
  const toggle = async (next: boolean) => {
    setAsked(next);
    setError(await save(next));
    setAsked(null);
  };
  return (
    <>
      <label htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={on}
          disabled={asked !== null || !gate.allowed}
          onChange={(e) => void toggle(e.target.checked)}
          title={gate.props.title}
          aria-describedby={gate.describedBy(`${id}-hint`)}
        />{' '}
        {label}
      </label>
      <p id={`${id}-hint`} className="hint">
        {hint(on)}
      </p>
      {gate.hiddenNote}
      {error && <ErrorNotice error={error} />}
    </>
  );
}
