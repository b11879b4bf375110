// Where verified deliveries go next: the local app's URL (e.g. http://127.0.0.1:3000/webhook), or
// nowhere. Saved as the app's tunnel setting.
import { useEffect, useId, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

function urlProblem(s: string): string | null {
  if (!s.trim()) return null;
  try {
    const u = new URL(s.trim());
    return u.protocol === 'http:' || u.protocol === 'https:'
      ? null
      : 'The local app URL must start with http:// or https://.';
  } catch {
    return 'That is not a full URL; it looks like http://127.0.0.1:3000/webhook.';
  }
}

export function ForwardForm() {
  const current = useApp((s) => s.tunnelStatus?.forwardTo ?? null);
  const save = useApp((s) => s.setForwardTarget);
  const uid = useId();
  const [url, setUrl] = useState(current ?? '');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const gate = useGate('settings.update');
  const hub = useConnectedHub();
  useEffect(() => setUrl(current ?? ''), [current]);
  const problem = urlProblem(url);
  const apply = async (value: string | null) => {
    setBusy(true);
    const e = await save(value);
    setBusy(false);
    setError(e);
    setNote(e ? null : value ? `Deliveries now go to ${value}.` : 'Deliveries are no longer forwarded.');
  };
  return (
    <form
      className="form"
      aria-labelledby={`${uid}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem && url.trim() && gate.allowed) void apply(url.trim());
      }}
    >
      <h3 id={`${uid}-title`}>{hub !== null ? 'Forward from the team hub' : 'Forward to your local app'}</h3>
      <label htmlFor={`${uid}-url`}>Local app URL</label>
      <input
        id={`${uid}-url`}
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="http://127.0.0.1:3000/webhook"
        aria-invalid={problem !== null}
        aria-describedby={`${uid}-hint`}
      />
      <span id={`${uid}-hint`} className={problem ? 'error' : 'hint'}>
        {problem ??
          (hub !== null
            ? 'The hub passes each delivery on to this address after it is checked: an address the hub’s machine reaches, not this computer.'
            : 'Each delivery is passed on to this address after it is checked.')}
      </span>
      <div className="actions">
        <button type="submit" disabled={busy || !url.trim() || problem !== null || !gate.allowed} {...gate.props}>
          Save forward address
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy || current === null || !gate.allowed}
          onClick={() => void apply(null)}
          {...gate.props}
        >
          Stop forwarding
        </button>
      </div>
      {gate.note}
      {note && <p role="status">{note}</p>}
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
