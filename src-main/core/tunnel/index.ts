// The local signed-webhook tunnel: public API for the app, the browser host and the CLI.
export { Tunnel, TunnelError } from './tunnel';
export { hookUrl } from './hook-url';
export { EventLog } from './log';
export { deliveryBody } from './log-entry';
export { ensurePrivateDir } from './private-files';
export type { WebhookRegistration } from './register';
export { REGISTERING_DIR, RegistrationsInFlight } from './in-flight';
export {
  RegistrationHistory,
  type RegistrationLog,
  type RegistrationRecord,
  type RegistrationTarget,
} from './registration-history';
export { ReplayError } from './replay';
export type { DeliveryCommit } from './ingest';
export * from './types';
