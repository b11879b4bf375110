// Simulate an inbound message (text, image or document) as if the service had delivered it.
import { useId, useState } from 'react';
import type { ErrorDTO, SimulateArgs } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { nameWords, useNames } from './names';

export function SimulateForm({ agents }: { agents: { teamId: string; agentId: string }[] }) {
  const simulate = useApp((s) => s.simulateDelivery);
  const names = useNames();
  const uid = useId();
  const [agent, setAgent] = useState('');
  const [type, setType] = useState<SimulateArgs['type']>('text');
  const [from, setFrom] = useState('15550102000');
  const [text, setText] = useState('');
  const [mediaUrl, setMediaUrl] = useState('');
  const [filename, setFilename] = useState('');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const chosen = agents.find((a) => agentKey(a.teamId, a.agentId) === agent) ?? agents[0];

  const gate = useGate('tunnel.simulate');
  const submit = async () => {
    if (!chosen || !gate.allowed) return;
    const args: SimulateArgs = { teamId: chosen.teamId, agentId: chosen.agentId, type, from: from.trim() };
    if (type === 'text') args.text = text;
    else {
      if (text) args.caption = text;
      if (mediaUrl.trim()) args.mediaUrl = mediaUrl.trim();
      if (type === 'document' && filename.trim()) args.filename = filename.trim();
    }
    const r = await simulate(args);
    if (!r.ok) {
      setError(r.error);
      setNote(null);
      return;
    }
    setError(null);
    setNote(`Simulated ${type} message ${r.value.messageId ?? r.value.id} from ${r.value.from ?? from}.`);
  };

  return (
    <form
      className="form simulate"
      aria-labelledby={`${uid}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 id={`${uid}-title`}>Simulate an inbound message</h3>
      {agents.length === 0 && <p className="muted">No agents known to the tunnel yet.</p>}
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
      <label htmlFor={`${uid}-type`}>Message type</label>
      <select id={`${uid}-type`} value={type} onChange={(e) => setType(e.target.value as SimulateArgs['type'])}>
        <option value="text">Text</option>
        <option value="image">Image</option>
        <option value="document">Document</option>
      </select>
      <label htmlFor={`${uid}-from`}>From (number)</label>
      <input id={`${uid}-from`} value={from} onChange={(e) => setFrom(e.target.value)} />
      <label htmlFor={`${uid}-text`}>{type === 'text' ? 'Text' : 'Caption'}</label>
      <input id={`${uid}-text`} value={text} onChange={(e) => setText(e.target.value)} />
      {type !== 'text' && (
        <>
          <label htmlFor={`${uid}-media`}>Media URL (optional)</label>
          <input id={`${uid}-media`} type="url" value={mediaUrl} onChange={(e) => setMediaUrl(e.target.value)} />
        </>
      )}
      {type === 'document' && (
        <>
          <label htmlFor={`${uid}-filename`}>File name</label>
          <input id={`${uid}-filename`} value={filename} onChange={(e) => setFilename(e.target.value)} />
        </>
      )}
      <div className="actions">
        <button type="submit" disabled={!chosen || !from.trim() || !gate.allowed} {...gate.props}>
          Simulate
        </button>
      </div>
      {gate.note}
      {note && <p role="status">{note}</p>}
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
