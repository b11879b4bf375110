export { ChatService, type TurnFrames } from './chat-service';
export type { TurnRecord } from './types';
