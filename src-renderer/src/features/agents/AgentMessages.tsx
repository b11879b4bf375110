// The agent's messages on its page: the unread count (a link to its Messages) and the switch that
// mutes its new-message notifications (counts still change while muted).
import { useId } from 'react';
import type { AgentDTO } from '../../../../src-shared/contract';
import { SavedCheckbox } from '../../components/SavedCheckbox';
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
  const id = useId();
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Messages</h3>
      <p>
        <a href={messagesHref(teamId, agentId)}>
          {unread > 0 ? `${unread} unread message${unread === 1 ? '' : 's'}` : 'No unread messages'}
        </a>
      </p>
      <SavedCheckbox
        label="Mute new-message notifications"
        request="messages.mute"
        saved={muted}
        save={(next) => mute(teamId, agentId, next)}
        hint={(on) =>
          !notifying
            ? 'Message notifications are off for every agent (Settings).'
            : on
              ? 'No notification for messages written to this agent; the unread counts still change.'
              : 'A notification for each new message written to this agent (one per contact).'
        }
      />
    </section>
  );
}
