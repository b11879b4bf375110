// One URL app setting with Save and Remove (the alert webhook, the Alertmanager): checked here first
// (http(s), no user or password), then by the main process; what was typed stays on error.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { AppSettingsPatchDTO, ErrorDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

function urlProblem(s: string, label: string, example: string): string | null {
  const text = s.trim();
  if (!text) return null;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return `That is not a full URL; it looks like ${example}.`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `The ${label} must start with http:// or https://.`;
  if (u.username || u.password) return `The ${label} must not contain a user name or password.`;
  return null;
}

export interface UrlSettingProps {
  /** The input's label, e.g. "Alert webhook URL". */
  label: string;
  /** The setting's name in settings.update (the field an error names). */
  field: 'alertWebhookUrl' | 'alertmanagerUrl';
  value: string | null;
  placeholder: string;
  hint: string;
  /** The noun on the buttons: "Save webhook", "Remove webhook". */
  noun: string;
  /** What is said once saved, and once removed. */
  savedNote: string;
  removedNote: string;
  /** Something to know about the setting now (e.g. another app posts it), or null. */
  notice?: string | null;
}

export function UrlSetting({
  label,
  field,
  value,
  placeholder,
  hint,
  noun,
  savedNote,
  removedNote,
  notice = null,
}: UrlSettingProps) {
  const update = useApp((s) => s.updateSettings);
  const uid = useId();
  const [url, setUrl] = useState(value ?? '');
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const gate = useGate('settings.update');
  useEffect(() => {
    if (!dirty) setUrl(value ?? '');
  }, [value, dirty]);
  const problem = urlProblem(url, label, placeholder);
  const apply = async (next: string | null) => {
    setBusy(true);
    const patch: AppSettingsPatchDTO = { [field]: next };
    const e = await update(patch);
    setBusy(false);
    setError(e);
    if (!e) {
      setDirty(false);
      setNote(next ? savedNote : removedNote);
    } else setNote(null);
  };
  const onSubmit = (ev: FormEvent) => {
    ev.preventDefault();
    if (problem) {
      setError({ kind: 'validation', code: 'INVALID_URL', message: problem, field });
      return;
    }
    void apply(url.trim() ? url.trim() : null);
  };
  const describedBy = `${uid}-hint${error ? ` ${uid}-err` : ''}`;
  return (
    <form className="form" onSubmit={onSubmit} aria-busy={busy}>
      <label htmlFor={`${uid}-url`}>{label}</label>
      <input
        id={`${uid}-url`}
        type="url"
        value={url}
        onChange={(e) => {
          setUrl(e.target.value);
          setDirty(true);
          setNote(null);
        }}
        placeholder={placeholder}
        aria-invalid={problem !== null || error !== null ? true : undefined}
        aria-describedby={describedBy}
      />
      <span id={`${uid}-hint`} className={problem ? 'error' : 'hint'}>
        {problem ?? hint}
      </span>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {error && <ErrorNotice id={`${uid}-err`} error={error} />}
      <div className="actions">
        <button type="submit" disabled={busy || !gate.allowed} {...gate.props}>
          {busy ? 'Saving…' : `Save ${noun}`}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy || value === null || !gate.allowed}
          onClick={() => void apply(null)}
          {...gate.props}
        >
          Remove {noun}
        </button>
        {note && <span role="status">{note}</span>}
      </div>
      {gate.note}
    </form>
  );
}
