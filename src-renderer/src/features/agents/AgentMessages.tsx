// The agent's messages on its page: the unread count (a link to its Messages) and the switch that
// mutes its new-message notifications (counts still change while muted).
import { useId, useState } from 'react';
import type { AgentDTO, ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';

export function AgentMessages({ agent }: { agent: AgentDTO }) {
  const { teamId, agentId } = agent;
  const unread = useApp((s) => s.unreadByAgent[agentKey(teamId, agentId)] ?? 0);
  const muted = useApp(
    (s) => s.settings?.messageNotifications.muted.some((m) => m.teamId === teamId && m.agentId === agentId) ?? false,
  );
  const notifying = useApp((s) => s.settings?.messageNotifications.enabled ?? true);
  const mute = useApp((s) => s.muteMessages);
  const [asked, setAsked] = useState<boolean | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const id = useId();
  const on = asked ?? muted;
  const toggle = async (next: boolean) => {
    setAsked(next);
    setError(await mute(teamId, agentId, next));
    setAsked(null);
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Messages</h3>
      <p>
        <a href={messagesHref(teamId, agentId)}>
          {unread > 0 ? `${unread} unread message${unread === 1 ? '' : 's'}` : 'No unread messages'}
        </a>
      </p>
      <label htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={on}
          disabled={asked !== null}
          onChange={(e) => void toggle(e.target.checked)}
          aria-describedby={`${id}-hint`}
        />{' '}
        Mute new-message notifications
      </label>
      <p id={`${id}-hint`} className="hint">
        {!notifying
          ? 'Message notifications are off for every agent (Settings).'
          : on
            ? 'No notification for messages written to this agent; the unread counts still change.'
            : 'A notification for each new message written to this agent (one per contact).'}
      </p>
      {error && <ErrorNotice error={error} />}
    </section>
  );
}
