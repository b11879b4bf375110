// Each agent's full hook URLs with copy buttons: on the local receiver, and at the public URL while
// one is up; where the service sends its deliveries now; and the one-click registrations: "Register
// this receiver" when the team's service runs on this machine (the emulator), "Register the public
// URL" while one is up.
import { useState } from 'react';
import type { ErrorDTO, TunnelAgentDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { CopyButton } from './CopyButton';
import { nameWords, useNames } from './names';
import { NO_AGENTS, POINTING_WORDS, pointingOf, serviceOnThisMachine } from './urls';

function UrlLine({ label, url, what }: { label: string; url: string | null; what: string }) {
  return (
    <span className="url-line">
      <span className="url-kind">{label}</span>
      {url ? (
        <>
          <code className="url">{url}</code>
          <CopyButton text={url} what={what} />
        </>
      ) : (
        <span className="muted">{label === 'Public' ? 'not exposed' : 'not listening'}</span>
      )}
    </span>
  );
}

function AgentRow({ a }: { a: TunnelAgentDTO }) {
  const exposure = useApp((s) => s.tunnelStatus?.exposure);
  const team = useApp((s) => s.teams.find((t) => t.teamId === a.teamId));
  const register = useApp((s) => s.registerWebhook);
  const names = useNames();
  const n = names(a.teamId, a.agentId);
  const who = nameWords(n);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const pointing = pointingOf(a, exposure);
  const doRegister = async (url: string) => {
    setBusy(true);
    const r = await register(a.teamId, a.agentId, url);
    setBusy(false);
    setError(r.ok ? null : r.error);
  };
  return (
    <tr>
      <th scope="row">
        <span className="agent-name">{n.agent}</span>
        {n.team && <span className="muted team-name">{n.team}</span>}
      </th>
      <td className="hook-url-cell">
        <UrlLine label="Local" url={a.receiverUrl} what={`the local hook URL of ${who}`} />
        {(a.exposedUrl || exposure?.state === 'up') && <UrlLine label="Public" url={a.exposedUrl} what={`the public hook URL of ${who}`} />}
      </td>
      <td>
        <span className={pointing === 'dead-exposure' ? 'error' : pointing === 'none' || pointing === 'elsewhere' ? 'muted' : undefined}>{POINTING_WORDS[pointing]}</span>
        {!a.hasSecret && <span className="muted small-print">, no signing secret yet</span>}
        {(pointing === 'elsewhere' || pointing === 'dead-exposure') && a.publicUrl && (
          <>
            <br />
            <code className="url small-print">{a.publicUrl}</code>
          </>
        )}
        {error && <ErrorNotice error={error} />}
      </td>
      <td className="row-actions">
        {serviceOnThisMachine(team) && a.receiverUrl && pointing !== 'receiver' && (
          <button type="button" className="secondary small" disabled={busy} onClick={() => void doRegister(a.receiverUrl!)} aria-label={`Register this receiver for ${who}`}>
            Register this receiver
          </button>
        )}
        {a.exposedUrl && pointing !== 'exposed' && (
          <button type="button" className="secondary small" disabled={busy} onClick={() => void doRegister(a.exposedUrl!)} aria-label={`Register the public URL for ${who}`}>
            Register the public URL
          </button>
        )}
      </td>
    </tr>
  );
}

export function HookUrls() {
  const agents = useApp((s) => s.tunnelStatus?.agents ?? NO_AGENTS);
  if (agents.length === 0) return <p className="muted">No agents yet: add a team to receive its deliveries here.</p>;
  return (
    <table className="hook-urls">
      <caption className="sr-only">Hook URLs of each agent</caption>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Hook URLs</th>
          <th scope="col">The service sends to</th>
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {agents.map((a) => (
          <AgentRow key={agentKey(a.teamId, a.agentId)} a={a} />
        ))}
      </tbody>
    </table>
  );
}
