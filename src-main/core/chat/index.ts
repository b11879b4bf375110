export { ChatService, deletionWhileRunning } from './chat-service';
export type { ConversationSummary, TurnRecord } from './types';
export {
  conversationSummary,
  DEFAULT_MAX_TURNS,
  searchNeedle,
  summaryOfTurns,
  turnRecordOf,
  type TranscriptStore,
} from './transcript-store';
