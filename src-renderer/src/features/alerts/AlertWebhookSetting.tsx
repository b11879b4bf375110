// The alert webhook: an http(s) URL every alert is POSTed to (Slack-style JSON with `text`), or none.
// Checked here first, then by the main process; what was typed stays on error.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

function webhookUrlProblem(s: string): string | null {
  const text = s.trim();
  if (!text) return null;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return 'That is not a full URL; it looks like https://hooks.example.com/alerts.';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The alert webhook URL must start with http:// or https://.';
  if (u.username || u.password) return 'The alert webhook URL must not contain a user name or password.';
  return null;
}

export function AlertWebhookSetting({ value }: { value: string | null }) {
  const update = useApp((s) => s.updateSettings);
  const uid = useId();
  const [url, setUrl] = useState(value ?? '');
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!dirty) setUrl(value ?? '');
  }, [value, dirty]);
  const problem = webhookUrlProblem(url);
  const apply = async (next: string | null) => {
    setBusy(true);
    const e = await update({ alertWebhookUrl: next });
    setBusy(false);
    setError(e);
    if (!e) {
      setDirty(false);
      setNote(next ? 'Alerts are now also posted to the webhook.' : 'Alerts are no longer posted to a webhook.');
    } else setNote(null);
  };
  const onSubmit = (ev: FormEvent) => {
    ev.preventDefault();
    if (problem) {
      setError({ kind: 'validation', code: 'INVALID_URL', message: problem, field: 'alertWebhookUrl' });
      return;
    }
    void apply(url.trim() ? url.trim() : null);
  };
  const describedBy = `${uid}-hint${error ? ` ${uid}-err` : ''}`;
  return (
    <form className="form" onSubmit={onSubmit} aria-busy={busy}>
      <label htmlFor={`${uid}-url`}>Alert webhook URL</label>
      <input
        id={`${uid}-url`}
        type="url"
        value={url}
        onChange={(e) => {
          setUrl(e.target.value);
          setDirty(true);
          setNote(null);
        }}
        placeholder="https://hooks.example.com/alerts"
        aria-invalid={problem !== null || error !== null ? true : undefined}
        aria-describedby={describedBy}
      />
      <span id={`${uid}-hint`} className={problem ? 'error' : 'hint'}>
        {problem ?? 'Every alert is also sent here as JSON (with a "text" line). Leave empty for none.'}
      </span>
      {error && <ErrorNotice id={`${uid}-err`} error={error} />}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save webhook'}
        </button>
        <button type="button" className="secondary" disabled={busy || value === null} onClick={() => void apply(null)}>
          Remove webhook
        </button>
        {note && <span role="status">{note}</span>}
      </div>
    </form>
  );
}
