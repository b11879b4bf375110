// Why an agent's inbox may be incomplete, agents with the same reason in one notice. Where this app
// is not the agent's webhook receiver, the notice offers the registrations the Webhook tunnel screen
// offers (this receiver, or the public URL while one is up), with the same confirm step that names
// the URL that stops receiving; otherwise it leads to the Tunnel screen to expose a public URL. Connected
// to a team hub, the receiver is the hub's: the reasons speak of the hub and its public URL, and the offer
// points the agent's webhook at the hub.
import { useEffect, useMemo } from 'react';
import type { HubConnectionDTO, InboxAgentDTO, InboxGap, TunnelAgentDTO } from '../../../../src-shared/contract';
import { useConnectedHub } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ConfirmTakeover } from '../tunnel/ConfirmTakeover';
import { RegisterButtons } from '../tunnel/RegisterButtons';
import { useRegisterOffer } from '../tunnel/useRegisterOffer';

/** Why an agent's inbox may be incomplete when the team hub receives its deliveries. */
function hubGapWords(gap: InboxGap, hub: HubConnectionDTO): string {
  switch (gap) {
    case 'not-registered':
      return hub.publicUrl === null
        ? "Not pointed at the team hub, and the hub has no public URL to point it at: messages written to its number do not reach the team's inbox. Ask the hub's admin to start it with --public-url."
        : `Not pointed at the team hub: the hub receives the agent's deliveries at ${hub.publicUrl}/hooks/<agent>, but the service does not send them there, so messages written to its number do not reach the team's inbox.`;
    case 'receiver-elsewhere':
      return "Another process on the hub's machine holds its receiver, so the hub receives no new messages: ask the hub's admin.";
    case 'receiver-stopped':
      return "The hub's receiver is not running, so new messages are not being received: ask the hub's admin.";
  }
}

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
  const hub = useConnectedHub();
  const loadTunnelStatus = useApp((s) => s.loadTunnelStatus);
  const unregistered = agents.some((a) => a.gap === 'not-registered');
  useEffect(() => {
    if (unregistered) void loadTunnelStatus();
  }, [unregistered, loadTunnelStatus]);
  const groups = useMemo(() => {
    const byReason = new Map<string, { reason: string; agents: InboxAgentDTO[] }>();
    for (const a of agents) {
      if (a.gap === null || a.reason === null) continue;
      const reason = hub !== null ? hubGapWords(a.gap, hub) : a.reason;
      const g = byReason.get(reason) ?? { reason, agents: [] };
      g.agents.push(a);
      byReason.set(reason, g);
    }
    return [...byReason.values()];
  }, [agents, hub]);
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
