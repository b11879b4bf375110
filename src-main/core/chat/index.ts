export { ChatService } from './chat-service';
export type { TurnRecord } from './types';
