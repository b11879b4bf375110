// Register any URL as an agent's webhook (the service answers with its mode and URL): for a tunnel
// you run yourself, or to point an agent elsewhere after an exposure was stopped. A confirm step
// first names the URL that stops receiving (when this install knows it) and the new signing secret.
import { useId, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ConfirmTakeover } from './ConfirmTakeover';
import { nameWords, useNames } from './names';

function urlProblem(s: string): string | null {
  if (!s.trim()) return null;
  try {
    const u = new URL(s.trim());
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'The URL must start with https:// (or http://).';
    return null;
  } catch {
    return 'That is not a full URL; it looks like https://example.ngrok.app/hooks/my-agent.';
  }
}

export function RegisterForm({ agents }: { agents: { teamId: string; agentId: string }[] }) {
  const register = useApp((s) => s.registerWebhook);
  const names = useNames();
  const uid = useId();
  const [agent, setAgent] = useState('');
  const [url, setUrl] = useState('');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const gate = useGate('webhook.register');
  const hub = useConnectedHub();
  const chosen = agents.find((a) => agentKey(a.teamId, a.agentId) === agent) ?? agents[0];
  const known = useApp(
    (s) =>
      s.tunnelStatus?.agents.find(
        (a) => chosen !== undefined && a.teamId === chosen.teamId && a.agentId === chosen.agentId,
      )?.registration,
  );
  const problem = urlProblem(url);
  const doRegister = async (target: string) => {
    if (!chosen) return;
    setBusy(true);
    const r = await register(chosen.teamId, chosen.agentId, target);
    setBusy(false);
    setConfirming(null);
    setError(r.ok ? null : r.error);
    setNote(
      r.ok
        ? `Registered for ${nameWords(names(chosen.teamId, chosen.agentId))}: mode ${r.value.mode}, URL ${r.value.url}.`
        : null,
    );
  };
  return (
    <form
      className="form"
      aria-labelledby={`${uid}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!chosen || problem || !url.trim() || !gate.allowed) return;
        setNote(null);
        setConfirming(url.trim());
      }}
    >
      <h3 id={`${uid}-title`}>Register a webhook URL</h3>
      <label htmlFor={`${uid}-agent`}>Agent</label>
      <select
        id={`${uid}-agent`}
        value={chosen ? agentKey(chosen.teamId, chosen.agentId) : ''}
        onChange={(e) => setAgent(e.target.value)}
      >
        {agents.map((a) => (
          <option key={agentKey(a.teamId, a.agentId)} value={agentKey(a.teamId, a.agentId)}>
            {nameWords(names(a.teamId, a.agentId))}
          </option>
        ))}
      </select>
      <label htmlFor={`${uid}-url`}>Webhook URL</label>
      <input
        id={`${uid}-url`}
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://example.ngrok.app/hooks/my-agent"
        aria-invalid={problem !== null}
        aria-describedby={`${uid}-url-hint`}
      />
      <span id={`${uid}-url-hint`} className={problem ? 'error' : 'hint'}>
        {problem ??
          (hub !== null
            ? 'Where the service can reach the app that receives the deliveries (the team hub’s hook URLs above are copied with one click).'
            : 'Where the service can reach this computer; the hook URLs above are copied with one click.')}
      </span>
      <div className="actions">
        <button
          type="submit"
          disabled={!chosen || !url.trim() || problem !== null || confirming !== null || !gate.allowed}
          {...gate.props}
        >
          Register
        </button>
      </div>
      {gate.note}
      {confirming !== null && chosen && (
        <ConfirmTakeover
          who={nameWords(names(chosen.teamId, chosen.agentId))}
          url={confirming}
          takeover={
            known?.takeover ??
            'The service keeps one webhook URL per agent: the one it has now stops receiving its deliveries. The service issues a new signing secret; the previous one stops working.'
          }
          busy={busy}
          onConfirm={() => void doRegister(confirming)}
          onCancel={() => setConfirming(null)}
        />
      )}
      {note && <p role="status">{note}</p>}
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
