export { ChatService, type ChatServiceOptions } from './chat-service';
export { TranscriptStore, DEFAULT_MAX_TURNS, type TranscriptStoreOptions } from './transcript-store';
export { streamErrorToDTO } from './turn-runner';
export type { ActiveTurn, ConversationSummary, StartTurnInput, TurnEvent, TurnHandle, TurnMode, TurnRecord } from './types';
