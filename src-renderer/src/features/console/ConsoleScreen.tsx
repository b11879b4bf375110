// The send console: text, image URL + caption, or document URL + file name to a number validated
// as typed; a contact check one keystroke away (Alt+C) that warns before a send to a number not on
// WhatsApp; a warning (with the Pair link) and a confirmation before a send from an agent known to
// need a QR scan; the send budget; the latest send's result under the Send button; a history of
// sends. The form never locks: while the budget is spent, each send waits in the queue on its own.
// Nothing typed is lost on error: the text is cleared once the send went out or waits in the queue,
// and comes back if that queued send is cancelled or fails while the form is still empty. The app checks
// what is sent (the browser's own URL check is off, so its words are the app's), and a field's error
// shows only while the field still holds the value it was about.
import { useEffect, useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ContactCheckDTO, ErrorDTO, SendArgs } from '../../../../src-shared/contract';
import { errorLine } from '../../components/errors';
import { agentKey } from '../../store/env';
import { useGate } from '../../components/allowed';
import { useApp } from '../../store/react';
import { agentHref } from '../../router/routes';
import { Pickers } from './Pickers';
import { checkRecipient } from './recipient';
import { errorField } from './SendError';
import { SendHistory } from './SendHistory';
import { SendMeter } from './SendMeter';
import { NeedsScanReason, SendAnyway } from './SendAnyway';
import { SendResult } from './SendResult';
import { agentName } from '../../store/notices';
import { useSendDraft } from './useSendDraft';
import './console.css';

type Kind = 'text' | 'image' | 'document';
type Field = 'to' | 'text' | 'url' | 'filename';
type Contact = { to: string; r: ContactCheckDTO } | { to: string; e: ErrorDTO };
/** Why a send waits for "Send anyway". */
type Doubt = 'needs-scan' | 'not-on-whatsapp';

/** What a send carried in `f`. */
function sentValue(args: Omit<SendArgs, 'clientRef'>, f: Field): string {
  switch (f) {
    case 'to':
      return args.to;
    case 'text':
      return args.text ?? '';
    case 'url':
      return args.imageUrl ?? args.documentUrl ?? '';
    case 'filename':
      return args.documentFilename ?? '';
  }
}

/** The team to start with: the one asked for, else the only one. */
function useInitialPick(props: { teamId?: string; agentId?: string }): [string, string] {
  const teams = useApp((s) => s.teams);
  const only = teams.length === 1 ? teams[0] : undefined;
  const teamId = props.teamId ?? only?.teamId ?? '';
  const team = teams.find((t) => t.teamId === teamId);
  const agentId = props.agentId ?? (team?.agentIds.length === 1 ? team.agentIds[0]! : '');
  return [teamId, agentId];
}

function ContactLine({ contact }: { contact: Contact }) {
  if ('e' in contact) {
    return (
      <span role="status" className="error">
        Contact check failed — {errorLine(contact.e)}
      </span>
    );
  }
  if (contact.r.exists) {
    return (
      <span role="status" className="hint contact-yes">
        On WhatsApp: yes — JID {contact.r.jid}
      </span>
    );
  }
  return (
    <span role="status" className="contact-no">
      <span aria-hidden="true">⚠ </span>On WhatsApp: no — {contact.r.phone} has no WhatsApp account; a message to it
      will not arrive.
    </span>
  );
}

export function ConsoleScreen(props: { teamId?: string; agentId?: string }) {
  const [initialTeam, initialAgent] = useInitialPick(props);
  const [teamId, setTeamId] = useState(initialTeam);
  const [agentId, setAgentId] = useState(initialAgent);
  const send = useApp((s) => s.sendMessage);
  const check = useApp((s) => s.checkContact);
  const history = useApp((s) => s.sendHistory);
  const uid = useId();
  const sendGate = useGate('send.message');
  const checkGate = useGate('contacts.check');
  const [kind, setKind] = useState<Kind>('text');
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [filename, setFilename] = useState('');
  const [contact, setContact] = useState<Contact | null>(null);
  const [checking, setChecking] = useState(false);
  /** A send from an agent that needs a scan, or to a number not on WhatsApp, waits for "Send anyway". */
  const [confirming, setConfirming] = useState(false);
  const agent = useApp((s) => (teamId && agentId ? s.agents[agentKey(teamId, agentId)] : undefined));
  const agentWords = agentName(agent?.label ?? '', agentId);
  const needsScan = agent !== undefined && (agent.health.needsScan || agent.health.health === 'needs-scan');

  // Teams arrive after the first render in a fresh window: pick the only one then.
  useEffect(() => {
    if (teamId === '' && initialTeam !== '') {
      setTeamId(initialTeam);
      setAgentId(initialAgent);
    }
  }, [teamId, initialTeam, initialAgent]);

  const recipient = to.trim() === '' ? null : checkRecipient(to);
  const ready = Boolean(teamId && agentId);
  // The latest send made from this form. Once it is queued or sent, what it took is cleared from the
  // form; a queued one that then fails or is cancelled puts it back into an empty form.
  const { last, take, forget } = useSendDraft(history);
  const lastError = last?.state === 'failed' ? last.error : null;
  const field = lastError ? errorField(lastError) : null;
  /** What each field holds now, as a send would carry it. */
  const holds: Record<Field, string> = {
    to: recipient?.ok ? recipient.value : to,
    text: text.trim() ? text : '',
    url: url.trim(),
    filename: filename.trim(),
  };
  // A field's error is about the value that was sent: once the field holds another, it is gone.
  const errorHere = field !== null && last !== null && sentValue(last.args, field) === holds[field] ? field : null;
  const notOnWhatsApp =
    contact !== null &&
    !('e' in contact) &&
    !contact.r.exists &&
    recipient?.ok === true &&
    contact.to === recipient.value;
  const doubts: Doubt[] = [
    ...(needsScan ? (['needs-scan'] as const) : []),
    ...(notOnWhatsApp ? (['not-on-whatsapp'] as const) : []),
  ];

  const doCheck = async () => {
    if (!ready || !recipient?.ok || recipient.kind === 'group-jid' || !checkGate.allowed) return;
    // The previous answer is about an earlier check: it goes while this one runs.
    setContact(null);
    setChecking(true);
    const r = await check(teamId, agentId, recipient.value);
    setChecking(false);
    setContact(r.ok ? { to: recipient.value, r: r.value } : { to: recipient.value, e: r.error });
  };

  const build = (): SendArgs | null => {
    if (!ready || !recipient?.ok) return null;
    const args: SendArgs = { teamId, agentId, to: recipient.value };
    if (kind === 'text') {
      if (!text.trim()) return null;
      args.text = text;
    } else {
      if (!url.trim()) return null;
      if (kind === 'image') {
        args.imageUrl = url.trim();
        if (text.trim()) args.text = text;
      } else {
        args.documentUrl = url.trim();
        if (filename.trim()) args.documentFilename = filename.trim();
      }
    }
    return args;
  };

  const submit = async (opts: { anyway?: boolean } = {}) => {
    if (!sendGate.allowed) return;
    const args = build();
    if (!args) return;
    if (doubts.length > 0 && !opts.anyway) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    const clientRef = take([
      [text, setText],
      [url, setUrl],
      [filename, setFilename],
    ]);
    await send({ ...args, clientRef });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit();
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
  const fieldErr = (f: Field) =>
    errorHere === f && lastError ? (
      <span className="error field-error" id={`${uid}-${f}-err`} role="alert">
        {errorLine(lastError)}
      </span>
    ) : null;
  const described = (f: Field, ...more: string[]) =>
    [...more, errorHere === f ? `${uid}-${f}-err` : ''].filter(Boolean).join(' ') || undefined;

  return (
    <section className="console" aria-labelledby="console-title" onKeyDown={onKeys}>
      <h2 id="console-title">Send console</h2>
      <div className="console-main">
        <div className="console-send">
          <Pickers
            teamId={teamId}
            agentId={agentId}
            onTeam={(t) => {
              setTeamId(t);
              setAgentId('');
              forget();
              setConfirming(false);
            }}
            onAgent={(a) => {
              setAgentId(a);
              forget();
              setConfirming(false);
            }}
          />
          {!ready && <p className="muted">Choose a team and an agent to send from.</p>}
          {ready && needsScan && (
            <p className="send-scan-warning" id={`${uid}-scan`}>
              <span aria-hidden="true">⚠ </span>
              <strong>{agentWords} needs a QR scan</strong>: its WhatsApp link is not set up, so a send from it fails
              until the phone scans the code. <a href={agentHref(teamId, agentId, 'pairing')}>Pair {agentWords}</a>
            </p>
          )}
          <form className="form console-form" onSubmit={onSubmit} aria-label="Send a message" noValidate>
            <fieldset className="console-kind">
              <legend>Type</legend>
              {(['text', 'image', 'document'] as const).map((k) => (
                <label key={k}>
                  <input type="radio" name={`${uid}-kind`} value={k} checked={kind === k} onChange={() => setKind(k)} />{' '}
                  {k === 'text' ? 'Text' : k === 'image' ? 'Image' : 'Document'}
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
                  setConfirming(false);
                }}
                aria-invalid={recipient !== null && !recipient.ok}
                aria-describedby={described('to', toHintId)}
                placeholder="+1 555 010 2000"
                autoComplete="off"
              />
              <button
                type="button"
                className="secondary"
                onClick={() => void doCheck()}
                disabled={!ready || !recipient?.ok || recipient.kind === 'group-jid' || checking || !checkGate.allowed}
                aria-keyshortcuts="Alt+C"
                {...checkGate.props}
              >
                {checking ? 'Checking…' : 'Check contact (Alt+C)'}
              </button>
            </div>
            {checkGate.note}
            <span id={toHintId} className={recipient && !recipient.ok ? 'error' : 'hint'} aria-live="polite">
              {recipient === null
                ? 'e.g. +1 (555) 010-2000, 15550102000 or 15550102000@s.whatsapp.net'
                : recipient.ok
                  ? `Sends to ${recipient.value}`
                  : recipient.message}
            </span>
            {contact && <ContactLine contact={contact} />}
            {fieldErr('to')}

            {kind !== 'text' && (
              <>
                <label htmlFor={`${uid}-url`}>{kind === 'image' ? 'Image URL' : 'Document URL'}</label>
                <input
                  id={`${uid}-url`}
                  type="url"
                  value={url}
                  onChange={(e) => setUrl(e.target.value)}
                  aria-describedby={described('url')}
                  placeholder="https://…"
                />
                {fieldErr('url')}
              </>
            )}
            {kind === 'document' ? (
              <>
                <label htmlFor={`${uid}-filename`}>File name</label>
                <input
                  id={`${uid}-filename`}
                  value={filename}
                  onChange={(e) => setFilename(e.target.value)}
                  aria-describedby={described('filename')}
                  placeholder="invoice.pdf"
                />
                {fieldErr('filename')}
              </>
            ) : (
              <>
                <label htmlFor={`${uid}-text`}>{kind === 'image' ? 'Caption' : 'Message'}</label>
                <textarea
                  id={`${uid}-text`}
                  rows={3}
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                  onKeyDown={onTextKeys}
                  aria-describedby={described('text', `${uid}-keys`)}
                />
                <span id={`${uid}-keys`} className="hint">
                  Enter sends, Shift+Enter starts a new line.
                </span>
                {fieldErr('text')}
              </>
            )}
            {confirming && doubts.length > 0 ? (
              <SendAnyway onSend={() => void submit({ anyway: true })} onCancel={() => setConfirming(false)}>
                {doubts.includes('needs-scan') && (
                  <NeedsScanReason teamId={teamId} agentId={agentId} who={agentWords} />
                )}
                {doubts.includes('not-on-whatsapp') && (
                  <p>
                    <strong>{recipient?.ok ? recipient.value : to} is not on WhatsApp.</strong> The message will not
                    arrive.
                  </p>
                )}
              </SendAnyway>
            ) : (
              <div className="actions">
                <button
                  type="submit"
                  disabled={!ready || !recipient?.ok || !sendGate.allowed}
                  title={sendGate.props.title}
                  aria-describedby={sendGate.describedBy(ready && needsScan && `${uid}-scan`)}
                >
                  Send
                </button>
                {sendGate.note}
              </div>
            )}
            {last && field === null && <SendResult r={last} />}
          </form>
        </div>
        <div className="console-side">{teamId && <SendMeter teamId={teamId} agentId={agentId} />}</div>
      </div>
      {ready && <SendHistory teamId={teamId} agentId={agentId} />}
    </section>
  );
}
