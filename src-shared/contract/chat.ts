// The contract's chat: Chat with an agent.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { ErrorDTO, RawFrameDTO } from './errors';

interface ChatActionDTO {
  name: string;
  [key: string]: unknown;
}

export interface ChatResultDTO {
  reply: string;
  conversationId: string | null;
  actions: ChatActionDTO[];
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
  /** ms from the turn's start to its first token, measured by the main process; null when none came. */
  firstTokenMs?: number | null;
  /** Output tokens per second of generation, measured by the main process; null when unknown. */
  tokensPerSec?: number | null;
}

export interface ChatMessageDTO {
  id: string;
  role: 'user' | 'agent';
  text: string;
  at: number;
  /** Set on agent messages that ended (done or error). */
  status?: 'streaming' | 'done' | 'stopped' | 'error';
  result?: ChatResultDTO;
  error?: ErrorDTO;
  /** The turn an agent message answers (chat.frames). */
  turnId?: string;
}

/** A turn's token stream frames as received (bounded: the first and the latest ones). */
export interface ChatFramesDTO {
  frames: RawFrameDTO[];
  /** Frames received but left out (the middle of a long stream). */
  omitted: number;
  /** The turn is still streaming. */
  live: boolean;
  /** False for a turn whose frames this run of the app did not see (an older transcript). */
  known: boolean;
}

/** One conversation with an agent in this install's transcripts: one per user id. */
export interface ChatConversationDTO {
  userId: string;
  turns: number;
  /** When its last turn ended (ms epoch). */
  lastAt: number | null;
  /** The service's conversation id, from its latest reply that carried one. */
  conversationId: string | null;
  /** The first message, cut short (the window may show a name of its own instead). */
  title: string;
  /** The last reply (or message), cut short, as written (line breaks and markdown kept). */
  preview: string;
  /** With a search text: the words around its first match; otherwise null. */
  match: string | null;
}
