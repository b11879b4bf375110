// The send console: text, image URL + caption, or document URL + file name to a number validated
// as typed; a contact check one keystroke away (Alt+C); the send budget and queue; what each
// failure means; a history of sends. Nothing typed is lost on error.
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ContactCheckDTO, ErrorDTO, SendArgs } from '../../../../src-shared/contract';
import { useApp } from '../../store/react';
import { describeError } from './error-words';
import { checkRecipient } from './recipient';
import { SendError, errorField } from './SendError';
import { SendHistory, progressWords } from './SendHistory';
import { SendMeter } from './SendMeter';
import './console.css';

type Kind = 'text' | 'image' | 'document';

function Pickers({ teamId, agentId, onTeam, onAgent }: { teamId: string; agentId: string; onTeam(t: string): void; onAgent(a: string): void }) {
  const teams = useApp((s) => s.teams);
  const team = teams.find((t) => t.teamId === teamId);
  return (
    <div className="console-pickers">
      <label>
        Team{' '}
        <select value={teamId} onChange={(e) => onTeam(e.target.value)}>
          <option value="">Choose a team</option>
          {teams.map((t) => (
            <option key={t.teamId} value={t.teamId}>
              {t.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Agent{' '}
        <select value={agentId} onChange={(e) => onAgent(e.target.value)} disabled={!team}>
          <option value="">Choose an agent</option>
          {team?.agentIds.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

export function ConsoleScreen(props: { teamId?: string; agentId?: string }) {
  const [teamId, setTeamId] = useState(props.teamId ?? '');
  const [agentId, setAgentId] = useState(props.agentId ?? '');
  const send = useApp((s) => s.sendMessage);
  const check = useApp((s) => s.checkContact);
  const history = useApp((s) => s.sendHistory);
  const uid = useId();
  const [kind, setKind] = useState<Kind>('text');
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [filename, setFilename] = useState('');
  const [sendingRef, setSendingRef] = useState<string | null>(null);
  const [error, setError] = useState<{ e: ErrorDTO; ref: string } | null>(null);
  const [contact, setContact] = useState<{ to: string; r: ContactCheckDTO } | { to: string; e: ErrorDTO } | null>(null);
  const [checking, setChecking] = useState(false);

  const recipient = to.trim() === '' ? null : checkRecipient(to);
  const inFlight = history.find((r) => r.clientRef === sendingRef);
  const ready = Boolean(teamId && agentId);
  const field = error ? errorField(error.e) : null;

  const doCheck = async () => {
    if (!ready || !recipient?.ok || recipient.kind === 'group-jid') return;
    setChecking(true);
    const r = await check(teamId, agentId, recipient.value);
    setChecking(false);
    setContact(r.ok ? { to: recipient.value, r: r.value } : { to: recipient.value, e: r.error });
  };

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!ready || !recipient?.ok || sendingRef) return;
    const args: SendArgs = { teamId, agentId, to: recipient.value };
    if (kind === 'text') {
      if (!text.trim()) return;
      args.text = text;
    } else if (kind === 'image') {
      if (!url.trim()) return;
      args.imageUrl = url.trim();
      if (text.trim()) args.text = text;
    } else {
      if (!url.trim()) return;
      args.documentUrl = url.trim();
      if (filename.trim()) args.documentFilename = filename.trim();
    }
    const clientRef = `send-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    setSendingRef(clientRef);
    setError(null);
    const r = await send({ ...args, clientRef });
    setSendingRef(null);
    if (r.ok) {
      setText('');
      setUrl('');
      setFilename('');
    } else {
      setError({ e: r.error, ref: clientRef });
    }
  };

  const onKeys = (e: KeyboardEvent<HTMLElement>) => {
    if (e.altKey && (e.key === 'c' || e.key === 'C' || e.code === 'KeyC')) {
      e.preventDefault();
      void doCheck();
    }
  };
  const onTextKeys = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  const toHintId = `${uid}-to-hint`;
  const fieldErr = (f: 'to' | 'text' | 'url' | 'filename') =>
    field === f && error ? (
      <span className="error field-error" id={`${uid}-${f}-err`} role="alert">
        {describeError(error.e)}
      </span>
    ) : null;
  const described = (f: 'to' | 'text' | 'url' | 'filename', ...more: string[]) =>
    [...more, field === f ? `${uid}-${f}-err` : ''].filter(Boolean).join(' ') || undefined;

  const retriesLive = inFlight?.state === 'retrying' || inFlight?.state === 'queued' ? progressWords(inFlight) : null;
  // The retries the failed send went through (send.progress events arrive before its answer).
  const retries = error ? (history.find((x) => x.clientRef === error.ref)?.retries.length ?? 0) : 0;

  return (
    <section className="console" aria-labelledby="console-title" onKeyDown={onKeys}>
      <h2 id="console-title">Send console</h2>
      <Pickers teamId={teamId} agentId={agentId} onTeam={(t) => (setTeamId(t), setAgentId(''))} onAgent={setAgentId} />
      {!ready && <p className="muted">Choose a team and an agent to send from.</p>}
      <form className="form console-form" onSubmit={(e) => void submit(e)} aria-label="Send a message">
        <fieldset className="console-kind">
          <legend>Type</legend>
          {(['text', 'image', 'document'] as const).map((k) => (
            <label key={k}>
              <input type="radio" name={`${uid}-kind`} value={k} checked={kind === k} onChange={() => setKind(k)} /> {k === 'text' ? 'Text' : k === 'image' ? 'Image' : 'Document'}
            </label>
          ))}
        </fieldset>

        <label htmlFor={`${uid}-to`}>To (phone number with country code, or JID)</label>
        <div className="console-to">
          <input
            id={`${uid}-to`}
            value={to}
            onChange={(e) => {
              setTo(e.target.value);
              setContact(null);
            }}
            aria-invalid={recipient !== null && !recipient.ok}
            aria-describedby={described('to', toHintId)}
            placeholder="+1 555 010 2000"
            autoComplete="off"
          />
          <button type="button" className="secondary" onClick={() => void doCheck()} disabled={!ready || !recipient?.ok || recipient.kind === 'group-jid' || checking} aria-keyshortcuts="Alt+C">
            {checking ? 'Checking…' : 'Check contact (Alt+C)'}
          </button>
        </div>
        <span id={toHintId} className={recipient && !recipient.ok ? 'error' : 'hint'} aria-live="polite">
          {recipient === null ? 'e.g. +1 (555) 010-2000, 15550102000 or 15550102000@s.whatsapp.net' : recipient.ok ? `Sends to ${recipient.value}` : recipient.message}
        </span>
        {contact && (
          <span role="status" className={'e' in contact ? 'error' : 'hint'}>
            {'e' in contact
              ? `Contact check failed — ${describeError(contact.e)}`
              : contact.r.exists
                ? `On WhatsApp: yes — JID ${contact.r.jid}`
                : `On WhatsApp: no — ${contact.r.phone} has no WhatsApp account`}
          </span>
        )}
        {fieldErr('to')}

        {kind !== 'text' && (
          <>
            <label htmlFor={`${uid}-url`}>{kind === 'image' ? 'Image URL' : 'Document URL'}</label>
            <input id={`${uid}-url`} type="url" value={url} onChange={(e) => setUrl(e.target.value)} aria-describedby={described('url')} placeholder="https://…" />
            {fieldErr('url')}
          </>
        )}
        {kind === 'document' ? (
          <>
            <label htmlFor={`${uid}-filename`}>File name</label>
            <input id={`${uid}-filename`} value={filename} onChange={(e) => setFilename(e.target.value)} aria-describedby={described('filename')} placeholder="invoice.pdf" />
            {fieldErr('filename')}
          </>
        ) : (
          <>
            <label htmlFor={`${uid}-text`}>{kind === 'image' ? 'Caption' : 'Message'}</label>
            <textarea id={`${uid}-text`} rows={3} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onTextKeys} aria-describedby={described('text', `${uid}-keys`)} />
            <span id={`${uid}-keys`} className="hint">
              Enter sends, Shift+Enter starts a new line.
            </span>
            {fieldErr('text')}
          </>
        )}
        <div className="actions">
          <button type="submit" disabled={!ready || !recipient?.ok || sendingRef !== null}>
            {sendingRef ? 'Sending…' : 'Send'}
          </button>
        </div>
        {retriesLive && (
          <p role="status" className="send-progress">
            {retriesLive}
          </p>
        )}
        {error && field === null && <SendError error={error.e} retries={retries} teamId={teamId} agentId={agentId} />}
      </form>
      {teamId && <SendMeter teamId={teamId} />}
      {ready && <SendHistory teamId={teamId} agentId={agentId} />}
    </section>
  );
}
