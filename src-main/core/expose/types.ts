// An exposure: the local receiver reachable at a public URL, by ngrok or by a tunnel program.
import type { ExposeError } from './errors';

export type ExposeKind = 'ngrok' | 'command';

export interface Exposure {
  /** The public base URL (origin, no trailing slash): hooks are <url>/hooks/<agentId>. */
  readonly url: string;
  /** Settles with why, if the exposure ends by itself (the program exits); never after stop(). */
  readonly lost: Promise<ExposeError>;
  stop(): Promise<void>;
}

/** How long an exposure may take to come up. */
export const DEFAULT_EXPOSE_TIMEOUT_MS = 30_000;
