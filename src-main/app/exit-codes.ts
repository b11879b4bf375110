// The command line's exit codes, as the one error mapper (errors.ts) gives them. Scripts branch on these,
// so they never change meaning.
export const EXIT = {
  /** Success (for verify: the delivery is valid). */
  ok: 0,
  /** The operation failed or its subject is invalid (bad delivery, 400 from the service, timeout). */
  failure: 1,
  /** Usage: unknown option, missing or invalid flag value, missing API key. Nothing was sent. */
  usage: 2,
  /** The service answered with an error of its own class: needs a scan, reconnecting, rate limit, quota, not found, unreachable. */
  service: 3,
  /** The API key was rejected (401/403). */
  auth: 4,
  /** Interrupted by Ctrl-C / SIGTERM while waiting. */
  interrupted: 130,
} as const;
