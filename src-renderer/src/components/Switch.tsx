// A labelled on/off switch (a checkbox with role=switch), its state also said in words. A switch
// whose state is not known shows neither on nor off (the box is indeterminate) and says so in words
// (`unknown`, e.g. "unknown until changed here"); a click turns it on. Given the request that saves it, it is
// disabled, saying why, when the member's role on a team's hub does not allow it.
import { useEffect, useId, useRef } from 'react';
import type { RequestName } from '../../../src-shared/contract';
import { useGate } from './allowed';

export function Switch({
  label,
  checked,
  onChange,
  disabled,
  hint,
  unknown,
  request,
}: {
  label: string;
  checked: boolean;
  onChange: (next: boolean) => void;
  disabled?: boolean;
  hint?: string;
  /** The words for a state that is not known; the switch then shows neither on nor off. */
  unknown?: string;
  /** The request that saves it, for the member's role on a hub (useAllowed). */
  request?: RequestName;
}) {
  const gate = useGate(request ?? 'app.ping');
  const id = useId();
  const hintId = useId();
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = unknown !== undefined;
  }, [unknown]);
  return (
    <div className="switch">
      <input
        id={id}
        ref={box}
        type="checkbox"
        role="switch"
        checked={unknown === undefined ? checked : false}
        disabled={disabled || !gate.allowed}
        title={gate.props.title}
        aria-describedby={gate.describedBy(hint && hintId)}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>
        {label} <span className="muted">({unknown ?? (checked ? 'on' : 'off')})</span>
      </label>
      {hint && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {gate.hiddenNote}
    </div>
  );
}
