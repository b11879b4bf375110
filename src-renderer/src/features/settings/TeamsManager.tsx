// Teams and keys: each team with its key hint (never the key), its agents (add/remove), remove
// the team; add another team.
import { useId, useState, type FormEvent } from 'react';
import type { ErrorDTO, TeamDTO } from '../../../../src-shared/contract';
import { LABEL_MAX_LENGTH } from '../../../../src-shared/limits';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { TeamForm } from '../onboarding/TeamForm';

/** The message an empty Agent ID gets (the form sends nothing then). */
const AGENT_ID_MISSING = 'Give the agent ID from the dashboard, e.g. agent-support.';

function AddAgent({ team }: { team: TeamDTO }) {
  const add = useApp((s) => s.addAgent);
  const [agentId, setAgentId] = useState('');
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [missing, setMissing] = useState(false);
  const ids = { id: useId(), label: useId(), err: useId(), missing: useId() };
  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (agentId.trim() === '') {
      setMissing(true);
      setError(null);
      document.getElementById(ids.id)?.focus();
      return;
    }
    setBusy(true);
    const e = await add(team.teamId, agentId.trim(), label.trim() || undefined);
    setBusy(false);
    setError(e);
    if (!e) {
      setAgentId('');
      setLabel('');
    }
  };
  const describedBy = [missing ? ids.missing : null, error ? ids.err : null].filter(Boolean).join(' ') || undefined;
  // An error about the label marks the label; any other one, the agent ID.
  const labelWrong = error?.field === 'label';
  return (
    <form className="form" onSubmit={(e) => void onSubmit(e)} aria-label={`Add an agent to ${team.label}`} aria-busy={busy} noValidate>
      <label htmlFor={ids.id}>Agent ID</label>
      <input
        id={ids.id}
        value={agentId}
        onChange={(e) => {
          setAgentId(e.target.value);
          setMissing(false);
        }}
        aria-required="true"
        autoComplete="off"
        aria-invalid={(error && !labelWrong) || missing ? true : undefined}
        aria-describedby={labelWrong ? undefined : describedBy}
      />
      {missing && (
        <p id={ids.missing} className="field-error">
          {AGENT_ID_MISSING}
        </p>
      )}
      <label htmlFor={ids.label}>Label (optional)</label>
      <input
        id={ids.label}
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        maxLength={LABEL_MAX_LENGTH}
        autoComplete="off"
        aria-invalid={labelWrong ? true : undefined}
        aria-describedby={labelWrong ? ids.err : undefined}
      />
      {error && <ErrorNotice id={ids.err} error={error} context="adding" />}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add agent'}
        </button>
      </div>
    </form>
  );
}

/** A remove button that asks once more, inline. */
function ConfirmRemove({ what, onConfirm, text = 'Remove' }: { what: string; onConfirm: () => Promise<ErrorDTO | null>; text?: string }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (!asking)
    return (
      <button type="button" className="secondary small danger" onClick={() => setAsking(true)} aria-label={`Remove ${what}`}>
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
          {team.keyRejected && <strong className="error"> — rejected by the service (key rejected). Add the team again with a current key.</strong>}
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
        <ConfirmRemove what={`team ${team.label} and its key`} text="Remove team…" onConfirm={() => removeTeam(team.teamId)} />
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
