// The Messages screen's data: the inbox (contacts with unread counts, and why an agent's inbox may be
// incomplete) and the open threads, fed by messages.contacts / messages.thread and kept live by the
// messages.new and messages.changed events. A new message is put in its open thread at once; the
// inbox is asked again (its order, counts and last lines are the core's).
import type {
  ErrorDTO,
  InboxAgentDTO,
  MessageContactDTO,
  MessageDTO,
  MessageSearchDTO,
  Result,
  ResultOf,
} from '../../../src-shared/contract';
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
  /** Every message of the conversation was simulated or replayed (when it was loaded): no reply. */
  simulated?: boolean;
  loaded: boolean;
  error: ErrorDTO | null;
}

/** A search over every conversation (messages.search): the query on screen and its answer. */
interface MessageSearch {
  query: string;
  result: MessageSearchDTO | null;
  error: ErrorDTO | null;
}

type ExportFormat = 'jsonl' | 'csv' | 'text';

export interface MessagesSlice {
  inbox: Inbox;
  search: MessageSearch;
  /** By threadKey(teamId, agentId, contact). */
  threads: Record<string, Thread>;
  loadInbox(filter?: InboxFilter): Promise<void>;
  loadThread(teamId: string, agentId: string, contact: string): Promise<void>;
  /** Opens a thread: its load already under way (asked as the route changed) or a new one. */
  openThread(teamId: string, agentId: string, contact: string): Promise<void>;
  loadOlder(teamId: string, agentId: string, contact: string): Promise<void>;
  applyMessage(m: MessageDTO): void;
  applyMessagesChanged(): void;
  markThreadRead(teamId: string, agentId: string, contact: string): Promise<void>;
  nameContact(contact: string, name: string): Promise<ErrorDTO | null>;
  deleteThread(teamId: string, agentId: string, contact: string): Promise<ErrorDTO | null>;
  /** How many days messages are kept (1–3,650). */
  setRetention(days: number): Promise<ErrorDTO | null>;
  /** Every conversation of the agent (this install's copy). */
  deleteAgentMessages(teamId: string, agentId: string): Promise<ErrorDTO | null>;
  /** Searches every conversation of every agent ('' clears the search). */
  searchMessages(query: string): Promise<void>;
  /** A conversation as a file's content, to save. */
  exportThread(
    teamId: string,
    agentId: string,
    contact: string,
    format: ExportFormat,
  ): Promise<Result<ResultOf<'messages.export'>>>;
  /** A contact's data: its conversations with every agent and its local name. */
  deleteContactData(contact: string): Promise<ErrorDTO | null>;
}

export const threadKey = (teamId: string, agentId: string, contact: string): string =>
  `${teamId}/${agentId}/${contact}`;

const PAGE = 50;
const EMPTY_THREAD: Thread = { messages: [], more: false, loaded: false, error: null };

/** At most one inbox reload this often: a burst of messages re-renders the contact list four times a second, not once per message. */
const INBOX_EVERY_MS = 250;

export const messagesSlice: Slice<MessagesSlice> = ({ set, get, api, env }) => {
  const patchThread = (key: string, p: Partial<Thread>) =>
    set((s) => ({ threads: { ...s.threads, [key]: { ...(s.threads[key] ?? EMPTY_THREAD), ...p } } }));
  /** Threads being opened, by key: the route's change and the screen's mount ask once between them. */
  const opening = new Map<string, Promise<void>>();
  /** Inbox reloads asked while one runs, or sooner than INBOX_EVERY_MS after it started, collapse into one more. */
  let inboxRun: Promise<void> | null = null;
  let inboxAgain = false;
  let inboxAt = -Infinity;
  let inboxLater: ReturnType<typeof setTimeout> | null = null;
  const reloadInbox = (due = false): void => {
    if (inboxRun || inboxLater) {
      inboxAgain = true;
      return;
    }
    const wait = inboxAt + INBOX_EVERY_MS - env.now();
    if (!due && wait > 0) {
      inboxLater = setTimeout(() => {
        inboxLater = null;
        inboxAgain = false;
        reloadInbox(true);
      }, wait);
      return;
    }
    inboxAt = env.now();
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
  /** A search on screen is asked again once conversations are deleted (their hits go). */
  const searchAgain = (): void => {
    const { query } = get().search;
    if (query) void get().searchMessages(query);
  };
  return {
    inbox: { contacts: [], agents: [], unread: 0, retentionDays: 90, loaded: false, error: null, filter: {} },
    search: { query: '', result: null, error: null },
    threads: {},
    loadInbox: async (filter) => {
      const f = filter ?? get().inbox.filter;
      if (filter) set((s) => ({ inbox: { ...s.inbox, filter } }));
      const args: InboxFilter = {};
      if (f.teamId) args.teamId = f.teamId;
      if (f.agentId) args.agentId = f.agentId;
      if (f.search?.trim()) args.search = f.search.trim();
      const r = await api['messages.contacts'](args);
      // An answer for a filter no longer on screen is dropped.
      if (get().inbox.filter !== f) return;
      set((s) => ({
        inbox: r.ok
          ? { ...s.inbox, ...r.value, loaded: true, error: null }
          : { ...s.inbox, loaded: true, error: r.error },
      }));
    },
    openThread: (teamId, agentId, contact) => {
      const key = threadKey(teamId, agentId, contact);
      const running = opening.get(key);
      if (running) return running;
      const load = get()
        .loadThread(teamId, agentId, contact)
        .finally(() => opening.delete(key));
      opening.set(key, load);
      return load;
    },
    loadThread: async (teamId, agentId, contact) => {
      const r = await api['messages.thread']({ teamId, agentId, phone: contact, limit: PAGE });
      const key = threadKey(teamId, agentId, contact);
      if (!r.ok) return patchThread(key, { loaded: true, error: r.error });
      const t: Thread = { messages: r.value.messages, more: r.value.more, loaded: true, error: null };
      if (r.value.name !== undefined) t.name = r.value.name;
      if (r.value.simulated) t.simulated = true;
      set((s) => ({ threads: { ...s.threads, [key]: t } }));
    },
    loadOlder: async (teamId, agentId, contact) => {
      const key = threadKey(teamId, agentId, contact);
      const cur = get().threads[key];
      const first = cur?.messages[0];
      if (!cur || !first) return;
      // Up to and including the oldest one's time (`before` is exclusive): messages of the same
      // millisecond beyond the page's edge are not skipped; those already here are left out.
      const r = await api['messages.thread']({ teamId, agentId, phone: contact, before: first.at + 1, limit: PAGE });
      if (!r.ok) return patchThread(key, { error: r.error });
      const now = get().threads[key] ?? cur;
      const have = new Set(now.messages.filter((m) => m.at === first.at).map((m) => m.key));
      const older = r.value.messages.filter((m) => !have.has(m.key));
      patchThread(key, { messages: [...older, ...now.messages], more: r.value.more });
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
      searchAgain();
      return null;
    },
    setRetention: async (days) => {
      const r = await api['messages.setRetention']({ days });
      if (!r.ok) return r.error;
      set((s) => ({ inbox: { ...s.inbox, retentionDays: r.value.retentionDays } }));
      reloadInbox();
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
      searchAgain();
      return null;
    },
    searchMessages: async (query) => {
      const q = query.trim();
      if (!q) return set({ search: { query: '', result: null, error: null } });
      // The last answer stays on screen until this one comes.
      set((s) => ({ search: { ...s.search, query: q } }));
      const r = await api['messages.search']({ query: q });
      // An answer for a query no longer on screen is dropped.
      if (get().search.query !== q) return;
      set({ search: r.ok ? { query: q, result: r.value, error: null } : { query: q, result: null, error: r.error } });
    },
    exportThread: (teamId, agentId, contact, format) =>
      api['messages.export']({ teamId, agentId, phone: contact, format }),
    deleteContactData: async (contact) => {
      const r = await api['messages.deleteContact']({ phone: contact });
      if (!r.ok) return r.error;
      set((s) => ({
        threads: Object.fromEntries(Object.entries(s.threads).filter(([k]) => !k.endsWith(`/${contact}`))),
        inbox: { ...s.inbox, contacts: s.inbox.contacts.filter((c) => c.contact !== contact) },
      }));
      searchAgain();
      return null;
    },
  };
};
