export * from './types';
export * from './errors';
export * from './service';
export { createServiceClient } from './client';
export { ChatEventDecoder } from './sse';
