// Teams and keys: each team with its key hint (never the key), its agents (add/remove), edit the
// team in place (name, address, key: its id and history stay), remove the team; add another team
// (once added, its card comes into view and says so). An agent reads by its label, with its id
// beside it only when the two differ.
import { useEffect, useRef, useState } from 'react';
import type { ErrorDTO, RequestName, TeamDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { TeamForm } from '../onboarding/TeamForm';
import { AddAgent } from './AddAgentForm';
import { EditTeamForm } from './EditTeamForm';

/** A remove button that asks once more, inline. */
function ConfirmRemove({
  what,
  onConfirm,
  text = 'Remove',
  request,
}: {
  what: string;
  onConfirm: () => Promise<ErrorDTO | null>;
  text?: string;
  /** The request it makes, for the member's role on a hub (useAllowed). */
  request: RequestName;
}) {
  const gate = useGate(request);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (!asking)
    return (
      <>
        <button
          type="button"
          className="secondary small danger"
          onClick={() => setAsking(true)}
          aria-label={`Remove ${what}`}
          disabled={!gate.allowed}
          {...gate.props}
        >
          {text}
        </button>
        {gate.hiddenNote}
      </>
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

function TeamCard({ team, added }: { team: TeamDTO; added: boolean }) {
  const removeTeam = useApp((s) => s.removeTeam);
  const removeAgent = useApp((s) => s.removeAgent);
  const agents = useApp((s) => s.agents);
  const card = useRef<HTMLElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const editGate = useGate('teams.update');
  const onHub = useApp((s) => s.hub !== null && s.hub.member !== null);
  useEffect(() => {
    if (!added || !card.current) return;
    card.current.scrollIntoView?.({ block: 'start' });
    card.current.focus({ preventScroll: true });
  }, [added]);
  const count = team.agentIds.length;
  return (
    <article className="card" aria-label={`Team ${team.label}`} ref={card} tabIndex={added ? -1 : undefined}>
      <h4>{team.label}</h4>
      {added && (
        <p className="team-added" role="status">
          Team {team.label} added{count > 0 ? ` with ${count} agent${count === 1 ? '' : 's'}` : ''}.{' '}
          {onHub ? 'Its key is kept by the team hub, encrypted.' : 'Its key is in the system keychain.'}
        </p>
      )}
      <p className="sr-only" role="status">
        {saved ? `Team ${team.label} saved.` : ''}
      </p>
      {editing ? (
        <EditTeamForm
          team={team}
          onDone={(ok) => {
            setEditing(false);
            setSaved(ok);
            // Back to the button that opened the form once it is there again.
            requestAnimationFrame(() => editButton.current?.focus());
          }}
        />
      ) : (
        <dl className="fields">
          <dt>Service address</dt>
          <dd>{team.baseUrl}</dd>
          <dt>API key</dt>
          <dd>
            {team.keyHint}
            {team.keyRejected && (
              <strong className="error">
                {' '}
                — rejected by the service (key rejected). Edit the team and give its current key.
              </strong>
            )}
          </dd>
        </dl>
      )}
      <h5>Agents</h5>
      {team.agentIds.length === 0 ? (
        <p className="muted">No agents yet.</p>
      ) : (
        <ul className="plain">
          {team.agentIds.map((id) => {
            const label = agents[agentKey(team.teamId, id)]?.label ?? id;
            return (
              <li key={id}>
                <a href={agentHref(team.teamId, id)}>{label}</a>
                {label !== id && <span className="muted"> ({id})</span>}{' '}
                <ConfirmRemove
                  what={`agent ${label}`}
                  onConfirm={() => removeAgent(team.teamId, id)}
                  request="agents.remove"
                />
              </li>
            );
          })}
        </ul>
      )}
      <AddAgent team={team} />
      <div className="actions">
        {!editing && (
          <button
            type="button"
            className="secondary small"
            ref={editButton}
            onClick={() => {
              setSaved(false);
              setEditing(true);
            }}
            aria-label={`Edit team ${team.label}`}
            disabled={!editGate.allowed}
            {...editGate.props}
          >
            Edit team…
          </button>
        )}
        {!editing && editGate.hiddenNote}
        <ConfirmRemove
          what={`team ${team.label} and its key`}
          text="Remove team…"
          onConfirm={() => removeTeam(team.teamId)}
          request="teams.remove"
        />
      </div>
    </article>
  );
}

export function TeamsManager() {
  const teams = useApp((s) => s.teams);
  const [adding, setAdding] = useState(false);
  // The teams there were when the form opened: the one that is new after it closes was just added.
  const before = useRef<ReadonlySet<string>>(new Set());
  const [added, setAdded] = useState<string | null>(null);
  const [looking, setLooking] = useState(false);
  const gate = useGate('teams.add');
  useEffect(() => {
    if (!looking) return;
    const fresh = teams.find((t) => !before.current.has(t.teamId));
    if (!fresh) return;
    setLooking(false);
    setAdded(fresh.teamId);
  }, [looking, teams]);
  return (
    <section aria-labelledby="teams-title">
      <h3 id="teams-title">Teams and keys</h3>
      {teams.map((t) => (
        <TeamCard key={t.teamId} team={t} added={t.teamId === added} />
      ))}
      {adding ? (
        <div className="card">
          <h4>Add a team</h4>
          <TeamForm
            onDone={() => {
              setAdding(false);
              setLooking(true);
            }}
            extraActions={() => (
              <button type="button" className="secondary" onClick={() => setAdding(false)}>
                Cancel
              </button>
            )}
          />
        </div>
      ) : (
        <div className="actions section-end">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              before.current = new Set(teams.map((t) => t.teamId));
              setAdded(null);
              setAdding(true);
            }}
            disabled={!gate.allowed}
            {...gate.props}
          >
            Add a team…
          </button>
          {gate.note}
        </div>
      )}
    </section>
  );
}
