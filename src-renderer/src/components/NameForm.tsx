// A local name being edited inline: the field, Save and Cancel, a hint under them; Escape cancels
// (without reaching the screen's own Escape). Chat conversations and Messages contacts use it.
import type { FormEvent } from 'react';

interface Props {
  /** The input's id; the hint's is `${id}-hint`. */
  id: string;
  className: string;
  label: string;
  value: string;
  maxLength: number;
  hint: string;
  busy?: boolean;
  onChange(value: string): void;
  onSubmit(e: FormEvent): void;
  onCancel(): void;
}

export function NameForm({
  id,
  className,
  label,
  value,
  maxLength,
  hint,
  busy = false,
  onChange,
  onSubmit,
  onCancel,
}: Props) {
  return (
    <form
      className={className}
      onSubmit={onSubmit}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        onCancel();
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        maxLength={maxLength}
        onChange={(e) => onChange(e.target.value)}
        autoFocus
        aria-describedby={`${id}-hint`}
      />
      <button type="submit" className="small" disabled={busy}>
        Save name
      </button>
      <button type="button" className="secondary small" onClick={onCancel}>
        Cancel
      </button>
      <span id={`${id}-hint`} className="hint">
        {hint}
      </span>
    </form>
  );
}
