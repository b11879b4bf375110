// One chat message. It selects ITS OWN message from the store, so a streamed token re-renders
// only the row it belongs to. Your messages are bubbles on the right, as typed; the agent's replies
// are markdown across the conversation, with their status, numbers and Copy underneath.
import { useEffect, useRef } from 'react';
import type { ChatMessageDTO } from '../../../../src-shared/contract';
import type { ChatTurnStats } from '../../store/chat';
import { errorText } from '../../components/errors';
import { RawAnswer, RawFrames, isUnreadableReply } from './RawFrames';
import { useApp } from '../../store/react';
import { CopyButton } from './CopyButton';
import { useReplyRenderer } from './reply-renderer';

const STATUS_WORDS: Record<NonNullable<ChatMessageDTO['status']>, string> = {
  streaming: 'Writing…',
  done: 'Done',
  stopped: 'Stopped',
  error: 'Failed',
};

function formatStats(st: ChatTurnStats, streaming: boolean): string[] {
  const parts: string[] = [];
  if (st.conversationId) parts.push(`conversation ${st.conversationId}`);
  // Actions are the agent's own tools (an order lookup, a handover): say so when it called none.
  parts.push(st.actions.length ? `actions: ${st.actions.join(', ')}` : 'no actions: the agent called no tool');
  if (st.tokensUsed !== null) parts.push(`${st.tokensUsed} tokens used`);
  // Once the reply has ended: one figure, never an estimate replaced later (a Stop, the main side's number).
  if (st.firstTokenMs !== null && !streaming) parts.push(`first token ${st.firstTokenMs} ms`);
  if (st.tokensPerSec !== null) parts.push(`${st.tokensPerSec} tokens/s`);
  return parts;
}

export function ChatRow({
  id,
  agentName,
  showFrames,
  onFinished,
}: {
  id: string;
  agentName: string;
  showFrames: boolean;
  onFinished(m: ChatMessageDTO): void;
}) {
  const m = useApp((s) => s.chatMessages[id]);
  const st = useApp((s) => s.chatStats[id]);
  const Reply = useReplyRenderer();
  const prevStatus = useRef(m?.status);
  useEffect(() => {
    if (m && prevStatus.current === 'streaming' && m.status !== 'streaming') onFinished(m);
    prevStatus.current = m?.status;
  }, [m, onFinished]);
  if (!m) return null;
  const mine = m.role === 'user';
  const unreadable = isUnreadableReply(m.error);
  return (
    <li className={`chat-row chat-${m.role}`} data-status={m.status}>
      <div className={mine ? 'sr-only' : 'chat-who'}>{mine ? 'You' : agentName}</div>
      <div className="chat-bubble">
        {mine ? <p className="chat-plain">{m.text}</p> : <Reply text={m.text} streaming={m.status === 'streaming'} />}
        {!mine && m.status === 'streaming' && m.text === '' && <p className="muted">Waiting for the first token…</p>}
        {!mine && (m.status === 'error' || m.status === 'stopped') && m.text === '' && !unreadable && (
          <p className="muted">No reply.</p>
        )}
        {!mine && unreadable && <p className="error">Could not read the agent&apos;s reply.</p>}
      </div>
      {!mine && (
        <div className="chat-meta">
          {m.status && <span className={`badge badge-${m.status}`}>{STATUS_WORDS[m.status]}</span>}
          {st && formatStats(st, m.status === 'streaming').map((p) => <span key={p}>{p}</span>)}
          {m.error && (
            <span className="error" role="status">
              {unreadable ? m.error.message : errorText(m.error)}
            </span>
          )}
          <CopyButton text={m.text} label="Copy reply" />
        </div>
      )}
      {!mine && unreadable && m.error?.raw && <RawAnswer raw={m.error.raw} />}
      {!mine && showFrames && m.turnId && <RawFrames turnId={m.turnId} live={m.status === 'streaming'} />}
    </li>
  );
}
