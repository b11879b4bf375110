// One delivery in full: raw body, headers, verification steps, every forward attempt; replay as
// received / re-signed, edit-and-replay, copy as curl, download as a JSON fixture.
import { useEffect, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { VerdictBadge } from './DeliveryList';
import { copyText, downloadBase64, downloadText } from '../../components/download';
import { attemptWords } from './verdict';
import { useApp } from '../../store/react';

export function DeliveryDetail({ id, onClose }: { id: string; onClose(): void }) {
  const d = useApp((s) => s.deliveryDetails[id]);
  const load = useApp((s) => s.loadDelivery);
  const replay = useApp((s) => s.replayDelivery);
  const exportIt = useApp((s) => s.exportDelivery);
  const fetchMedia = useApp((s) => s.loadDeliveryMedia);
  const [mediaBusy, setMediaBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [curl, setCurl] = useState<string | null>(null);

  useEffect(() => {
    setError(null);
    setNote(null);
    setEditing(false);
    setCurl(null);
    void load(id).then(setError);
  }, [id, load]);

  const doReplay = async (mode: 'as-received' | 're-signed', edited?: string) => {
    setBusy(true);
    const r = await replay(id, mode, edited);
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setError(null);
    const f = r.value;
    setNote(`Replayed (${mode === 'as-received' ? 'as received' : edited !== undefined ? 'edited, re-signed' : 're-signed'}): ${attemptWords(f)} in ${f.durationMs} ms.`);
    void load(id);
  };

  const doMedia = async () => {
    setMediaBusy(true);
    const r = await fetchMedia(id);
    setMediaBusy(false);
    if (!r.ok) return setError(r.error);
    setError(null);
    downloadBase64(r.value.filename, r.value.dataBase64, r.value.mimeType);
    setNote(`Downloaded ${r.value.filename} (${r.value.bytes} bytes).`);
  };

  const doExport = async (format: 'curl' | 'fixture') => {
    const r = await exportIt(id, format);
    if (!r.ok) return setError(r.error);
    if (format === 'fixture') {
      downloadText(r.value.filename, r.value.content);
      setNote(`Downloaded ${r.value.filename}.`);
    } else {
      setNote((await copyText(r.value.content)) ? 'Copied the curl command.' : 'Copy is not available here; the command is shown below.');
      setCurl(r.value.content);
    }
  };

  if (!d) {
    return (
      <section className="card delivery-detail" aria-label="Delivery details">
        {error ? <ErrorNotice error={error} /> : <p aria-busy="true">Loading delivery…</p>}
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </section>
    );
  }
  const steps = d.verificationDetail.split('\n').filter((s) => s.trim());
  return (
    <section className="card delivery-detail" aria-labelledby="detail-title">
      <h3 id="detail-title">
        Delivery <code>{d.id}</code>
      </h3>
      <p>
        <VerdictBadge d={d} /> {d.event} from {d.from ?? 'unknown'} to agent {d.agentId ?? 'unknown'} at {new Date(d.receivedAt).toLocaleString()}
        {d.messageId && (
          <>
            {' '}
            — message id <code>{d.messageId}</code>
          </>
        )}
      </p>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void doReplay('as-received')}>
          Replay as received
        </button>
        <button type="button" disabled={busy} onClick={() => void doReplay('re-signed')}>
          Replay re-signed
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setBody(d.rawBody);
            setEditing((e) => !e);
          }}
          aria-expanded={editing}
        >
          Edit and replay…
        </button>
        <button type="button" className="secondary" onClick={() => void doExport('curl')}>
          Copy as curl
        </button>
        <button type="button" className="secondary" onClick={() => void doExport('fixture')}>
          Download JSON fixture
        </button>
        {(d.messageType === 'image' || d.messageType === 'document') && (
          <button type="button" className="secondary" disabled={mediaBusy} onClick={() => void doMedia()}>
            {mediaBusy ? 'Downloading media…' : 'Download media'}
          </button>
        )}
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNotice error={error} />}
      {editing && (
        <form
          className="form edit-replay"
          onSubmit={(e) => {
            e.preventDefault();
            void doReplay('re-signed', body);
          }}
        >
          <label htmlFor="edit-body">Body to replay (re-signed)</label>
          <textarea id="edit-body" rows={8} value={body} onChange={(e) => setBody(e.target.value)} spellCheck={false} />
          <div className="actions">
            <button type="submit" disabled={busy}>
              Replay edited body
            </button>
          </div>
        </form>
      )}
      {curl && (
        <>
          <h4>curl</h4>
          <pre className="raw">{curl}</pre>
        </>
      )}
      <h4>Verification</h4>
      <ol className="steps">
        {steps.length ? steps.map((s, i) => <li key={i}>{s}</li>) : <li>{d.verification}</li>}
      </ol>
      <h4>Forward attempts</h4>
      {d.forwards.length === 0 ? (
        <p className="muted">Not forwarded.</p>
      ) : (
        <table className="forwards">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Target</th>
              <th scope="col">Local app answered</th>
              <th scope="col">Latency</th>
              <th scope="col">Response body</th>
            </tr>
          </thead>
          <tbody>
            {d.forwards.map((f, i) => (
              <tr key={`${f.at}-${i}`}>
                <td>{new Date(f.at).toLocaleTimeString()}</td>
                <td>
                  <code>{f.target}</code>
                </td>
                <td>{attemptWords(f)}</td>
                <td>{f.durationMs} ms</td>
                <td>{f.responseBody ? <code className="response-body">{f.responseBody}</code> : <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Headers</h4>
      <table className="headers">
        <tbody>
          {Object.entries(d.headers).map(([k, v]) => (
            <tr key={k}>
              <th scope="row">
                <code>{k}</code>
              </th>
              <td>
                <code>{v}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Raw body</h4>
      <pre className="raw" tabIndex={0} aria-label="Raw body">
        {d.rawBody}
      </pre>
    </section>
  );
}
