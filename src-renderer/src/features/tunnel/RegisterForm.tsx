// Register any URL as an agent's webhook (the service answers with its mode and URL): for a tunnel
// you run yourself, or to point an agent elsewhere after an exposure was stopped.
import { useId, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
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
  const chosen = agents.find((a) => agentKey(a.teamId, a.agentId) === agent) ?? agents[0];
  const problem = urlProblem(url);
  return (
    <form
      className="form"
      aria-labelledby={`${uid}-title`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (!chosen || problem || !url.trim()) return;
        const r = await register(chosen.teamId, chosen.agentId, url.trim());
        setError(r.ok ? null : r.error);
        setNote(r.ok ? `Registered for ${nameWords(names(chosen.teamId, chosen.agentId))}: mode ${r.value.mode}, URL ${r.value.url}.` : null);
      }}
    >
      <h3 id={`${uid}-title`}>Register a webhook URL</h3>
      <label htmlFor={`${uid}-agent`}>Agent</label>
      <select id={`${uid}-agent`} value={chosen ? agentKey(chosen.teamId, chosen.agentId) : ''} onChange={(e) => setAgent(e.target.value)}>
        {agents.map((a) => (
          <option key={agentKey(a.teamId, a.agentId)} value={agentKey(a.teamId, a.agentId)}>
            {nameWords(names(a.teamId, a.agentId))}
          </option>
        ))}
      </select>
      <label htmlFor={`${uid}-url`}>Webhook URL</label>
      <input id={`${uid}-url`} type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.ngrok.app/hooks/my-agent" aria-invalid={problem !== null} aria-describedby={`${uid}-url-hint`} />
      <span id={`${uid}-url-hint`} className={problem ? 'error' : 'hint'}>
        {problem ?? 'Where the service can reach this computer; the hook URLs above are copied with one click.'}
      </span>
      <div className="actions">
        <button type="submit" disabled={!chosen || !url.trim() || problem !== null}>
          Register
        </button>
      </div>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
