// A chat window for one agent: streamed replies, stop / retry / copy, per-turn numbers, the raw
// token frames on demand, and a user id picker (your own conversation, or play another customer).
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ChatMessageDTO } from '../../../../src-shared/contract';
import { convKey } from '../../store/chat';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ChatRow } from './ChatRow';
import { useFollowBottom } from './useFollowBottom';
import { ownUserId } from './user-id';
import './chat.css';

const NO_IDS: string[] = [];

function UserIdPicker({ value, own, onChange }: { value: string; own: string; onChange(v: string): void }) {
  const other = value !== own;
  const [custom, setCustom] = useState(other ? value : '');
  return (
    <fieldset className="chat-who-picker">
      <legend>Who is chatting</legend>
      <label>
        <input type="radio" name="chat-user" checked={!other} onChange={() => onChange(own)} /> You (<code>{own}</code>)
      </label>
      <label>
        <input type="radio" name="chat-user" checked={other} onChange={() => custom.trim() && onChange(custom.trim())} /> Play another customer
      </label>
      <form
        className="chat-user-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (custom.trim()) onChange(custom.trim());
        }}
      >
        <label htmlFor="chat-custom-user">Customer user id</label>
        <input id="chat-custom-user" value={custom} onChange={(e) => setCustom(e.target.value)} placeholder="e.g. customer-42" />
        <button type="submit" className="secondary" disabled={!custom.trim()}>
          Use this id
        </button>
      </form>
    </fieldset>
  );
}

/** Waits for the install id (the default user id) from the settings, then shows the conversation. */
export function ChatScreen({ teamId, agentId }: { teamId: string; agentId: string }) {
  const installId = useApp((s) => s.settings?.installId ?? null);
  const failed = useApp((s) => !s.settings && Boolean(s.settingsError));
  const own = ownUserId(installId, failed);
  if (own === null) return <p aria-busy="true">Loading your user id…</p>;
  return <ChatConversation key={own} teamId={teamId} agentId={agentId} own={own} />;
}

function ChatConversation({ teamId, agentId, own }: { teamId: string; agentId: string; own: string }) {
  const [userId, setUserId] = useState(own);
  const key = convKey(teamId, agentId, userId);
  const teamLabel = useApp((s) => s.teams.find((t) => t.teamId === teamId)?.label ?? teamId);
  const agentLabel = useApp((s) => s.agents[agentKey(teamId, agentId)]?.label || agentId);
  const ids = useApp((s) => s.chatConvs[key]?.messageIds ?? NO_IDS);
  const busy = useApp((s) => s.chatConvs[key]?.busy ?? false);
  const error = useApp((s) => s.chatConvs[key]?.error ?? null);
  const lastUserText = useApp((s) => s.chatConvs[key]?.lastUserText ?? null);
  const canRetry = Boolean(lastUserText);
  const open = useApp((s) => s.openChat);
  const send = useApp((s) => s.sendChat);
  const stop = useApp((s) => s.stopChat);
  const retry = useApp((s) => s.retryChat);
  const [draft, setDraft] = useState('');
  const [showFrames, setShowFrames] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const [starting, setStarting] = useState(false);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    void open(teamId, agentId, userId);
  }, [open, teamId, agentId, userId]);

  useFollowBottom(listRef, ids.length);

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
    setAnnouncement(m.status === 'done' ? `Agent replied: ${head}` : m.status === 'stopped' ? 'Reply stopped.' : `Reply failed${m.error ? `: ${m.error.message}` : ''}.`);
  }, []);

  const submit = async () => {
    const text = draft;
    if (!text.trim() || busy || starting) return;
    setStarting(true);
    // Clear at once: the turn's events may overtake the startTurn answer, and a turn that fails
    // puts its question back (onFinished) — clearing after the answer would wipe that again.
    setDraft('');
    const err = await send(teamId, agentId, userId, text);
    setStarting(false);
    // The typed text comes back when the turn could not start.
    if (err) setDraft((d) => (d.trim() ? d : text));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <section className="chat" aria-labelledby="chat-title">
      <h2 id="chat-title">
        Chat with {agentLabel}{' '}
        <span className="muted">
          {agentLabel !== agentId ? `${agentId} · ` : ''}team {teamLabel}
        </span>
      </h2>
      <UserIdPicker key={own} value={userId} own={own} onChange={setUserId} />
      <label className="chat-toggle">
        <input type="checkbox" checked={showFrames} onChange={(e) => setShowFrames(e.target.checked)} /> Show raw stream frames
      </label>
      <ol className="chat-list" ref={listRef} aria-label="Conversation">
        {ids.length === 0 && <li className="muted chat-empty">No messages yet. Say hello.</li>}
        {ids.map((id) => (
          <ChatRow key={id} id={id} showFrames={showFrames} onFinished={onFinished} />
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
        <label htmlFor="chat-input">Message</label>
        <textarea
          id="chat-input"
          rows={3}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="chat-input-hint"
        />
        <span id="chat-input-hint" className="hint">
          Enter sends, Shift+Enter starts a new line.
        </span>
        <div className="actions">
          <button type="submit" disabled={busy || starting || !draft.trim()}>
            {starting ? 'Sending…' : 'Send'}
          </button>
          <button type="button" className="secondary" disabled={!busy} onClick={() => void stop(teamId, agentId, userId)}>
            Stop
          </button>
          <button type="button" className="secondary" disabled={busy || starting || !canRetry} onClick={() => void retry(teamId, agentId, userId)}>
            Retry last message
          </button>
        </div>
      </form>
    </section>
  );
}
