// Why an exposure could not start or stopped by itself, in words, with what to do about it. The
// messages never carry the ngrok authtoken (ngrok's own words are scrubbed of it before they land
// here).
import { CompanionError } from '../errors';

export type ExposeErrorCode =
  /** No ngrok authtoken is stored. */
  | 'no-authtoken'
  /** ngrok refused the authtoken. */
  | 'authtoken-rejected'
  /** ngrok could not be reached. */
  | 'no-network'
  /** Nothing came up (no URL printed, no session) within the time allowed. */
  | 'timeout'
  /** The exposure command ended (before printing a URL, or later). */
  | 'exited'
  /** The command cannot be run as given (no {port}, empty). */
  | 'bad-command'
  /** The keychain could not be read. */
  | 'keychain'
  | 'failed';

export class ExposeError extends CompanionError {
  constructor(
    readonly code: ExposeErrorCode,
    message: string,
    /** What to do about it, in one sentence or two. */
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ExposeError';
  }
}

export const LOCAL_KEEPS_WORKING = 'The local receiver keeps working meanwhile.';
