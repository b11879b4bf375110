export * from './types';
export * from './errors';
export * from './service';
export { createServiceClient, DEFAULT_TIMEOUT_MS, DEFAULT_SEND_MAX_RETRIES } from './client';
export { normalizeRecipient, normalizePhoneDigits, isGroupJid } from './phone';
export { prepareSendRequest } from './send-request';
export { parseRateLimit } from './rate-limit';
export { readErrorBody, mapErrorResponse } from './error-map';
export { ChatEventDecoder } from './sse';
