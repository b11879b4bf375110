// Which registrations of an agent's webhook this install can offer, and their confirm step: "this
// receiver" when the team's service runs on this machine (the emulator), "the public URL" while one
// is up, each unless the agent is already registered there. Connected to a team hub, the receiver is the
// hub's: the one offer is the hub's hook URL under its public URL. The Webhook tunnel screen's rows and the
// Messages screen's notices use the same offers and the same confirm step (ConfirmTakeover).
import { useState } from 'react';
import type { ErrorDTO, HubConnectionDTO, TunnelAgentDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { useApp } from '../../store/react';
import { hubHookUrl, serviceOnThisMachine } from './urls';

interface RegisterOffer {
  target: 'receiver' | 'exposure' | 'hub';
  url: string;
  /** The button's words: "Register this receiver", "Register the public URL", "Point at the team hub", or "Register again". */
  label: string;
}

function registerOffers(a: TunnelAgentDTO, serviceLocal: boolean, hub: HubConnectionDTO | null): RegisterOffer[] {
  const reg = a.registration;
  if (hub !== null) {
    const url = hubHookUrl(hub, a.agentId);
    return url === null || reg.state === 'here' ? [] : [{ target: 'hub', url, label: 'Point at the team hub' }];
  }
  const lastUrl = reg.last?.url ?? null;
  const again = (target: RegisterOffer['target']) => reg.state === 'stale' && reg.last?.target === target;
  const out: RegisterOffer[] = [];
  if (serviceLocal && a.receiverUrl !== null && !(reg.state === 'here' && lastUrl === a.receiverUrl))
    out.push({
      target: 'receiver',
      url: a.receiverUrl,
      label: again('receiver') ? 'Register again' : 'Register this receiver',
    });
  if (a.exposedUrl !== null && !(reg.state === 'here' && lastUrl === a.exposedUrl))
    out.push({
      target: 'exposure',
      url: a.exposedUrl,
      label: again('exposure') ? 'Register again' : 'Register the public URL',
    });
  return out;
}

export function useRegisterOffer(a: TunnelAgentDTO, onRegistered?: () => void) {
  const team = useApp((s) => s.teams.find((t) => t.teamId === a.teamId));
  const register = useApp((s) => s.registerWebhook);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const hub = useConnectedHub();
  const gate = useGate('webhook.register');
  const confirm = async (url: string) => {
    setBusy(true);
    const r = await register(a.teamId, a.agentId, url);
    setBusy(false);
    setConfirming(null);
    setError(r.ok ? null : r.error);
    if (r.ok) onRegistered?.();
  };
  return {
    offers: registerOffers(a, serviceOnThisMachine(team), hub),
    /** What the member's role on a hub allows of registering (the buttons are disabled, saying why, otherwise). */
    gate,
    busy,
    error,
    confirming,
    /** Opens the confirm step for `url` (null closes it). */
    ask: setConfirming,
    confirm,
  };
}
