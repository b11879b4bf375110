// The title of the conversation on screen, with Rename (a name kept by this window) and Delete
// (this install's transcript; the service keeps its own record under the user id).
import { useRef, useState, type FormEvent } from 'react';
import type { ChatConversationDTO, ErrorDTO } from '../../../../src-shared/contract';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ConfirmStep } from '../../components/ConfirmStep';
import { ErrorNotice } from '../../components/ErrorNotice';
import { NameForm } from '../../components/NameForm';
import { convKey } from '../../store/chat';
import { agentKey } from '../../store/env';
import { useKeepFocus } from '../../router/focus';
import { useApp } from '../../store/react';
import { MAX_NAME, setConversationName, useConversationNames } from './names';

const NO_ITEMS: ChatConversationDTO[] = [];

/** The words a conversation goes by: its name, else its first message, else "New conversation". */
export function conversationName(name: string | undefined, title: string | undefined): string {
  return name || title || 'New conversation';
}

/** The first message of a conversation in this window, cut to a title (until the list has it). */
export function useFirstMessage(key: string): string | undefined {
  const text = useApp((s) => {
    const id = s.chatConvs[key]?.messageIds[0];
    return id ? s.chatMessages[id]?.text : undefined;
  });
  const line = text?.replace(/\s+/g, ' ').trim();
  return line && line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line;
}

interface Props {
  teamId: string;
  agentId: string;
  userId: string;
  own: string;
  /** It has messages in this install's transcript (something to delete). */
  saved: boolean;
  busy: boolean;
}

export function ConversationTitle({ teamId, agentId, userId, own, saved, busy }: Props) {
  const key = convKey(teamId, agentId, userId);
  const names = useConversationNames();
  const items = useApp((s) => s.chatLists[agentKey(teamId, agentId)]?.items ?? NO_ITEMS);
  const first = useFirstMessage(key);
  const title = items.find((c) => c.userId === userId)?.title || first;
  const remove = useApp((s) => s.deleteChat);
  const select = useApp((s) => s.selectChat);
  const [mode, setMode] = useState<'show' | 'rename' | 'delete'>('show');
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const gate = useGate('chat.deleteConversation');
  const hub = useConnectedHub();
  const name = conversationName(names[key], title);
  // The rename form or the delete question closed: focus goes to the title, under its new name.
  const head = useRef<HTMLDivElement>(null);
  useKeepFocus(head, () => head.current?.querySelector<HTMLElement>('#chat-conv-name') ?? null);
  const who =
    userId === own ? 'your own user id' : userId.startsWith(`${own}-`) ? 'a new user id of yours' : 'a customer';

  const save = (e: FormEvent) => {
    e.preventDefault();
    setConversationName(key, draft);
    setMode('show');
  };
  const del = async () => {
    const err = await remove(teamId, agentId, userId);
    setError(err);
    if (err) return;
    setConversationName(key, null);
    setMode('show');
    // The most recent other conversation, else your own.
    select(teamId, agentId, items.find((c) => c.userId !== userId)?.userId ?? null);
  };

  return (
    <div className="chat-conv-head" ref={head}>
      {mode === 'rename' ? (
        <NameForm
          id="chat-rename-input"
          className="chat-rename"
          label="Conversation name"
          value={draft}
          maxLength={MAX_NAME}
          hint="Kept in this window only. Empty goes back to the first message."
          onChange={setDraft}
          onSubmit={save}
          onCancel={() => setMode('show')}
        />
      ) : (
        <div className="chat-conv-title">
          <div className="chat-conv-heading">
            <h3 id="chat-conv-name" tabIndex={-1}>
              {name}
            </h3>
            <span className="muted">
              as {who} <code>{userId}</code>
            </span>
          </div>
          <div className="chat-conv-actions">
            <button
              type="button"
              className="secondary small"
              onClick={() => {
                setDraft(names[key] ?? '');
                setMode('rename');
              }}
            >
              Rename
            </button>
            {saved && (
              <button
                type="button"
                className="secondary small danger"
                onClick={() => setMode('delete')}
                disabled={busy || !gate.allowed}
                {...gate.props}
              >
                Delete
              </button>
            )}
            {saved && gate.hiddenNote}
          </div>
        </div>
      )}
      {mode === 'delete' && (
        <ConfirmStep
          id="chat-delete-q"
          className="chat-confirm"
          question={
            <>
              Delete “{name}” {hub !== null ? 'from the team hub' : 'from this computer'}? Its messages here are
              removed. The service keeps its own record of the conversation with user id <code>{userId}</code>, and
              remembers it if you chat as that id again.
            </>
          }
          confirm="Delete conversation"
          cancel="Keep it"
          busy={busy}
          onConfirm={() => void del()}
          onCancel={() => setMode('show')}
        />
      )}
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
    </div>
  );
}
