// The inbox pane's pieces: the agent picker and a contact row (name, unread count but on the open
// conversation, time, the last message's first line, and the agent when all agents are shown); a
// conversation of simulated or replayed deliveries only is marked so.
import { memo } from 'react';
import type { AgentDTO, MessageContactDTO } from '../../../../src-shared/contract';
import { messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { messageLine } from '../../../../src-shared/message-words';
import { formatTimeOfDay } from '../../components/time';

export function AgentPicker({ agents, value, onPick }: { agents: AgentDTO[]; value: string; onPick(v: string): void }) {
  return (
    <div className="messages-agent">
      <label htmlFor="messages-agent">Agent</label>
      <select id="messages-agent" value={value} onChange={(e) => onPick(e.target.value)}>
        <option value="">All agents</option>
        {agents.map((a) => (
          <option key={agentKey(a.teamId, a.agentId)} value={agentKey(a.teamId, a.agentId)}>
            {a.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Memoised: opening a thread re-renders the screen, and only the rows whose `current` changed. */
export const ContactRow = memo(function ContactRow({
  c,
  current,
  label,
}: {
  c: MessageContactDTO;
  current: boolean;
  label: string | null;
}) {
  return (
    <li>
      <a
        className="messages-contact"
        href={messagesHref(c.teamId, c.agentId, c.contact)}
        aria-current={current ? 'true' : undefined}
      >
        <span className="messages-contact-name">
          {c.name ?? c.contact}
          {c.simulated && <span className="badge badge-unknown messages-contact-simulated">Simulated</span>}
        </span>
        {/* The conversation on screen is being read: no count flashes on it while a new message is marked read. */}
        {c.unread > 0 && !current && (
          <span className="count" aria-label={`${c.unread} unread`}>
            {c.unread}
          </span>
        )}
        <span className="messages-contact-time muted">{formatTimeOfDay(c.lastAt)}</span>
        <span className="messages-contact-last muted">
          {c.last.direction === 'out' ? 'You: ' : ''}
          {messageLine(c.last)}
        </span>
        {label && <span className="messages-contact-agent muted">{label}</span>}
      </a>
    </li>
  );
});
