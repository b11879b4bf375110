// The right pane: the selected request in full. A delivery: verdict and who/what, replay (as
// received, re-signed, edited) and export actions, the verification steps, every forward attempt,
// the headers and the body (JSON tree or raw). A refused request: why, what was received (headers,
// size, hash, the first bytes); its body was not kept, so nothing to replay.
import { useEffect, useState } from 'react';
import type { ErrorDTO, RefusedRequestDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { copyText, downloadBase64, downloadText } from '../../components/download';
import { useApp } from '../../store/react';
import { BodyView } from './JsonTree';
import { nameWords, useNames } from './names';
import { attemptWords, RefusedBadge, typeWords, VerdictBadge } from './verdict';

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <table className="headers">
      <tbody>
        {Object.entries(headers).map(([k, v]) => (
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
  );
}

export function DeliveryDetail({ id }: { id: string }) {
  const d = useApp((s) => s.deliveryDetails[id]);
  const load = useApp((s) => s.loadDelivery);
  const replay = useApp((s) => s.replayDelivery);
  const exportIt = useApp((s) => s.exportDelivery);
  const fetchMedia = useApp((s) => s.loadDeliveryMedia);
  const names = useNames();
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
    setBusy(true);
    const r = await fetchMedia(id);
    setBusy(false);
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

  if (!d) return error ? <ErrorNotice error={error} /> : <p aria-busy="true">Loading the delivery…</p>;
  const steps = d.verificationDetail.split('\n').filter((s) => s.trim());
  const who = nameWords(names(d.teamId, d.agentId));
  return (
    <article className="request-detail" aria-labelledby="detail-title">
      <header className="detail-head">
        <h3 id="detail-title">
          {d.messageType ? `${typeWords(d)} message` : typeWords(d)}
          {d.from ? ` from +${d.from.replace(/^\+/, '')}` : ''}
        </h3>
        <p>
          <VerdictBadge d={d} /> to {who} · {new Date(d.receivedAt).toLocaleString()}
        </p>
        <p className="muted small-print">
          Delivery <code>{d.id}</code>
          {d.messageId && (
            <>
              {' '}
              · message <code>{d.messageId}</code>
            </>
          )}
        </p>
      </header>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void doReplay('as-received')}>
          Replay as received
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => void doReplay('re-signed')}>
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
          <button type="button" className="secondary" disabled={busy} onClick={() => void doMedia()}>
            Download media
          </button>
        )}
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
      {curl && <pre className="raw curl">{curl}</pre>}
      <h4>Verification</h4>
      <ol className="steps">{steps.length ? steps.map((s, i) => <li key={i}>{s}</li>) : <li>{d.verdict}</li>}</ol>
      <h4>Forward attempts</h4>
      {d.forwards.length === 0 ? (
        <p className="muted">Not forwarded.</p>
      ) : (
        <table className="forwards">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Target</th>
              <th scope="col">Answer</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
            {d.forwards.map((f, i) => (
              <tr key={`${f.at}-${i}`}>
                <td>{new Date(f.at).toLocaleTimeString()}</td>
                <td>
                  <code>{f.url}</code>
                </td>
                <td>
                  {attemptWords(f)}
                  {f.responseBody ? (
                    <>
                      {' '}
                      <code className="response-body">{f.responseBody}</code>
                    </>
                  ) : null}
                </td>
                <td>{f.durationMs} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Body</h4>
      <BodyView raw={d.rawBody} label="Body" />
      <h4>Headers</h4>
      <Headers headers={d.headers} />
    </article>
  );
}

export function RefusedDetail({ r }: { r: RefusedRequestDTO }) {
  const names = useNames();
  return (
    <article className="request-detail" aria-labelledby="detail-title">
      <header className="detail-head">
        <h3 id="detail-title">
          <code>
            {r.method} {r.path}
          </code>
        </h3>
        <p>
          <RefusedBadge reason={r.reason} /> from {r.from} · {new Date(r.at).toLocaleString()}
          {r.agentId && <> · for {nameWords(names(null, r.agentId))}</>}
        </p>
        <p className="muted small-print">
          The receiver answered {r.status}. Only what is shown here was kept: the body is not stored, so it cannot be replayed.
        </p>
      </header>
      <h4>Why</h4>
      <ol className="steps">
        {r.detail
          .split('\n')
          .filter((s) => s.trim())
          .map((s, i) => (
            <li key={i}>{s}</li>
          ))}
      </ol>
      <h4>Body received</h4>
      <dl className="fields">
        <dt>Size</dt>
        <dd>{r.size} bytes</dd>
        <dt>SHA-256</dt>
        <dd>
          <code className="hash">{r.sha256}</code>
        </dd>
      </dl>
      {r.prefix && (
        <pre className="raw" tabIndex={0} aria-label="Start of the body">
          {r.prefix}
        </pre>
      )}
      <h4>Headers</h4>
      <Headers headers={r.headers} />
    </article>
  );
}
