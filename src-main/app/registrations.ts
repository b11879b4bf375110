// Webhook registrations: an agent's hook URL on a receiver, the history of what was registered where, and the
// registrations still on their way (so that two commands do not register one agent at once).
export { hookUrl } from '../core/tunnel/hook-url';
export { REGISTERING_DIR, RegistrationsInFlight } from '../core/tunnel/in-flight';
export {
  RegistrationHistory,
  type RegistrationRecord,
  type RegistrationTarget,
} from '../core/tunnel/registration-history';
