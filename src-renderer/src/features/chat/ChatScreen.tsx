// A chat window for one agent: its conversations on the side (one per user id: your own, new ones,
// customers you play), the conversation on screen with streamed markdown replies, stop / retry /
// copy, a queue for what you type while a reply is coming, per-turn numbers and the raw frames.
import { Suspense, useRef } from 'react';
import { useKeepFocus } from '../../router/focus';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { ChatConversation } from './ChatConversation';
import { ConversationList } from './ConversationList';
import { WithReplyRenderer } from './reply-renderer';
import { ownUserId } from './user-id';
import './chat.css';

/** Waits for the install id (the default user id) from the settings, then shows the chat. */
export function ChatScreen({ teamId, agentId }: { teamId: string; agentId: string }) {
  const installId = useApp((s) => s.settings?.installId ?? null);
  const failed = useApp((s) => !s.settings && Boolean(s.settingsError));
  const own = ownUserId(installId, failed);
  if (own === null) return <p aria-busy="true">Loading your user id…</p>;
  return <Chat key={own} teamId={teamId} agentId={agentId} own={own} />;
}

function Chat({ teamId, agentId, own }: { teamId: string; agentId: string; own: string }) {
  const teamLabel = useApp((s) => s.teams.find((t) => t.teamId === teamId)?.label ?? teamId);
  const agentLabel = useApp((s) => s.agents[agentKey(teamId, agentId)]?.label || agentId);
  const userId = useApp((s) => s.chatLists[agentKey(teamId, agentId)]?.selected ?? own);
  // Another conversation shown in place of the one focus was in (one deleted, say): focus goes to its title.
  const layout = useRef<HTMLDivElement>(null);
  useKeepFocus(layout, () => layout.current?.querySelector<HTMLElement>('#chat-conv-name') ?? null);
  return (
    <section className="chat" aria-labelledby="chat-title">
      <h2 id="chat-title">
        <span className="chat-title-name">Chat with {agentLabel}</span>{' '}
        <span className="muted">
          {agentLabel !== agentId ? `${agentId} · ` : ''}team {teamLabel}
        </span>
      </h2>
      <div className="chat-layout" ref={layout}>
        <ConversationList teamId={teamId} agentId={agentId} own={own} shown={userId} />
        <Suspense fallback={<p aria-busy="true">Loading the conversation…</p>}>
          <WithReplyRenderer>
            <ChatConversation
              key={userId}
              teamId={teamId}
              agentId={agentId}
              userId={userId}
              own={own}
              agentName={agentLabel}
            />
          </WithReplyRenderer>
        </Suspense>
      </div>
    </section>
  );
}
