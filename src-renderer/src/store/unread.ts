// Unread inbound messages, as the core's index counts them: in all (the sidebar) and per agent (the
// home rows, the agent page). One answer (messages.unread) and one event (messages.unread) carry
// both, so every place shows the same numbers at the same moment.
import type { MessageUnreadDTO } from '../../../src-shared/contract';
import { agentKey, type Slice } from './env';

export interface UnreadSlice {
  /** Unread messages over every agent (the sidebar's count). */
  unreadAll: number;
  /** By agentKey(teamId, agentId); agents without unread messages are absent. */
  unreadByAgent: Record<string, number>;
  loadUnread(): Promise<void>;
  applyUnread(u: MessageUnreadDTO): void;
}

export const unreadSlice: Slice<UnreadSlice> = ({ set, api }) => {
  const apply = (u: MessageUnreadDTO): void => {
    const byAgent: Record<string, number> = {};
    for (const a of u.agents) if (a.unread > 0) byAgent[agentKey(a.teamId, a.agentId)] = a.unread;
    set({ unreadAll: u.total, unreadByAgent: byAgent });
  };
  // An answer asked before an event arrived is older than it: the event's counts stay.
  let seen = 0;
  return {
    unreadAll: 0,
    unreadByAgent: {},
    loadUnread: async () => {
      const asked = seen;
      const r = await api['messages.unread']();
      if (r.ok && asked === seen) apply(r.value);
    },
    applyUnread: (u) => {
      seen += 1;
      apply(u);
    },
  };
};
