// An agent's labels: the chips of its row on the Agents screen (the first few, then how many more), and the
// editor on its page (a chip per label with a button that takes it away, a field that adds one or several).
// A label is normalised as the store keeps it (src-shared/agent-labels.ts); one that breaks the rule is said
// under the field and nothing is sent.
import { useId, useState, type FormEvent } from 'react';
import {
  AGENT_LABEL_RULE,
  AGENT_LABELS_MAX,
  normaliseAgentLabels,
  splitAgentLabels,
} from '../../../../src-shared/agent-labels';
import type { AgentDTO, ErrorDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import './labels.css';

/** A row shows this many labels, then "+N". */
const ROW_CHIPS = 3;

export function LabelChips({ labels }: { labels: readonly string[] }) {
  if (labels.length === 0) return null;
  const shown = labels.slice(0, ROW_CHIPS);
  const more = labels.length - shown.length;
  return (
    <ul className="label-chips" aria-label={`Labels: ${labels.join(', ')}`} title={labels.join(', ')}>
      {shown.map((l) => (
        <li key={l} className="label-chip" aria-hidden="true">
          {l}
        </li>
      ))}
      {more > 0 && (
        <li className="label-chip" aria-hidden="true">
          +{more}
        </li>
      )}
    </ul>
  );
}

/**
 * The agent's labels on its page: take one away, add one or several (commas or spaces between them). On a hub
 * whose role for the member does not allow agents.setLabels, the controls stay in view, disabled, saying why.
 */
export function AgentLabelsEditor({ agent }: { agent: AgentDTO }) {
  const setLabels = useApp((s) => s.setAgentLabels);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const gate = useGate('agents.setLabels');
  const id = useId();
  const save = async (change: { add?: string[]; remove?: string[] }): Promise<boolean> => {
    setBusy(true);
    const e = await setLabels(agent.teamId, agent.agentId, change);
    setBusy(false);
    setError(e);
    return e === null;
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const r = normaliseAgentLabels(splitAgentLabels([text]));
    if (!r.ok) return setProblem(`${r.problem.charAt(0).toUpperCase()}${r.problem.slice(1)}.`);
    if (r.labels.length === 0) return setProblem('Type a label to add.');
    const count = new Set([...agent.labels, ...r.labels]).size;
    if (count > AGENT_LABELS_MAX) return setProblem(`An agent has at most ${AGENT_LABELS_MAX} labels.`);
    setProblem(null);
    if (await save({ add: r.labels })) setText('');
  };
  return (
    <section className="card agent-labels-editor" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Labels</h3>
      {agent.labels.length === 0 ? (
        <p className="muted">No labels yet. Labels let you filter the Agents screen (billing, eu-west, tier.1…).</p>
      ) : (
        <ul className="label-chips" aria-label="Labels of this agent">
          {agent.labels.map((l) => (
            <li key={l} className="label-chip">
              {l}
              <button
                type="button"
                aria-label={`Remove label ${l}`}
                title={`Remove label ${l}`}
                disabled={busy || !gate.allowed}
                aria-describedby={gate.describedBy()}
                onClick={() => void save({ remove: [l] })}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="label-add" onSubmit={(e) => void add(e)} noValidate>
        <label htmlFor={`${id}-new`}>Add labels</label>
        <input
          id={`${id}-new`}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
          placeholder="billing, eu-west"
          autoComplete="off"
          spellCheck={false}
          disabled={!gate.allowed}
          aria-invalid={problem !== null}
          aria-describedby={gate.describedBy(`${id}-hint`)}
        />
        <button type="submit" className="secondary small" disabled={busy || !gate.allowed} {...gate.props}>
          Add
        </button>
      </form>
      <p id={`${id}-hint`} className={problem ? 'hint error' : 'hint'} role={problem ? 'alert' : undefined}>
        {problem ?? `Each label ${AGENT_LABEL_RULE}; at most ${AGENT_LABELS_MAX}.`}
      </p>
      {gate.note}
      {error && <ErrorNotice error={error} />}
    </section>
  );
}
