// The webhook tunnel as an inspector: at the top the receiver and its public URL, then the settings
// as compact panels; then two panes, in view without scrolling: every request on the left (search,
// filters, row click selects), the selected one in full on the right; below them each agent's hook
// URLs (copy buttons, one-click registration).
import { useEffect, useMemo, useState } from 'react';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { usePolling } from '../../components/usePolling';
import { HookUrls } from './HookUrls';
import { Panels } from './Panels';
import { PortTakenNotice } from './PortTakenNotice';
import { ReceiverBar } from './ReceiverBar';
import { RequestList, type Selection } from './RequestList';
import { DeliveryDetail, RefusedDetail } from './RequestDetail';
import './tunnel.css';

/** Status re-read while the screen is open: the receiver starts on the first read, counts move. */
const STATUS_POLL_MS = 2000;

export function Inspector() {
  const load = useApp((s) => s.loadTunnel);
  const refresh = useApp((s) => s.loadTunnelStatus);
  const error = useApp((s) => s.tunnelError);
  const status = useApp((s) => s.tunnelStatus);
  const teams = useApp((s) => s.teams);
  const [selected, setSelected] = useState<Selection | null>(null);
  useEffect(() => {
    void load();
  }, [load]);
  usePolling(refresh, STATUS_POLL_MS);
  const agents = useMemo(() => {
    const seen = new Map<string, { teamId: string; agentId: string }>();
    for (const a of status?.agents ?? [])
      seen.set(agentKey(a.teamId, a.agentId), { teamId: a.teamId, agentId: a.agentId });
    for (const t of teams)
      for (const agentId of t.agentIds) seen.set(agentKey(t.teamId, agentId), { teamId: t.teamId, agentId });
    return [...seen.values()];
  }, [status, teams]);
  return (
    <section className="tunnel-inspector" aria-labelledby="tunnel-title">
      <h2 id="tunnel-title">Webhook tunnel</h2>
      {error && (
        <>
          <ErrorNotice error={error} />
          <button type="button" className="secondary small" onClick={() => void load()}>
            Reload the tunnel status
          </button>
        </>
      )}
      <ReceiverBar />
      <PortTakenNotice />
      <Panels agents={agents} />
      <div className="panes">
        <RequestList selected={selected} onSelect={setSelected} />
        <div className="pane-detail" aria-label="Selected request" role="region">
          {selected === null ? (
            <p className="empty">Select a request on the left to see its verification, forwards, headers and body.</p>
          ) : selected.kind === 'delivery' ? (
            <DeliveryDetail id={selected.id} />
          ) : (
            <RefusedDetail r={selected.r} />
          )}
        </div>
      </div>
      <section className="hook-urls-section" aria-labelledby="hook-urls-title">
        <h3 id="hook-urls-title">Hook URLs</h3>
        <HookUrls />
      </section>
    </section>
  );
}
