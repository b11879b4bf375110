// "New conversation": an agent and a phone number. The number is checked as typed (the console's
// rules), then with the service's contact check; a number not on WhatsApp is said plainly and
// nothing is sent; one on WhatsApp opens its thread (empty, with the composer). Nothing is ever sent
// from here.
import { useId, useState, type FormEvent } from 'react';
import type { AgentDTO, ErrorDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { errorLine } from '../../components/errors';
import { messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { checkRecipient } from '../console/recipient';

type Outcome = { phone: string; notOnWhatsApp: true } | { phone: string; error: ErrorDTO } | null;

interface Props {
  agents: readonly Pick<AgentDTO, 'teamId' | 'agentId' | 'label'>[];
  /** agentKey of the agent to start with ('' when none is picked). */
  picked: string;
  onClose(): void;
}

export function NewConversation({ agents, picked, onClose }: Props) {
  const check = useApp((s) => s.checkContact);
  const uid = useId();
  const [who, setWho] = useState(
    picked || (agents.length === 1 ? agentKey(agents[0]!.teamId, agents[0]!.agentId) : ''),
  );
  const [number, setNumber] = useState('');
  const [typedWrong, setTypedWrong] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const agent = agents.find((a) => agentKey(a.teamId, a.agentId) === who);
  const gate = useGate('contacts.check');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!gate.allowed) return;
    setOutcome(null);
    if (!agent) {
      setTypedWrong('Choose the agent to write from.');
      return;
    }
    const r = checkRecipient(number);
    if (!r.ok) {
      setTypedWrong(r.message);
      return;
    }
    if (r.kind === 'group-jid') {
      setTypedWrong('A new conversation starts with a phone number; a group cannot be checked.');
      return;
    }
    setTypedWrong(null);
    setChecking(true);
    const res = await check(agent.teamId, agent.agentId, r.value);
    setChecking(false);
    if (!res.ok) setOutcome({ phone: r.value, error: res.error });
    else if (!res.value.exists) setOutcome({ phone: r.value, notOnWhatsApp: true });
    else {
      onClose();
      // A person's JID is the same contact as its +digits.
      const contact = r.kind === 'phone' ? r.value : `+${r.value.slice(0, r.value.indexOf('@'))}`;
      window.location.hash = messagesHref(agent.teamId, agent.agentId, contact);
    }
  };

  return (
    <form className="messages-new" aria-label="New conversation" onSubmit={(e) => void submit(e)} noValidate>
      <label htmlFor={`${uid}-agent`}>From agent</label>
      <select id={`${uid}-agent`} value={who} onChange={(e) => setWho(e.target.value)}>
        <option value="">Choose an agent</option>
        {agents.map((a) => (
          <option key={agentKey(a.teamId, a.agentId)} value={agentKey(a.teamId, a.agentId)}>
            {a.label}
          </option>
        ))}
      </select>
      <label htmlFor={`${uid}-number`}>Phone number (with country code)</label>
      <input
        id={`${uid}-number`}
        value={number}
        placeholder="+1 555 010 2000"
        autoComplete="off"
        aria-invalid={typedWrong !== null}
        aria-describedby={typedWrong ? `${uid}-wrong` : undefined}
        onChange={(e) => {
          setNumber(e.target.value);
          setTypedWrong(null);
          setOutcome(null);
        }}
      />
      {typedWrong && (
        <p id={`${uid}-wrong`} role="alert" className="error">
          {typedWrong}
        </p>
      )}
      {outcome && 'notOnWhatsApp' in outcome && (
        <p role="alert" className="contact-no">
          <strong>{outcome.phone} is not on WhatsApp.</strong> Nothing was sent: a message to it would not arrive.
        </p>
      )}
      {outcome && 'error' in outcome && (
        <p role="alert" className="error">
          The contact check failed — {errorLine(outcome.error)} Nothing was sent.
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={checking || !gate.allowed} {...gate.props}>
          {checking ? 'Checking…' : 'Check and open'}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
      {gate.note}
    </form>
  );
}
