// Settings → Team hub, while connected: what the team's members did on the hub, newest first (hub.activity) —
// who sent, registered, deleted, acknowledged. A page at a time; "Show older" reads the next one.
import { useCallback, useEffect, useState } from 'react';
import type { ErrorDTO, HubActivityEntryDTO } from '../../../../src-shared/contract';
import { hubActivityLine } from '../../../../src-shared/words';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

export function HubActivity() {
  const load = useApp((s) => s.loadHubActivity);
  const [entries, setEntries] = useState<HubActivityEntryDTO[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);

  const read = useCallback(
    async (before?: number) => {
      setBusy(true);
      const r = await load(before);
      setBusy(false);
      if (!r.ok) return setError(r.error);
      setError(null);
      setEntries((had) => (before === undefined ? r.value.entries : [...(had ?? []), ...r.value.entries]));
      setNext(r.value.next);
    },
    [load],
  );
  useEffect(() => void read(), [read]);

  return (
    <section className="hub-activity" aria-labelledby="hub-activity-title">
      <h4 id="hub-activity-title">Team activity</h4>
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
      {entries === null ? (
        !error && <p className="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p className="muted">No one has sent, registered or deleted anything through the hub yet.</p>
      ) : (
        <ol aria-label="Team activity">
          {entries.map((e) => (
            <li key={e.id}>
              <time dateTime={new Date(e.at).toISOString()}>{new Date(e.at).toLocaleString()}</time>{' '}
              {hubActivityLine(e)}
            </li>
          ))}
        </ol>
      )}
      <div className="actions">
        <button type="button" className="secondary small" disabled={busy} onClick={() => void read()}>
          Refresh
        </button>
        {next !== null && (
          <button type="button" className="secondary small" disabled={busy} onClick={() => void read(next)}>
            Show older
          </button>
        )}
      </div>
    </section>
  );
}
