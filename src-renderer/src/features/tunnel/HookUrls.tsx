// Each agent's full hook URLs with copy buttons: on the local receiver, and at the public URL while
// one is up; what this install knows of where the service sends its deliveries (registered here,
// by this install elsewhere, a registration of this receiver it no longer reaches, or unknown: the
// service cannot tell); the registrations, each after a confirm step that names the URL that stops
// receiving: "Register this receiver" when the team's service runs on this machine (the emulator),
// "Register the public URL" while one is up; and the agent's registration history. Connected to a team hub,
// an agent's hook URL is the hub's (under its public URL), and the offer points the webhook there.
import { Fragment, useState } from 'react';
import { useConnectedHub } from '../../components/allowed';
import { formatClock } from '../../components/time';
import type { TunnelAgentDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ConfirmTakeover } from './ConfirmTakeover';
import { CopyButton } from './CopyButton';
import { nameWords, useNames } from './names';
import { RegisterButtons } from './RegisterButtons';
import { useRegisterOffer } from './useRegisterOffer';
import { hubHookUrl, NO_AGENTS, REGISTRATION_TONE } from './urls';
import { WebhookHistory } from './WebhookHistory';

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
        <span className="muted">
          {label === 'Hub' ? 'the hub has no public URL' : label === 'Public' ? 'not exposed' : 'not listening'}
        </span>
      )}
    </span>
  );
}

function AgentRow({ a }: { a: TunnelAgentDTO }) {
  const exposure = useApp((s) => s.tunnelStatus?.exposure);
  const hub = useConnectedHub();
  const names = useNames();
  const n = names(a.teamId, a.agentId);
  const who = nameWords(n);
  const offer = useRegisterOffer(a);
  const { busy, error, confirming, ask, confirm } = offer;
  const [historyOpen, setHistoryOpen] = useState(false);
  const reg = a.registration;
  return (
    <Fragment>
      <tr>
        <th scope="row">
          <span className="agent-name">{n.agent}</span>
          {n.team && <span className="muted team-name">{n.team}</span>}
        </th>
        <td className="hook-url-cell">
          {hub !== null ? (
            <UrlLine label="Hub" url={hubHookUrl(hub, a.agentId)} what={`the team hub's hook URL of ${who}`} />
          ) : (
            <>
              <UrlLine label="Local" url={a.receiverUrl} what={`the local hook URL of ${who}`} />
              {(a.exposedUrl || exposure?.state === 'up') && (
                <UrlLine label="Public" url={a.exposedUrl} what={`the public hook URL of ${who}`} />
              )}
            </>
          )}
        </td>
        <td className="registration-cell">
          <span className={REGISTRATION_TONE[reg.state]}>
            {hub !== null && reg.state === 'here' && reg.last !== null
              ? `pointed at the team hub (${formatClock(reg.last.at)})`
              : reg.text}
          </span>
          {!a.hasSecret && <span className="muted small-print">, no signing secret yet</span>}
          {error && <ErrorNotice error={error} />}
          {confirming !== null && (
            <ConfirmTakeover
              who={who}
              url={confirming}
              takeover={reg.takeover}
              busy={busy}
              onConfirm={() => void confirm(confirming)}
              onCancel={() => ask(null)}
            />
          )}
        </td>
        <td className="row-actions">
          <RegisterButtons offer={offer} who={who} />
          <button
            type="button"
            className="secondary small"
            aria-expanded={historyOpen}
            onClick={() => setHistoryOpen((o) => !o)}
            aria-label={`Registration history of ${who}`}
          >
            History
          </button>
        </td>
      </tr>
      {historyOpen && (
        <tr className="history-row">
          <td colSpan={4}>
            <WebhookHistory teamId={a.teamId} agentId={a.agentId} who={who} registration={reg} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}

export function HookUrls() {
  const agents = useApp((s) => s.tunnelStatus?.agents ?? NO_AGENTS);
  const hub = useConnectedHub();
  if (agents.length === 0)
    return (
      <p className="muted">
        {hub !== null
          ? 'The team hub has no agents yet: a hub admin adds a team.'
          : 'No agents yet: add a team to receive its deliveries here.'}
      </p>
    );
  return (
    <table className="hook-urls">
      <caption className="sr-only">Hook URLs of each agent</caption>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Hook URLs</th>
          <th scope="col">Registered</th>
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
