// The composer at the bottom of a thread: a text, or an image or a document by URL (with a caption,
// and a file name for a document), sent through the same path as the console's send: the team's
// client with its send budget, queue and retries, recorded in the send log. Above the box, this
// conversation's sends that are still going out, each with its status as the console words it
// (sending, queued with its place and a ticking wait, retrying while the number reconnects or the
// rate limit holds) and what it allows (Cancel, Retry); the latest one that failed says why and what
// to do (a needed QR scan links to pairing). A send from an agent known to need a scan asks first.
// The box clears once the send is queued or sent; what it took comes back if that send then fails.
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { MessageDTO, SendArgs } from '../../../../src-shared/contract';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { threadKey } from '../../store/messages';
import { useGate } from '../../components/allowed';
import { useApp } from '../../store/react';
import type { SendRecord } from '../../store/console';
import { SendResult } from '../console/SendResult';
import { agentName } from '../../store/notices';
import { NeedsScanReason, SendAnyway } from '../console/SendAnyway';
import { useSendDraft } from '../console/useSendDraft';
import '../console/console.css';
import './compose.css';

type Kind = 'text' | 'image' | 'document';

/** Why a media URL cannot be sent, or null. */
function mediaUrlProblem(url: string, kind: 'image' | 'document'): string | null {
  const what = kind === 'image' ? "The image's address" : "The document's address";
  if (url === '') return `${what} is empty; give a public URL starting with https://.`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${what} is not a URL; give a public URL starting with https://.`;
  }
  return u.protocol === 'https:' || u.protocol === 'http:' ? null : `${what} must start with https:// or http://.`;
}

/**
 * This conversation's sends of this window not in the thread yet: going out, or just sent (until the
 * send log's line arrives with its clientRef or message id), newest first. The line may arrive before
 * the send's own answer: a send already in the thread is shown there only, never twice. The same
 * records while nothing changes for them (a page of messages loaded re-renders no composer).
 */
function goingOf(
  history: SendRecord[],
  thread: { messages: MessageDTO[] } | undefined,
  teamId: string,
  agentId: string,
  contact: string,
): SendRecord[] {
  const mine = history.filter(
    (r) =>
      r.teamId === teamId &&
      r.agentId === agentId &&
      r.args.to === contact &&
      (r.state === 'sending' || r.state === 'queued' || r.state === 'retrying' || r.state === 'sent'),
  );
  if (mine.length === 0) return mine;
  const inThread = new Set<string>();
  for (const m of thread?.messages ?? []) {
    if (m.clientRef !== undefined) inThread.add(m.clientRef);
    if (m.messageId !== undefined) inThread.add(m.messageId);
  }
  return mine
    .filter((r) => !inThread.has(r.clientRef) && !(r.messageId !== null && inThread.has(r.messageId)))
    .reverse();
}

export function Composer({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const send = useApp((s) => s.sendMessage);
  const history = useApp((s) => s.sendHistory);
  const agent = useApp((s) => s.agents[agentKey(teamId, agentId)]);
  const uid = useId();
  const gate = useGate('messages.send');
  const [kind, setKind] = useState<Kind>('text');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [filename, setFilename] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  /** The latest send made from this composer. */
  const { last, take } = useSendDraft(history);
  const agentWords = agentName(agent?.label ?? '', agentId);
  const needsScan = agent !== undefined && (agent.health.needsScan || agent.health.health === 'needs-scan');

  const key = threadKey(teamId, agentId, contact);
  const going = useApp(useShallow((s) => goingOf(s.sendHistory, s.threads[key], teamId, agentId, contact)));
  /** The latest send from here, when it failed: why, and what to do (Pair, Retry). */
  const failed = last?.state === 'failed' && !last.retriedAs ? last : null;
  /** That failed send is in the thread already (its text is shown there). */
  const failedInThread = useApp(
    (s) =>
      failed !== null &&
      s.threads[key]?.messages.some((m) => m.clientRef === failed.clientRef || m.messageId === failed.clientRef) ===
        true,
  );

  const build = (): SendArgs | string => {
    const args: SendArgs = { teamId, agentId, to: contact };
    if (kind === 'text') {
      if (!text.trim()) return 'Write a message first.';
      args.text = text;
      return args;
    }
    const u = url.trim();
    const bad = mediaUrlProblem(u, kind);
    if (bad) return bad;
    if (kind === 'image') args.imageUrl = u;
    else {
      args.documentUrl = u;
      if (filename.trim()) args.documentFilename = filename.trim();
    }
    if (text.trim()) args.text = text;
    return args;
  };

  const submit = async (opts: { anyway?: boolean } = {}) => {
    if (!gate.allowed) return;
    const args = build();
    if (typeof args === 'string') {
      setProblem(args);
      return;
    }
    setProblem(null);
    if (needsScan && !opts.anyway) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    const clientRef = take([
      [text, setText],
      [url, setUrl],
      [filename, setFilename],
    ]);
    await send({ ...args, clientRef }, 'messages');
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit();
  };
  const onTextKeys = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <div className="messages-compose">
      {going.length > 0 && (
        <ol className="messages-going" aria-label="Sends going out">
          {going.map((r) => (
            <li key={r.clientRef} className="messages-bubble out">
              <p className="messages-text">{r.summary}</p>
              <SendResult r={r} />
            </li>
          ))}
        </ol>
      )}
      {failed && (
        <div className="messages-compose-failed">
          {!failedInThread && <p className="messages-text">{failed.summary}</p>}
          <SendResult r={failed} />
        </div>
      )}
      {needsScan && (
        <p className="send-scan-warning" id={`${uid}-scan`}>
          <span aria-hidden="true">⚠ </span>
          <strong>{agentWords} needs a QR scan</strong>: a send from it fails until the phone scans the code.{' '}
          <a href={agentHref(teamId, agentId, 'pairing')}>Pair {agentWords}</a>
        </p>
      )}
      <form className="messages-composer" onSubmit={onSubmit} aria-label="Send a message" noValidate>
        <fieldset className="messages-compose-kind">
          <legend className="sr-only">Type</legend>
          {(['text', 'image', 'document'] as const).map((k) => (
            <label key={k}>
              <input
                type="radio"
                name={`${uid}-kind`}
                value={k}
                checked={kind === k}
                onChange={() => {
                  setKind(k);
                  setProblem(null);
                }}
              />{' '}
              {k === 'text' ? 'Text' : k === 'image' ? 'Image' : 'Document'}
            </label>
          ))}
        </fieldset>
        {kind !== 'text' && (
          <div className="messages-compose-media">
            <label htmlFor={`${uid}-url`}>{kind === 'image' ? 'Image URL' : 'Document URL'}</label>
            <input
              id={`${uid}-url`}
              type="url"
              value={url}
              placeholder="https://…"
              onChange={(e) => {
                setUrl(e.target.value);
                setProblem(null);
              }}
            />
            {kind === 'document' && (
              <>
                <label htmlFor={`${uid}-filename`}>File name</label>
                <input
                  id={`${uid}-filename`}
                  value={filename}
                  placeholder="invoice.pdf"
                  onChange={(e) => setFilename(e.target.value)}
                />
              </>
            )}
          </div>
        )}
        <label htmlFor="messages-reply" className="sr-only">
          {kind === 'text' ? 'Reply' : 'Caption'}
        </label>
        <textarea
          id="messages-reply"
          value={text}
          rows={2}
          placeholder={kind === 'text' ? 'Write a reply' : 'Caption (optional)'}
          aria-describedby={`${uid}-keys`}
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
          onKeyDown={onTextKeys}
        />
        {!confirming && (
          <button
            type="submit"
            disabled={!gate.allowed}
            title={gate.props.title}
            aria-describedby={gate.describedBy(needsScan && `${uid}-scan`)}
          >
            Send
          </button>
        )}
        {gate.note}
        <span id={`${uid}-keys`} className="hint messages-compose-keys">
          Enter sends, Shift+Enter starts a new line.
        </span>
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
        {confirming && (
          <SendAnyway onSend={() => void submit({ anyway: true })} onCancel={() => setConfirming(false)}>
            <NeedsScanReason teamId={teamId} agentId={agentId} who={agentWords} />
          </SendAnyway>
        )}
      </form>
    </div>
  );
}
