// One chat message. It selects ITS OWN message from the store, so a streamed token re-renders
// only the row it belongs to.
import { useEffect, useRef, useState } from 'react';
import type { ChatMessageDTO } from '../../../../src-shared/contract';
import type { ChatTurnStats } from '../../store/chat';
import { describeError } from '../console/error-words';
import { Markdown } from './markdown';
import { RawAnswer, RawFrames, isUnreadableReply } from './RawFrames';
import { useApp } from '../../store/react';

const STATUS_WORDS: Record<NonNullable<ChatMessageDTO['status']>, string> = {
  streaming: 'Writing…',
  done: 'Done',
  stopped: 'Stopped',
  error: 'Failed',
};

function formatStats(st: ChatTurnStats): string[] {
  const parts: string[] = [];
  if (st.conversationId) parts.push(`conversation ${st.conversationId}`);
  parts.push(st.actions.length ? `actions: ${st.actions.join(', ')}` : 'no actions');
  if (st.tokensUsed !== null) parts.push(`${st.tokensUsed} tokens used`);
  if (st.firstTokenMs !== null) parts.push(`first token ${st.firstTokenMs} ms`);
  if (st.tokensPerSec !== null) parts.push(`${st.tokensPerSec} tokens/s`);
  return parts;
}

export function ChatRow({ id, showFrames, onFinished }: { id: string; showFrames: boolean; onFinished(m: ChatMessageDTO): void }) {
  const m = useApp((s) => s.chatMessages[id]);
  const st = useApp((s) => s.chatStats[id]);
  const [copied, setCopied] = useState<string | null>(null);
  const prevStatus = useRef(m?.status);
  useEffect(() => {
    if (m && prevStatus.current === 'streaming' && m.status !== 'streaming') onFinished(m);
    prevStatus.current = m?.status;
  }, [m, onFinished]);
  if (!m) return null;
  const copy = () => {
    const done = (word: string) => setCopied(word);
    if (!navigator.clipboard) return done('Copy is not available here');
    navigator.clipboard.writeText(m.text).then(
      () => done('Copied'),
      () => done('Copy failed'),
    );
  };
  const mine = m.role === 'user';
  const unreadable = isUnreadableReply(m.error);
  return (
    <li className={`chat-row chat-${m.role}`} data-status={m.status}>
      <div className="chat-who">{mine ? 'You' : 'Agent'}</div>
      <div className="chat-bubble">
        {mine ? <p className="chat-plain">{m.text}</p> : <Markdown text={m.text} />}
        {!mine && m.status === 'streaming' && m.text === '' && <p className="muted">Waiting for the first token…</p>}
        {!mine && (m.status === 'error' || m.status === 'stopped') && m.text === '' && !unreadable && <p className="muted">No reply.</p>}
        {!mine && unreadable && <p className="error">Could not read the agent&apos;s reply.</p>}
      </div>
      {!mine && (
        <div className="chat-meta">
          {m.status && <span className={`badge badge-${m.status}`}>{STATUS_WORDS[m.status]}</span>}
          {st && formatStats(st).map((p) => <span key={p}>{p}</span>)}
          {m.error && (
            <span className="error" role="status">
              {unreadable ? m.error.message : describeError(m.error)}
            </span>
          )}
          <button type="button" className="secondary small" onClick={copy} disabled={m.text === ''}>
            Copy
          </button>
          {copied && <span role="status">{copied}</span>}
        </div>
      )}
      {!mine && unreadable && m.error?.raw && <RawAnswer raw={m.error.raw} />}
      {!mine && showFrames && m.turnId && <RawFrames turnId={m.turnId} live={m.status === 'streaming'} />}
    </li>
  );
}
