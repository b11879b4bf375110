// The right pane: the selected request in full. A delivery: verdict and who/what, its ids (this
// app's record first, as the command line prints it; then the service's x-delivery-id and the
// message id), replay (as received, re-signed, edited: to the forward address, a local setting; without
// one the buttons say why they are disabled) and export actions, a forward that waits (its next try
// counting down, Retry now), an image's preview (its bytes fetched by the main side, the key never
// here), the verification steps, every forward attempt (replays marked), the
// headers and the body (JSON tree or raw). A refused request: why, what was received (headers, size,
// hash, the first bytes); its body was not kept, so nothing to replay.
import { useEffect, useId, useState } from 'react';
import type { DeliveryDetailDTO, ErrorDTO, RefusedRequestDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { copyText, downloadBase64, downloadText } from '../../components/download';
import { useNow } from '../../components/TimeAgo';
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

/** This app's id first (the one the command line prints and every request takes), then the service's and the message's. */
function DeliveryIds({ d }: { d: DeliveryDetailDTO }) {
  return (
    <p className="muted small-print delivery-ids">
      Delivery <code>{d.id}</code>
      {d.serviceId && (
        <>
          {' '}
          · the service&apos;s id <code>{d.serviceId}</code>
        </>
      )}
      {d.messageId && (
        <>
          {' '}
          · message <code>{d.messageId}</code>
        </>
      )}
    </p>
  );
}

/** Image types shown inline (raster only); others are downloaded, never drawn. */
const PREVIEWABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

type Preview = { src: string; filename: string } | { error: ErrorDTO } | null;

/**
 * An image delivery's picture, fetched by the main side (tunnel.media, with the team's key, which
 * never reaches this window) and drawn from its bytes; a link that expired or a file too large says
 * why instead.
 */
function ImagePreview({ d }: { d: DeliveryDetailDTO }) {
  const fetchMedia = useApp((s) => s.loadDeliveryMedia);
  const [preview, setPreview] = useState<Preview>(null);
  useEffect(() => {
    let live = true;
    setPreview(null);
    void fetchMedia(d.id).then((r) => {
      if (!live) return;
      if (!r.ok) return setPreview({ error: r.error });
      if (!PREVIEWABLE.has(r.value.mimeType))
        return setPreview({
          error: {
            kind: 'invalid-request',
            code: 'NOT_PREVIEWABLE',
            message: `The file is ${r.value.mimeType}, which is not shown here; download it instead.`,
          },
        });
      setPreview({ src: `data:${r.value.mimeType};base64,${r.value.dataBase64}`, filename: r.value.filename });
    });
    return () => {
      live = false;
    };
  }, [d.id, fetchMedia]);
  if (preview === null) return <p aria-busy="true">Loading the image…</p>;
  if ('error' in preview) return <ErrorNotice error={preview.error} />;
  return (
    <figure className="media-preview">
      <img
        src={preview.src}
        alt={`The image${d.from ? ` from +${d.from.replace(/^\+/, '')}` : ''}${d.preview && !d.preview.startsWith('[') ? `: ${d.preview}` : ''}`}
      />
      <figcaption className="muted small-print">{preview.filename}</figcaption>
    </figure>
  );
}

/** A forward waiting in the agent's queue: when it tries next (ticking), and Retry now. */
function WaitingForward({ d }: { d: DeliveryDetailDTO }) {
  const retry = useApp((s) => s.retryForwardsNow);
  const gate = useGate('tunnel.retryNow');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const now = useNow(d.nextTryAt !== null ? 1000 : 3_600_000);
  const left = d.nextTryAt === null ? null : Math.max(0, Math.ceil((d.nextTryAt - now) / 1000));
  const load = useApp((s) => s.loadDelivery);
  // The try is due: read how it went (or when the next one is).
  const due = left === 0;
  useEffect(() => {
    if (due) void load(d.id);
  }, [due, d.id, load]);
  return (
    <div className="forward-waiting" role="group" aria-label="Forward waiting">
      <p>
        <strong>Waiting to be forwarded</strong>
        {left !== null ? (
          <>
            , next try in <span aria-live="off">{left}</span> s
          </>
        ) : d.forwards.some((f) => f.replay === undefined) ? (
          ', trying again'
        ) : (
          ', in the queue'
        )}
        .
      </p>
      {d.agentId && (
        <button
          type="button"
          className="secondary small"
          disabled={busy || !gate.allowed}
          onClick={async () => {
            setBusy(true);
            setError(await retry(d.agentId!, d.id));
            setBusy(false);
          }}
          {...gate.props}
        >
          Retry now
        </button>
      )}
      {d.agentId && gate.hiddenNote}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}

export function DeliveryDetail({ id }: { id: string }) {
  const d = useApp((s) => s.deliveryDetails[id]);
  const load = useApp((s) => s.loadDelivery);
  const replay = useApp((s) => s.replayDelivery);
  const exportIt = useApp((s) => s.exportDelivery);
  const fetchMedia = useApp((s) => s.loadDeliveryMedia);
  const names = useNames();
  const forwardTo = useApp((s) => s.tunnelStatus?.forwardTo ?? null);
  const uid = useId();
  const replayGate = useGate('tunnel.replay');
  const hub = useConnectedHub();
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
  // A try of the forward queue came in live while it waited: read when it tries next.
  const tries = d?.forwards.filter((f) => f.replay === undefined).length ?? 0;
  const waiting = d?.forwardState === 'pending';
  useEffect(() => {
    if (waiting && tries > 0) void load(id);
  }, [tries, waiting, id, load]);

  const doReplay = async (mode: 'as-received' | 're-signed', edited?: string) => {
    setBusy(true);
    const r = await replay(id, mode, edited);
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setError(null);
    const f = r.value;
    setNote(
      `Replayed (${mode === 'as-received' ? 'as received' : edited !== undefined ? 'edited, re-signed' : 're-signed'}): ${attemptWords(f)} in ${f.durationMs} ms.`,
    );
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
      const where = forwardTo
        ? `It posts to the forward address, ${forwardTo}.`
        : 'No forward address is set: it posts to <FORWARD_URL>; put your app’s address there.';
      setNote(
        `${(await copyText(r.value.content)) ? 'Copied the curl command.' : 'Copy is not available here; the command is shown below.'} ${where}`,
      );
      setCurl(r.value.content);
    }
  };

  if (!d) return error ? <ErrorNotice error={error} /> : <p aria-busy="true">Loading the delivery…</p>;
  const steps = d.verificationDetail.split('\n').filter((s) => s.trim());
  const noTarget = forwardTo === null;
  /** Why the replay buttons are disabled, for the pointer (title) and for assistive technology. */
  const why = noTarget
    ? { title: 'No forward address is set (a local setting: Forwarding)', 'aria-describedby': `${uid}-no-forward` }
    : replayGate.props;
  const cannotReplay = noTarget || !replayGate.allowed;
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
        <DeliveryIds d={d} />
      </header>
      {d.forwardState === 'pending' && forwardTo !== null && <WaitingForward d={d} />}
      {noTarget && (
        <p className="hint no-forward" id={`${uid}-no-forward`}>
          {hub !== null
            ? 'Replay sends to the team hub’s forward address (the service is not involved): none is set. A hub admin sets one under Forwarding above.'
            : 'Replay sends to the forward address, a local setting of this app (the service is not involved): none is set. Set one under Forwarding above.'}
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={busy || cannotReplay} onClick={() => void doReplay('as-received')} {...why}>
          Replay as received
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy || cannotReplay}
          onClick={() => void doReplay('re-signed')}
          {...why}
        >
          Replay re-signed
        </button>
        <button
          type="button"
          className="secondary"
          disabled={cannotReplay}
          {...why}
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
      {!noTarget && replayGate.note}
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
        <pre className="raw curl" tabIndex={0} aria-label="The curl command">
          {curl}
        </pre>
      )}
      {d.messageType === 'image' && (
        <>
          <h4>Image</h4>
          <ImagePreview d={d} />
        </>
      )}
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
                  {f.replay !== undefined && <span className="badge tone-info">Replay</span>} {attemptWords(f)}
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
          The receiver answered {r.status}. Only what is shown here was kept: the body is not stored, so it cannot be
          replayed.
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
