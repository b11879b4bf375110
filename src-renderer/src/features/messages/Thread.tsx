// The open thread: its title, day separators, the messages oldest first, and the composer. Opening
// the thread, and each message that arrives while it is open, marks it read.
import { useEffect } from 'react';
import type { MessageDTO } from '../../../../src-shared/contract';
import { errorText } from '../../components/errors';
import { threadKey } from '../../store/messages';
import { useApp } from '../../store/react';
import { Bubble } from './Bubble';
import { Composer } from './Composer';
import { dayOf } from './format';
import { ThreadTitle } from './ThreadTitle';

export function Thread({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const key = threadKey(teamId, agentId, contact);
  const thread = useApp((s) => s.threads[key]);
  const loadThread = useApp((s) => s.loadThread);
  const loadOlder = useApp((s) => s.loadOlder);
  const markThreadRead = useApp((s) => s.markThreadRead);
  const count = thread?.messages.length ?? 0;
  useEffect(() => void loadThread(teamId, agentId, contact), [loadThread, teamId, agentId, contact]);
  // Opening the thread, and each message that arrives while it is open, marks it read.
  useEffect(() => {
    if (count > 0) void markThreadRead(teamId, agentId, contact);
  }, [markThreadRead, teamId, agentId, contact, count]);
  const days: Array<{ day: string; messages: MessageDTO[] }> = [];
  for (const m of thread?.messages ?? []) {
    const day = dayOf(m.at);
    const last = days[days.length - 1];
    if (last?.day === day) last.messages.push(m);
    else days.push({ day, messages: [m] });
  }
  return (
    <section className="messages-thread" aria-label={`Conversation with ${thread?.name ?? contact}`}>
      <ThreadTitle teamId={teamId} agentId={agentId} contact={contact} name={thread?.name} />
      {thread?.error && <p role="alert">{errorText(thread.error)}</p>}
      {thread?.more && (
        <button type="button" className="link" onClick={() => void loadOlder(teamId, agentId, contact)}>
          Show older messages
        </button>
      )}
      {thread?.loaded && count === 0 && <p className="muted">No messages with this number yet.</p>}
      {days.map((d) => (
        <div key={d.day}>
          <p className="messages-day muted">{d.day}</p>
          <ol className="messages-list">
            {d.messages.map((m) => (
              <Bubble key={m.key} m={m} />
            ))}
          </ol>
        </div>
      ))}
      <Composer teamId={teamId} agentId={agentId} contact={contact} />
    </section>
  );
}
