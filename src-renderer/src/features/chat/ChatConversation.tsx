// The conversation on screen: its title (rename, delete), the messages, what is queued, and the
// composer. Enter while a reply is coming queues the message (shown at the end, with Cancel) and
// the hint under the box says so; it is sent when the reply ends.
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ChatMessageDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { convKey, type QueuedChat } from '../../store/chat';
import { useApp } from '../../store/react';
import { errorText } from '../../components/errors';
import { ChatRow } from './ChatRow';
import { ConversationTitle } from './ConversationTitle';
import { useFollowBottom } from './useFollowBottom';

const NO_IDS: string[] = [];
const NO_QUEUE: QueuedChat[] = [];

interface Props {
  teamId: string;
  agentId: string;
  userId: string;
  own: string;
  agentName: string;
}

function QueuedRow({
  q,
  first,
  teamId,
  agentId,
  userId,
}: {
  q: QueuedChat;
  first: boolean;
  teamId: string;
  agentId: string;
  userId: string;
}) {
  const key = convKey(teamId, agentId, userId);
  const held = useApp((s) => s.chatConvs[key]?.queueHeld ?? null);
  const cancel = useApp((s) => s.cancelQueuedChat);
  const resume = useApp((s) => s.resumeChatQueue);
  const why =
    held === null
      ? 'Sends when the reply ends.'
      : held === 'stopped'
        ? 'Waiting: you stopped the reply.'
        : held === 'failed'
          ? 'Waiting: the reply failed.'
          : `Not sent: ${errorText(held)}`;
  return (
    <li className="chat-row chat-user chat-queued">
      <div className="sr-only">You (queued)</div>
      <div className="chat-bubble">
        <p className="chat-plain">{q.text}</p>
      </div>
      <div className="chat-meta">
        <span className="badge badge-queued">Queued</span>
        <span>{first ? why : 'Sends after the message above.'}</span>
        {first && held !== null && (
          <button type="button" className="small" onClick={() => void resume(teamId, agentId, userId)}>
            Send now
          </button>
        )}
        <button
          type="button"
          className="secondary small"
          aria-label={`Cancel queued message: ${q.text.slice(0, 40)}`}
          onClick={() => cancel(teamId, agentId, userId, q.id)}
        >
          Cancel
        </button>
      </div>
    </li>
  );
}

export function ChatConversation({ teamId, agentId, userId, own, agentName }: Props) {
  const key = convKey(teamId, agentId, userId);
  const ids = useApp((s) => s.chatConvs[key]?.messageIds ?? NO_IDS);
  const queue = useApp((s) => s.chatConvs[key]?.queue ?? NO_QUEUE);
  const busy = useApp((s) => s.chatConvs[key]?.busy ?? false);
  const error = useApp((s) => s.chatConvs[key]?.error ?? null);
  const lastUserText = useApp((s) => s.chatConvs[key]?.lastUserText ?? null);
  const open = useApp((s) => s.openChat);
  const send = useApp((s) => s.sendChat);
  const stop = useApp((s) => s.stopChat);
  const retry = useApp((s) => s.retryChat);
  const [draft, setDraft] = useState('');
  const [showFrames, setShowFrames] = useState(false);
  const gate = useGate('chat.startTurn');
  const [announcement, setAnnouncement] = useState('');
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    void open(teamId, agentId, userId);
  }, [open, teamId, agentId, userId]);

  useFollowBottom(listRef, ids.length + queue.length);

  const lastUserRef = useRef(lastUserText);
  useEffect(() => {
    lastUserRef.current = lastUserText;
  }, [lastUserText]);

  // A reply that failed (midway, or before its row even appeared — its events can overtake the
  // startTurn answer): the question goes back into an empty box, ready to send again.
  const lastReplyFailed = useApp((s) => {
    const last = s.chatConvs[key]?.messageIds.at(-1);
    const m = last ? s.chatMessages[last] : undefined;
    return m?.role === 'agent' && m.status === 'error' ? last : null;
  });
  useEffect(() => {
    const question = lastUserRef.current;
    if (lastReplyFailed && question) setDraft((d) => (d.trim() ? d : question));
  }, [lastReplyFailed]);

  const onFinished = useCallback((m: ChatMessageDTO) => {
    const head = m.text.length > 300 ? `${m.text.slice(0, 300)}…` : m.text;
    setAnnouncement(
      m.status === 'done'
        ? `Agent replied: ${head}`
        : m.status === 'stopped'
          ? 'Reply stopped.'
          : `Reply failed.${m.error ? ` ${errorText(m.error)}` : ''}`,
    );
  }, []);

  const submit = async () => {
    const text = draft;
    if (!text.trim() || !gate.allowed) return;
    if (busy) setAnnouncement('Queued: your message is sent when the reply ends.');
    // Clear at once: the turn's events may overtake the startTurn answer, and a turn that fails
    // puts its question back (onFinished) — clearing after the answer would wipe that again.
    setDraft('');
    const err = await send(teamId, agentId, userId, text);
    // The typed text comes back when the turn could not start.
    if (err) setDraft((d) => (d.trim() ? d : text));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  // Escape stops a reply that is coming, wherever focus is in the conversation (a dialog or the
  // rename box handles its own Escape first).
  const onEscape = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'Escape' || e.defaultPrevented || !busy) return;
    e.preventDefault();
    void stop(teamId, agentId, userId);
    setAnnouncement('Stopping the reply.');
  };

  return (
    <div className="chat-main" onKeyDown={onEscape}>
      <ConversationTitle
        teamId={teamId}
        agentId={agentId}
        userId={userId}
        own={own}
        saved={ids.length > 0}
        busy={busy}
      />
      <ol className="chat-list" ref={listRef} aria-label="Conversation">
        {ids.length === 0 && queue.length === 0 && <li className="muted chat-empty">No messages yet. Say hello.</li>}
        {ids.map((id) => (
          <ChatRow key={id} id={id} agentName={agentName} showFrames={showFrames} onFinished={onFinished} />
        ))}
        {queue.map((q, i) => (
          <QueuedRow key={q.id} q={q} first={i === 0} teamId={teamId} agentId={agentId} userId={userId} />
        ))}
      </ol>
      <div className="sr-only" aria-live="polite" role="status">
        {announcement}
      </div>
      {error && (
        <div className="chat-error">
          <p>Your message was not sent; it is still in the box below.</p>
          <ErrorNotice error={error} />
        </div>
      )}
      <form
        className="chat-composer"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <textarea
          id="chat-input"
          rows={2}
          placeholder={`Message ${agentName}`}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="chat-input-hint"
        />
        <div className="actions">
          <button
            type="submit"
            disabled={!draft.trim() || !gate.allowed}
            title={gate.props.title}
            aria-describedby={gate.describedBy()}
          >
            {busy ? 'Queue' : 'Send'}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!busy}
            aria-keyshortcuts="Escape"
            onClick={() => void stop(teamId, agentId, userId)}
          >
            Stop
          </button>
          <button
            type="button"
            className="secondary"
            disabled={busy || !lastUserText || !gate.allowed}
            onClick={() => void retry(teamId, agentId, userId)}
            {...gate.props}
          >
            Retry last message
          </button>
        </div>
        {gate.note}
        <div className="chat-composer-foot">
          <span id="chat-input-hint" className="hint">
            {busy
              ? 'A reply is coming: Enter queues your message, and it is sent when the reply ends; Escape stops the reply.'
              : 'Enter sends, Shift+Enter starts a new line.'}
          </span>
          <label className="chat-toggle">
            <input type="checkbox" checked={showFrames} onChange={(e) => setShowFrames(e.target.checked)} /> Show raw
            stream frames
          </label>
        </div>
      </form>
    </div>
  );
}
