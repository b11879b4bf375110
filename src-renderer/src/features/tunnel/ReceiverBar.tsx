// The top of the inspector: the local receiver (listening where; the URLs to use are the agents'
// hook URLs below, so the bare base is not offered for copying), the public exposure (off,
// starting, up with its URL, failed with why and what to do, stopped — and then where the service
// still sends deliveries), a registration of this receiver it no longer answers (register again),
// where deliveries are forwarded, and the counts (a duplicate is counted
// as verified and as a duplicate: it was acknowledged, not refused). Connected to a team hub, the receiver is
// the hub's: it receives the agents' deliveries at its public URL, which its admin sets.
import type { ExposureDTO, HubConnectionDTO, TunnelStatusDTO } from '../../../../src-shared/contract';
import { useConnectedHub } from '../../components/allowed';
import { forwardingOf } from '../../store/tunnel';
import { useApp } from '../../store/react';
import { nameWords, useNames } from './names';
import { downSince, sentence } from './verdict';

/** "127.0.0.1:4555": where it listens, not a URL to paste (deliveries go to the hook URLs). */
function hostPort(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

const KIND_WORDS = { ngrok: 'ngrok', command: 'your tunnel command' } as const;

function Exposure({ st, x }: { st: TunnelStatusDTO; x: ExposureDTO }) {
  const names = useNames();
  const stranded = st.agents.filter(
    (a) =>
      a.registration.state === 'stale' &&
      a.registration.last?.target === 'exposure' &&
      x.url !== null &&
      a.registration.last.url.startsWith(`${x.url}/`),
  );
  const by = x.kind ? ` (${KIND_WORDS[x.kind]})` : '';
  switch (x.state) {
    case 'off':
      return <span className="muted">Not exposed: only this computer reaches the receiver.</span>;
    case 'starting':
      return (
        <span className="badge tone-info" aria-busy="true">
          Starting{by}…
        </span>
      );
    case 'up':
      return (
        <>
          <span className="badge tone-ok">Up{by}</span> <code className="url">{x.url}</code>{' '}
          <span className="muted">→ this receiver; each agent's hook URL is below</span>
        </>
      );
    case 'stopped':
    case 'failed':
      return (
        <>
          {x.state === 'failed' ? (
            <span className="badge tone-bad">Failed{by}</span>
          ) : (
            <span className="badge tone-warn">Stopped{by}</span>
          )}{' '}
          {x.error && (
            <span className="exposure-why">
              {sentence(x.error.message)}. <strong>{x.error.hint}</strong>
            </span>
          )}
          {stranded.length > 0 && (
            <span className="exposure-why">
              The service still sends the deliveries of{' '}
              {stranded.map((a) => nameWords(names(a.teamId, a.agentId))).join(', ')} to{' '}
              <code className="url">{x.url}</code>, which no longer answers: the service offers no way to remove a
              webhook. Register this receiver or a new public URL below to point them elsewhere.
            </span>
          )}
        </>
      );
  }
}

/** Agents whose last registration by this install was this receiver's local hook URL, which it no longer answers (its port changed, or it stopped). */
function Moved({ st }: { st: TunnelStatusDTO }) {
  const names = useNames();
  const moved = st.agents.filter((a) => a.registration.state === 'stale' && a.registration.last?.target === 'receiver');
  if (moved.length === 0) return null;
  return (
    <p className="error registration-moved">
      The webhook of {moved.map((a) => nameWords(names(a.teamId, a.agentId))).join(', ')} was registered here at an
      address this receiver no longer answers ({st.running ? 'its port changed' : 'it is not listening'}): register
      again below.
    </p>
  );
}

/** This computer's receiver and its public exposure. */
function LocalReceiver({ st }: { st: TunnelStatusDTO }) {
  return (
    <>
      <div>
        <dt>Receiver</dt>
        <dd>
          <span className={`badge tone-${st.running ? 'ok' : 'bad'}`}>{st.running ? 'Listening' : 'Stopped'}</span>{' '}
          {st.listenUrl ? (
            <span>on {hostPort(st.listenUrl)}, this computer only</span>
          ) : (
            <span className="muted">not listening</span>
          )}
        </dd>
      </div>
      <div className="fact-wide">
        <dt>Public URL</dt>
        <dd className="exposure">
          <Exposure st={st} x={st.exposure} />
        </dd>
      </div>
    </>
  );
}

/** The receiver and its public URL when the team hub holds them. */
function HubReceiver({ st, hub }: { st: TunnelStatusDTO; hub: HubConnectionDTO }) {
  return (
    <>
      <div>
        <dt>Receiver</dt>
        <dd>
          <span className={`badge tone-${st.running ? 'ok' : 'bad'}`}>{st.running ? 'Listening' : 'Stopped'}</span>{' '}
          <span>at the team hub</span>
        </dd>
      </div>
      <div className="fact-wide">
        <dt>Public URL</dt>
        <dd className="exposure">
          {hub.publicUrl !== null ? (
            <>
              <code className="url">{hub.publicUrl}</code>{' '}
              <span className="muted">
                → the hub receives each agent's deliveries at <code>{hub.publicUrl}/hooks/&lt;agent&gt;</code> (below)
              </span>
            </>
          ) : (
            <span className="muted">
              none: the hub was started without a public URL, so the service cannot reach it. Ask its admin to start it
              with --public-url.
            </span>
          )}
        </dd>
      </div>
    </>
  );
}

export function ReceiverBar() {
  const st = useApp((s) => s.tunnelStatus);
  const log = useApp((s) => s.forwardLog);
  const hub = useConnectedHub();
  if (!st) return <p aria-busy="true">Reading the receiver status…</p>;
  const fw = forwardingOf(st);
  const down = fw.downSince ?? downSince(log);
  return (
    <dl className="tunnel-facts">
      {hub !== null ? <HubReceiver st={st} hub={hub} /> : <LocalReceiver st={st} />}
      <div>
        <dt>Forwards to</dt>
        <dd>
          {st.forwardTo ? (
            <code className="url">{st.forwardTo}</code>
          ) : (
            <span className="muted">nowhere (logged only)</span>
          )}
          {down !== null && (
            <span className="badge tone-bad">Local app down since {new Date(down).toLocaleTimeString()}</span>
          )}
          {fw.pending > 0 && <span className="muted"> · {fw.pending} waiting</span>}
        </dd>
      </div>
      {(st.registrationHistoryProblem ||
        st.agents.some((a) => a.registration.state === 'stale' && a.registration.last?.target === 'receiver')) && (
        <div className="fact-wide">
          <dt>Registrations</dt>
          <dd>
            <Moved st={st} />
            {st.registrationHistoryProblem && <p className="error">{st.registrationHistoryProblem}</p>}
          </dd>
        </div>
      )}
      <div className="fact-counts">
        <dt className="sr-only">Counts</dt>
        <dd>
          {st.counts.received} received · {st.counts.verified} verified · {st.counts.duplicates}{' '}
          {st.counts.duplicates === 1 ? 'duplicate' : 'duplicates'} · {st.counts.rejected} refused ·{' '}
          {st.counts.forwarded} forwarded · {st.counts.failed} failed
        </dd>
      </div>
    </dl>
  );
}
