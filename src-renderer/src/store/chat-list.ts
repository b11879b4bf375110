// The conversations of each agent (chat.conversations: one per user id in this install's
// transcripts), which one the chat window shows, search, and delete. Names given to conversations
// are the window's own (features/chat/names.ts), not kept here.
import type { ChatConversationDTO, ErrorDTO } from '../../../src-shared/contract';
import type { ChatSlice } from './chat';
import { agentKey, type Slice } from './env';

interface ChatList {
  /** Most recent first, as the core lists them. */
  items: ChatConversationDTO[];
  loaded: boolean;
  error: ErrorDTO | null;
  /** The user id of the conversation on screen; null: the person's own (the install id). */
  selected: string | null;
}

export interface ChatListSlice {
  /** By agentKey(teamId, agentId). */
  chatLists: Record<string, ChatList>;
  loadChatList(teamId: string, agentId: string): Promise<void>;
  selectChat(teamId: string, agentId: string, userId: string | null): void;
  /** Conversations whose messages or replies contain `text` (not stored: the caller shows them). */
  searchChats(
    teamId: string,
    agentId: string,
    text: string,
  ): Promise<{ ok: true; items: ChatConversationDTO[] } | { ok: false; error: ErrorDTO }>;
  /** Deletes the conversation's transcript; on success it leaves the list and this window forgets its messages. */
  deleteChat(teamId: string, agentId: string, userId: string): Promise<ErrorDTO | null>;
}

const EMPTY: ChatList = { items: [], loaded: false, error: null, selected: null };

export const chatListSlice: Slice<ChatListSlice, Pick<ChatSlice, 'forgetChat'>> = ({ set, get, api }) => {
  const patch = (key: string, p: Partial<ChatList>) =>
    set((s) => ({ chatLists: { ...s.chatLists, [key]: { ...(s.chatLists[key] ?? EMPTY), ...p } } }));
  return {
    chatLists: {},
    loadChatList: async (teamId, agentId) => {
      const key = agentKey(teamId, agentId);
      const r = await api['chat.conversations']({ teamId, agentId });
      patch(key, r.ok ? { items: r.value, loaded: true, error: null } : { loaded: true, error: r.error });
    },
    selectChat: (teamId, agentId, userId) => patch(agentKey(teamId, agentId), { selected: userId }),
    searchChats: async (teamId, agentId, text) => {
      const r = await api['chat.conversations']({ teamId, agentId, text });
      return r.ok ? { ok: true, items: r.value } : { ok: false, error: r.error };
    },
    deleteChat: async (teamId, agentId, userId) => {
      const r = await api['chat.deleteConversation']({ teamId, agentId, userId });
      if (!r.ok) return r.error;
      const key = agentKey(teamId, agentId);
      patch(key, { items: (get().chatLists[key] ?? EMPTY).items.filter((c) => c.userId !== userId) });
      get().forgetChat(teamId, agentId, userId);
      return null;
    },
  };
};
