// Teams and keys: each team with its key hint (never the key), its agents (add/remove), remove
// the team; add another team.
import { useState } from 'react';
import type { ErrorDTO, TeamDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { TeamForm } from '../onboarding/TeamForm';
import { AddAgent } from './AddAgentForm';

/** A remove button that asks once more, inline. */
function ConfirmRemove({
  what,
  onConfirm,
  text = 'Remove',
}: {
  what: string;
  onConfirm: () => Promise<ErrorDTO | null>;
  text?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (!asking)
    return (
      <button
        type="button"
        className="secondary small danger"
        onClick={() => setAsking(true)}
        aria-label={`Remove ${what}`}
      >
        {text}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={`Remove ${what}?`}>
      <span>Remove {what}?</span>
      <button
        type="button"
        className="small danger"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void onConfirm().then((e) => {
            setBusy(false);
            setError(e);
            if (!e) setAsking(false);
          });
        }}
      >
        {busy ? 'Removing…' : 'Yes, remove'}
      </button>
      <button type="button" className="secondary small" onClick={() => setAsking(false)} autoFocus>
        Cancel
      </button>
      {error && <ErrorNotice error={error} />}
    </span>
  );
}

function TeamCard({ team }: { team: TeamDTO }) {
  const removeTeam = useApp((s) => s.removeTeam);
  const removeAgent = useApp((s) => s.removeAgent);
  const agents = useApp((s) => s.agents);
  return (
    <article className="card" aria-label={`Team ${team.label}`}>
      <h4>{team.label}</h4>
      <dl className="fields">
        <dt>Service address</dt>
        <dd>{team.baseUrl}</dd>
        <dt>API key</dt>
        <dd>
          {team.keyHint}
          {team.keyRejected && (
            <strong className="error">
              {' '}
              — rejected by the service (key rejected). Add the team again with a current key.
            </strong>
          )}
        </dd>
      </dl>
      <h5>Agents</h5>
      {team.agentIds.length === 0 ? (
        <p className="muted">No agents yet.</p>
      ) : (
        <ul className="plain">
          {team.agentIds.map((id) => {
            const label = agents[agentKey(team.teamId, id)]?.label ?? id;
            return (
              <li key={id}>
                <a href={agentHref(team.teamId, id)}>{label}</a> <span className="muted">({id})</span>{' '}
                <ConfirmRemove what={`agent ${label}`} onConfirm={() => removeAgent(team.teamId, id)} />
              </li>
            );
          })}
        </ul>
      )}
      <AddAgent team={team} />
      <div className="actions">
        <ConfirmRemove
          what={`team ${team.label} and its key`}
          text="Remove team…"
          onConfirm={() => removeTeam(team.teamId)}
        />
      </div>
    </article>
  );
}

export function TeamsManager() {
  const teams = useApp((s) => s.teams);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="teams-title">
      <h3 id="teams-title">Teams and keys</h3>
      {teams.map((t) => (
        <TeamCard key={t.teamId} team={t} />
      ))}
      {adding ? (
        <div className="card">
          <h4>Add a team</h4>
          <TeamForm
            onDone={() => setAdding(false)}
            extraActions={() => (
              <button type="button" className="secondary" onClick={() => setAdding(false)}>
                Cancel
              </button>
            )}
          />
        </div>
      ) : (
        <div className="actions section-end">
          <button type="button" className="secondary" onClick={() => setAdding(true)}>
            Add a team…
          </button>
        </div>
      )}
    </section>
  );
}
