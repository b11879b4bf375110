// A labelled on/off switch (a checkbox with role=switch), its state also said in words. A switch
// whose state is not known shows neither on nor off (the box is indeterminate) and says so in words
// (`unknown`, e.g. "unknown until changed here"); a click turns it on.
import { useEffect, useId, useRef } from 'react';

export function Switch({
  label,
  checked,
  onChange,
  disabled,
  hint,
  unknown,
}: {
  label: string;
  checked: boolean;
  onChange: (next: boolean) => void;
  disabled?: boolean;
  hint?: string;
  /** The words for a state that is not known; the switch then shows neither on nor off. */
  unknown?: string;
}) {
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
        disabled={disabled}
        aria-describedby={hint ? hintId : undefined}
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
    </div>
  );
}
