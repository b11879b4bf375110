// Why an agent's inbox may be incomplete, agents with the same reason in one notice. Where this app
// is not the agent's webhook receiver, the notice offers the registrations the Webhook tunnel screen
// offers (this receiver, or the public URL while one is up), with the same confirm step that names
// the URL that stops receiving; otherwise it leads to the Tunnel screen to expose a public URL.
import { useEffect, useMemo } from 'react';
import type { InboxAgentDTO, TunnelAgentDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ConfirmTakeover } from '../tunnel/ConfirmTakeover';
import { RegisterButtons } from '../tunnel/RegisterButtons';
import { useRegisterOffer } from '../tunnel/useRegisterOffer';

function RegisterHere({ a, who }: { a: TunnelAgentDTO; who: string }) {
  const loadInbox = useApp((s) => s.loadInbox);
  const offer = useRegisterOffer(a, () => void loadInbox());
  const { busy, error, confirming, ask, confirm } = offer;
  if (offer.offers.length === 0 && !error) return null;
  return (
    <div className="messages-gap-actions">
      <RegisterButtons offer={offer} who={who} named />
      {confirming !== null && (
        <ConfirmTakeover
          who={who}
          url={confirming}
          takeover={a.registration.takeover}
          busy={busy}
          onConfirm={() => void confirm(confirming)}
          onCancel={() => ask(null)}
        />
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}

export function GapNotices({
  agents,
  labelOf,
}: {
  agents: InboxAgentDTO[];
  labelOf(a: { teamId: string; agentId: string }): string;
}) {
  const tunnel = useApp((s) => s.tunnelStatus);
  const loadTunnelStatus = useApp((s) => s.loadTunnelStatus);
  const unregistered = agents.some((a) => a.gap === 'not-registered');
  useEffect(() => {
    if (unregistered) void loadTunnelStatus();
  }, [unregistered, loadTunnelStatus]);
  const groups = useMemo(() => {
    const byReason = new Map<string, { reason: string; agents: InboxAgentDTO[] }>();
    for (const a of agents) {
      if (a.gap === null || a.reason === null) continue;
      const g = byReason.get(a.reason) ?? { reason: a.reason, agents: [] };
      g.agents.push(a);
      byReason.set(a.reason, g);
    }
    return [...byReason.values()];
  }, [agents]);
  const tunnelAgent = (a: InboxAgentDTO) =>
    tunnel?.agents.find((t) => t.teamId === a.teamId && t.agentId === a.agentId) ?? null;
  return groups.map((g) => (
    <div key={g.agents.map((a) => agentKey(a.teamId, a.agentId)).join(' ')} className="messages-gap">
      <p>
        <strong>{g.agents.map(labelOf).join(', ')}:</strong> {g.reason} <a href="#/tunnel">Open the Tunnel screen</a>
      </p>
      {g.agents.map((a) => {
        const t = a.gap === 'not-registered' ? tunnelAgent(a) : null;
        return t ? <RegisterHere key={agentKey(a.teamId, a.agentId)} a={t} who={labelOf(a)} /> : null;
      })}
    </div>
  ));
}
