// The form that adds an agent to a team (its ID from the dashboard, an optional label), in Settings
// and on the home screen.
import { useId, useState, type FormEvent } from 'react';
import type { ErrorDTO, TeamDTO } from '../../../../src-shared/contract';
import { LABEL_MAX_LENGTH } from '../../../../src-shared/limits';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

/** The message an empty Agent ID gets (the form sends nothing then). */
const AGENT_ID_MISSING = 'Give the agent ID from the dashboard, e.g. agent-support.';

/** Adds an agent to a team; `onAdded` hears its id once the service side accepted it. */
export function AddAgent({ team, onAdded }: { team: TeamDTO; onAdded?: (agentId: string) => void }) {
  const add = useApp((s) => s.addAgent);
  const [agentId, setAgentId] = useState('');
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [missing, setMissing] = useState(false);
  const gate = useGate('agents.add');
  const ids = { id: useId(), label: useId(), err: useId(), missing: useId() };
  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!gate.allowed) return;
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
      onAdded?.(agentId.trim());
    }
  };
  const describedBy = [missing ? ids.missing : null, error ? ids.err : null].filter(Boolean).join(' ') || undefined;
  // An error about the label marks the label; any other one, the agent ID.
  const labelWrong = error?.field === 'label';
  return (
    <form
      className="form"
      onSubmit={(e) => void onSubmit(e)}
      aria-label={`Add an agent to ${team.label}`}
      aria-busy={busy}
      noValidate
    >
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
        <button type="submit" disabled={busy || !gate.allowed} {...gate.props}>
          {busy ? 'Adding…' : 'Add agent'}
        </button>
      </div>
      {gate.note}
    </form>
  );
}
