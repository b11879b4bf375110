export { createHandlers, type Handler, type Handlers } from './handlers';
export { argSchemas } from './schemas';
export { AppError, toErrorDTO, zodToDTO } from './errors';
export { createEventHub, type EventHub } from './events';
export { worstHealth, unknownHealth } from './health';
export { snoozeUntil } from './snooze';
export type * from './services';
export { RENDERER_CSP, contentTypeFor, rendererHeaders } from './web-security';
