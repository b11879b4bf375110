// The open thread: its title, the messages (windowed, newest at the bottom, day separators) and the
// composer pinned below them. Opening the thread, and each message that arrives while it is open,
// marks it read. A conversation of simulated (or replayed) deliveries only has no composer: it never
// came from WhatsApp, so no one is there to reply to (messages.send refuses it as well).
import { memo, useCallback, useEffect, useLayoutEffect } from 'react';
import { useAllowed } from '../../components/allowed';
import { errorText } from '../../components/errors';
import { afterNextPaint } from '../../store/frame-batch';
import { threadKey } from '../../store/messages';
import { useApp } from '../../store/react';
import { Composer } from './Composer';
import { ThreadList } from './ThreadList';
import { ThreadTitle } from './ThreadTitle';

/** The title and the composer show the conversation, not its messages: a page of messages re-renders neither. */
const Title = memo(ThreadTitle);
const Reply = memo(Composer);

export function Thread({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const key = threadKey(teamId, agentId, contact);
  const thread = useApp((s) => s.threads[key]);
  const openThread = useApp((s) => s.openThread);
  const loadOlder = useApp((s) => s.loadOlder);
  const markThreadRead = useApp((s) => s.markThreadRead);
  // A hub member whose role may not mark messages read (a viewer) leaves the team's unread counts as they are.
  const marks = useAllowed('messages.markRead').allowed;
  const count = thread?.messages.length ?? 0;
  const newest = thread?.messages[count - 1]?.key;
  // Usually asked for already, as the route changed; else as the thread mounts, not after its first paint.
  useLayoutEffect(() => void openThread(teamId, agentId, contact), [openThread, teamId, agentId, contact]);
  // Opening the thread, and each message that arrives while it is open, marks it read (older pages
  // loaded as the person scrolls up do not): once the messages are painted, so the host answers the
  // thread's request first and the mark does not compete with the first frame of the thread.
  useEffect(() => {
    if (newest === undefined || !marks) return;
    return afterNextPaint(() => void markThreadRead(teamId, agentId, contact));
  }, [markThreadRead, teamId, agentId, contact, newest, marks]);
  const older = useCallback(() => loadOlder(teamId, agentId, contact), [loadOlder, teamId, agentId, contact]);
  const who = thread?.name ?? contact;
  // A real message arriving while it is open makes it a conversation like any other.
  const simulated = thread?.simulated === true && thread.messages.every((m) => m.simulated);
  return (
    <section className="messages-thread" aria-label={`Conversation with ${who}`}>
      <Title teamId={teamId} agentId={agentId} contact={contact} name={thread?.name} />
      {thread?.error && <p role="alert">{errorText(thread.error)}</p>}
      {thread?.loaded && count === 0 && <p className="muted">No messages with this number yet.</p>}
      {count > 0 && (
        <ThreadList messages={thread!.messages} more={thread!.more} loadOlder={older} label={`Messages with ${who}`} />
      )}
      {simulated ? (
        <p className="messages-simulated-note muted" role="note">
          Simulated on this machine (or replayed), not from WhatsApp: there is no one to reply to.
        </p>
      ) : (
        <Reply teamId={teamId} agentId={agentId} contact={contact} />
      )}
    </section>
  );
}
