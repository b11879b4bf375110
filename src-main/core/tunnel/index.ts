// The local signed-webhook tunnel: public API for the app, the browser host and the CLI.
export { Tunnel, TunnelError } from './tunnel';
export { EventLog } from './log';
export { RefusedStore, type RefusedQuery } from './refused';
export { LOCK_FILE } from './lock';
export { ensurePrivateDir } from './private-files';
export { verifyTunnelDelivery } from './verify';
export { registerWebhook, type WebhookRegistration } from './register';
export { hookUrl } from './hook-url';
export { RegistrationsInFlight } from './in-flight';
export { RegistrationHistory, REGISTRATION_HISTORY_FILE, type RegistrationRecord, type RegistrationTarget } from './registration-history';
export { composeInboundEvent } from './simulate';
export { toCurl, toFixture } from './export';
export { ReplayError } from './replay';
export { createUndiciTransport } from './transport';
export type { Transport, ForwardRequest, ForwardResponse } from './transport';
export * from './types';
