// The webhook tunnel: receiver address and status, registered webhooks, a form to register a public
// URL, the live list of deliveries with details / replay / export, and inbound message simulation.
import { useEffect, useMemo, useState } from 'react';
import { agentKey } from '../../store/env';
import { forwardingOf } from '../../store/tunnel';
import { useApp } from '../../store/react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { usePolling } from '../../components/usePolling';
import { ForwardForm } from './ForwardForm';
import { DeliveryDetail } from './DeliveryDetail';
import { DeliveryList } from './DeliveryList';
import { RegisterForm } from './RegisterForm';
import { SimulateForm } from './SimulateForm';
import { downSince } from './verdict';
import './tunnel.css';

/** Status re-read while the screen is open: the receiver starts on the first read, counts move. */
const STATUS_POLL_MS = 2000;

function TunnelStatus() {
  const st = useApp((s) => s.tunnelStatus);
  const regs = useApp((s) => s.registrations);
  const log = useApp((s) => s.forwardLog);
  if (!st) return <p aria-busy="true">Reading the receiver status…</p>;
  // The tunnel's own per-agent state first; the forward events seen live fill in between status reads.
  const fw = forwardingOf(st);
  const down = fw.downSince ?? downSince(log);
  return (
    <section className="card" aria-labelledby="tunnel-status-title">
      <h3 id="tunnel-status-title">Receiver</h3>
      <dl className="tunnel-facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge tone-${st.running ? 'ok' : 'bad'}`}>{st.running ? 'Listening' : 'Stopped'}</span>
        </dd>
        <dt>Receiver address</dt>
        <dd>{st.listenUrl ? <code>{st.listenUrl}</code> : 'not listening'}</dd>
        <dt>Forwards to</dt>
        <dd>{st.forwardTo ? <code>{st.forwardTo}</code> : 'no local app set'}</dd>
        <dt>Local app</dt>
        <dd>
          {down !== null ? (
            <span className="badge tone-bad">Down since {new Date(down).toLocaleTimeString()}</span>
          ) : (
            <span className="muted">no failed forwards recently</span>
          )}
          {fw.pending > 0 && <> · {fw.pending} waiting to be forwarded</>}
        </dd>
        <dt>Counts</dt>
        <dd>
          {st.counts.received} received, {st.counts.verified} verified, {st.counts.rejected} rejected, {st.counts.forwarded} forwarded, {st.counts.failed} failed
        </dd>
      </dl>
      {st.agents.length > 0 && (
        <table className="tunnel-agents">
          <caption>Registered webhooks</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Public URL</th>
              <th scope="col">Mode</th>
              <th scope="col">Signing secret</th>
              <th scope="col">Local app</th>
            </tr>
          </thead>
          <tbody>
            {st.agents.map((a) => {
              const reg = regs[agentKey(a.teamId, a.agentId)];
              return (
                <tr key={agentKey(a.teamId, a.agentId)}>
                  <td>
                    {a.agentId} <span className="muted">({a.teamId})</span>
                  </td>
                  <td>{reg?.url ?? a.publicUrl ?? <span className="muted">not registered</span>}</td>
                  <td>{reg?.mode ?? '—'}</td>
                  <td>{a.hasSecret ? 'Held' : 'None — deliveries cannot be verified'}</td>
                  <td>
                    {[
                      a.localAppDownSince ? `local app down since ${new Date(a.localAppDownSince).toLocaleTimeString()}` : null,
                      a.pending > 0 ? `${a.pending} pending` : null,
                    ]
                      .filter(Boolean)
                      .join(', ') || '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function TunnelScreen() {
  const load = useApp((s) => s.loadTunnel);
  const refresh = useApp((s) => s.loadTunnelStatus);
  const error = useApp((s) => s.tunnelError);
  const status = useApp((s) => s.tunnelStatus);
  const teams = useApp((s) => s.teams);
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(() => {
    void load();
  }, [load]);
  usePolling(refresh, STATUS_POLL_MS);
  const agents = useMemo(() => {
    const seen = new Map<string, { teamId: string; agentId: string }>();
    for (const a of status?.agents ?? []) seen.set(agentKey(a.teamId, a.agentId), { teamId: a.teamId, agentId: a.agentId });
    for (const t of teams) for (const agentId of t.agentIds) seen.set(agentKey(t.teamId, agentId), { teamId: t.teamId, agentId });
    return [...seen.values()];
  }, [status, teams]);
  return (
    <section className="tunnel" aria-labelledby="tunnel-title">
      <h2 id="tunnel-title">Webhook tunnel</h2>
      {error && (
        <>
          <ErrorNotice error={error} />
          <button type="button" className="secondary small" onClick={() => void load()}>
            Reload the tunnel status
          </button>
        </>
      )}
      <TunnelStatus />
      <div className="tunnel-forms">
        <RegisterForm agents={agents} />
        <SimulateForm agents={agents} />
        <ForwardForm />
      </div>
      <DeliveryList selected={selected} onSelect={setSelected} />
      {selected && <DeliveryDetail id={selected} onClose={() => setSelected(null)} />}
    </section>
  );
}
