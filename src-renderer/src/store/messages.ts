// The Messages screen's data: the inbox (contacts with unread counts, and why an agent's inbox may be
// incomplete) and the open threads, fed by messages.contacts / messages.thread and kept live by the
// messages.new and messages.changed events. A new message is put in its open thread at once; the
// inbox is asked again (its order, counts and last lines are the core's).
import type { ErrorDTO, InboxAgentDTO, MessageContactDTO, MessageDTO } from '../../../src-shared/contract';
import type { Slice } from './env';

interface InboxFilter {
  teamId?: string;
  agentId?: string;
  search?: string;
}

interface Inbox {
  contacts: MessageContactDTO[];
  agents: InboxAgentDTO[];
  unread: number;
  retentionDays: number;
  loaded: boolean;
  error: ErrorDTO | null;
  filter: InboxFilter;
}

interface Thread {
  messages: MessageDTO[];
  more: boolean;
  name?: string;
  loaded: boolean;
  error: ErrorDTO | null;
}

export interface MessagesSlice {
  inbox: Inbox;
  /** Unread messages over every agent (the sidebar's count), whatever the inbox's filter. */
  unreadAll: number;
  /** By threadKey(teamId, agentId, contact). */
  threads: Record<string, Thread>;
  loadInbox(filter?: InboxFilter): Promise<void>;
  loadThread(teamId: string, agentId: string, contact: string): Promise<void>;
  loadOlder(teamId: string, agentId: string, contact: string): Promise<void>;
  applyMessage(m: MessageDTO): void;
  applyMessagesChanged(): void;
  markThreadRead(teamId: string, agentId: string, contact: string): Promise<void>;
  sendReply(teamId: string, agentId: string, contact: string, text: string): Promise<ErrorDTO | null>;
  nameContact(contact: string, name: string): Promise<ErrorDTO | null>;
  deleteThread(teamId: string, agentId: string, contact: string): Promise<ErrorDTO | null>;
  /** Every conversation of the agent (this install's copy). */
  deleteAgentMessages(teamId: string, agentId: string): Promise<ErrorDTO | null>;
}

export const threadKey = (teamId: string, agentId: string, contact: string): string =>
  `${teamId}/${agentId}/${contact}`;

const PAGE = 100;
const EMPTY_THREAD: Thread = { messages: [], more: false, loaded: false, error: null };

export const messagesSlice: Slice<MessagesSlice> = ({ set, get, api }) => {
  const patchThread = (key: string, p: Partial<Thread>) =>
    set((s) => ({ threads: { ...s.threads, [key]: { ...(s.threads[key] ?? EMPTY_THREAD), ...p } } }));
  /** Inbox reloads asked while one runs collapse into one more. */
  let inboxRun: Promise<void> | null = null;
  let inboxAgain = false;
  const reloadInbox = (): void => {
    if (inboxRun) {
      inboxAgain = true;
      return;
    }
    inboxRun = get()
      .loadInbox()
      .finally(() => {
        inboxRun = null;
        if (inboxAgain) {
          inboxAgain = false;
          reloadInbox();
        }
      });
  };
  return {
    inbox: { contacts: [], agents: [], unread: 0, retentionDays: 90, loaded: false, error: null, filter: {} },
    unreadAll: 0,
    threads: {},
    loadInbox: async (filter) => {
      const f = filter ?? get().inbox.filter;
      if (filter) set((s) => ({ inbox: { ...s.inbox, filter } }));
      const args: InboxFilter = {};
      if (f.teamId) args.teamId = f.teamId;
      if (f.agentId) args.agentId = f.agentId;
      if (f.search?.trim()) args.search = f.search.trim();
      const whole = Object.keys(args).length === 0;
      const [r, all] = await Promise.all([api['messages.contacts'](args), whole ? null : api['messages.contacts']({})]);
      if (all?.ok) set({ unreadAll: all.value.unread });
      // An answer for a filter no longer on screen is dropped.
      if (get().inbox.filter !== f) return;
      set((s) => ({
        inbox: r.ok
          ? { ...s.inbox, ...r.value, loaded: true, error: null }
          : { ...s.inbox, loaded: true, error: r.error },
      }));
      if (whole && r.ok) set({ unreadAll: r.value.unread });
    },
    loadThread: async (teamId, agentId, contact) => {
      const r = await api['messages.thread']({ teamId, agentId, phone: contact, limit: PAGE });
      const key = threadKey(teamId, agentId, contact);
      if (!r.ok) return patchThread(key, { loaded: true, error: r.error });
      const t: Thread = { messages: r.value.messages, more: r.value.more, loaded: true, error: null };
      if (r.value.name !== undefined) t.name = r.value.name;
      set((s) => ({ threads: { ...s.threads, [key]: t } }));
    },
    loadOlder: async (teamId, agentId, contact) => {
      const key = threadKey(teamId, agentId, contact);
      const cur = get().threads[key];
      const first = cur?.messages[0];
      if (!cur || !first) return;
      const r = await api['messages.thread']({ teamId, agentId, phone: contact, before: first.at, limit: PAGE });
      if (!r.ok) return patchThread(key, { error: r.error });
      const now = get().threads[key] ?? cur;
      patchThread(key, { messages: [...r.value.messages, ...now.messages], more: r.value.more });
    },
    applyMessage: (m) => {
      if (m.teamId !== null) {
        const key = threadKey(m.teamId, m.agentId, m.contact);
        const t = get().threads[key];
        if (t?.loaded && !t.messages.some((x) => x.key === m.key)) {
          const messages = [...t.messages, m].sort((a, b) => a.at - b.at);
          patchThread(key, { messages });
        }
      }
      reloadInbox();
    },
    applyMessagesChanged: () => reloadInbox(),
    markThreadRead: async (teamId, agentId, contact) => {
      const r = await api['messages.markRead']({ teamId, agentId, phone: contact });
      if (r.ok) reloadInbox();
    },
    sendReply: async (teamId, agentId, contact, text) => {
      const r = await api['messages.send']({ teamId, agentId, to: contact, text });
      return r.ok ? null : r.error;
    },
    nameContact: async (contact, name) => {
      const r = await api['messages.setName']({ phone: contact, name });
      if (!r.ok) return r.error;
      set((s) => {
        const threads = { ...s.threads };
        for (const [k, t] of Object.entries(threads))
          if (k.endsWith(`/${contact}`)) threads[k] = { ...t, name: name.trim() || undefined };
        return { threads };
      });
      return null;
    },
    deleteThread: async (teamId, agentId, contact) => {
      const r = await api['messages.deleteConversation']({ teamId, agentId, phone: contact });
      if (!r.ok) return r.error;
      const key = threadKey(teamId, agentId, contact);
      set((s) => {
        const threads = { ...s.threads };
        delete threads[key];
        return {
          threads,
          inbox: {
            ...s.inbox,
            contacts: s.inbox.contacts.filter(
              (c) => !(c.teamId === teamId && c.agentId === agentId && c.contact === contact),
            ),
          },
        };
      });
      return null;
    },
    deleteAgentMessages: async (teamId, agentId) => {
      const r = await api['messages.deleteAgent']({ teamId, agentId });
      if (!r.ok) return r.error;
      const prefix = threadKey(teamId, agentId, '');
      set((s) => ({
        threads: Object.fromEntries(Object.entries(s.threads).filter(([k]) => !k.startsWith(prefix))),
        inbox: {
          ...s.inbox,
          contacts: s.inbox.contacts.filter((c) => !(c.teamId === teamId && c.agentId === agentId)),
        },
      }));
      return null;
    },
  };
};
