// Chat conversations: plain-data records of each turn, and the events a running turn emits.
import type { ChatAction, ChatUsage } from '../api/types';
import type { ServiceErrorDTO } from '../api/errors';

/** How the reply arrived. `fallback`: the stream failed before its first token, so one chat() answer was fetched. */
export type TurnMode = 'stream' | 'single' | 'fallback';

/** One message and its reply, as kept in the transcript. */
export interface TurnRecord {
  turnId: string;
  teamId: string;
  agentId: string;
  userId: string;
  message: string;
  /** The reply as received (partial when stopped or failed mid-stream). */
  reply: string;
  conversationId: string | null;
  actions: ChatAction[];
  usage: ChatUsage;
  mode: TurnMode;
  /** ms since epoch, from the injected clock. */
  startedAt: number;
  endedAt: number;
  /** ms from start to the first token (or to the whole reply without streaming); null when none came. */
  firstTokenMs: number | null;
  /** Output tokens (usage.outputTokens, else token events) per second of generation; null when unknown. */
  tokensPerSec: number | null;
  /** Token events received while streaming. */
  tokenCount: number;
  /** The person stopped the turn. */
  stopped: boolean;
  error: ServiceErrorDTO | null;
}

export type TurnEvent =
  | { type: 'token'; turnId: string; token: string }
  /** The stream failed before any token; the reply is being fetched in one piece instead. */
  | { type: 'fallback'; turnId: string; reason: ServiceErrorDTO }
  /** Always the last event of a turn, whatever happened (see stopped / error on the record). */
  | { type: 'done'; turnId: string; turn: TurnRecord };

export interface StartTurnInput {
  teamId: string;
  agentId: string;
  /** Default: the install id (the person's own conversation). Another value plays a different customer. */
  userId?: string;
  message: string;
  /** Default true. */
  stream?: boolean;
}

export interface TurnHandle {
  turnId: string;
  userId: string;
  /** Single-consumer; events are buffered until read. Ends after the `done` event. */
  events: AsyncIterable<TurnEvent>;
  /** Resolves with the final record (same as the `done` event's). */
  result: Promise<TurnRecord>;
}

export interface ActiveTurn {
  turnId: string;
  teamId: string;
  agentId: string;
  userId: string;
  startedAt: number;
}

export interface ConversationSummary {
  agentId: string;
  userId: string;
  turns: number;
  lastAt: number | null;
  conversationId: string | null;
  /** The first message, cut short (a title for the conversation). */
  title: string;
  /** The last reply (or, when it is empty, the last message), cut short, as written (line breaks and markdown kept). */
  preview: string;
  /** With a search text: the words around its first match in a message or reply; otherwise null. */
  match: string | null;
}
