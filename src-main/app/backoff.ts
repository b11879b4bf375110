// The one rule for how long to wait before trying again, for a shell that retries work of its own.
export { backoffDelay, type BackoffPolicy } from '../core/backoff';
