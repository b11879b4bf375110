// One numeric setting with its own Save: checked here first (whole number in range), then by the
// main process (through `save`); what was typed stays on error.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { ErrorDTO, RequestName } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';

export function checkWhole(text: string, min: number, max: number, label: string): string | null {
  if (!/^\d+$/.test(text.trim())) return `${label} must be a whole number.`;
  const n = Number(text);
  if (n < min || n > max) return `${label} must be between ${min} and ${max}.`;
  return null;
}

export function NumberSetting({
  label,
  hint,
  field,
  value,
  min,
  max,
  save,
  request,
}: {
  label: string;
  hint?: string;
  field: string;
  value: number;
  min: number;
  max: number;
  /** Saves the number; answers the error, or null. */
  save: (v: number) => Promise<ErrorDTO | null>;
  /** The request that saves it, for the member's role on a hub (useAllowed). */
  request: RequestName;
}) {
  const gate = useGate(request);
  const [text, setText] = useState(String(value));
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const ids = { input: useId(), hint: useId(), err: useId() };
  useEffect(() => {
    if (!dirty) setText(String(value));
  }, [value, dirty]);
  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!gate.allowed) return;
    const bad = checkWhole(text, min, max, label);
    if (bad) {
      setError({ kind: 'validation', code: 'INVALID_NUMBER', message: bad, field });
      return;
    }
    setBusy(true);
    const e = await save(Number(text));
    setBusy(false);
    setError(e);
    if (!e) {
      setDirty(false);
      setSaved(true);
    }
  };
  const describedBy = gate.describedBy(hint && ids.hint, error && ids.err);
  return (
    <form className="form inline-form" onSubmit={(e) => void onSubmit(e)} aria-busy={busy}>
      <label htmlFor={ids.input}>{label}</label>
      <input
        id={ids.input}
        inputMode="numeric"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setDirty(true);
          setSaved(false);
        }}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
      {hint && (
        <p id={ids.hint} className="hint">
          {hint}
        </p>
      )}
      {error && <ErrorNotice id={ids.err} error={error} />}
      <div className="actions">
        <button
          type="submit"
          disabled={busy || !gate.allowed}
          aria-label={`${busy ? 'Saving' : 'Save'} ${label}`}
          {...gate.props}
        >
          {busy ? 'Saving…' : 'Save'}
        </button>
        {saved && <span role="status">Saved.</span>}
      </div>
      {gate.hiddenNote}
    </form>
  );
}
