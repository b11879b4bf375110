// Retry policy for sends: a 503 (CHANNEL_RECONNECTING, or any 503: the status keeps its meaning when
// the body says something else) → exponential backoff with jitter, bounded unless the caller's
// shouldKeepRetrying says go on; 429 → wait Retry-After / X-RateLimit-Reset when it lies ahead, else
// back off (never a hot loop), bounded; everything else is not retried, because a send is not
// idempotent (a 409 never). Waits run on the injected clock and stop when the signal fires.
import { backoffDelay, type BackoffPolicy } from '../backoff';
import { sleep, type Clock, type Random } from '../ports';
import { Aborted, RateLimited, ServiceError } from './errors';
import type { RetryInfo } from './service';

/** Waits between send retries: 1 s doubling to 16 s, each somewhere in its upper half. */
const SEND_RETRY_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 16_000, jitter: 0.5 };
/** Most 429 waits one send takes before giving up. */
const MAX_RATE_LIMIT_RETRIES = 3;
/** A 429 asking for a longer wait than this is returned to the caller instead. */
const MAX_RATE_LIMIT_WAIT_MS = 120_000;

export interface SendRetryDeps {
  clock: Clock;
  random: Random;
}

export interface SendRetryOptions {
  maxRetries: number;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /** Asked once the 503 retries are used up: true retries again (at the longest backoff). */
  shouldKeepRetrying?: (info: RetryInfo) => boolean | Promise<boolean>;
}

/** A 503: the number is reconnecting, or the service is briefly unavailable — either way, later. */
function isUnavailable(err: ServiceError): boolean {
  return err.kind === 'reconnecting' || err.status === 503;
}

async function wait(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(clock, ms, signal);
  } catch {
    throw new Aborted({ message: 'The send was cancelled while waiting to retry.' });
  }
}

/** Runs one send attempt after another until it succeeds or the policy says stop. */
export async function withSendRetry<T>(
  deps: SendRetryDeps,
  opts: SendRetryOptions,
  attemptOnce: () => Promise<T>,
): Promise<T> {
  let reconnectRetries = 0;
  let rateRetries = 0;
  let attempt = 0;
  for (;;) {
    try {
      return await attemptOnce();
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      let delayMs: number;
      const error = { kind: err.kind, code: err.code, message: err.message };
      if (isUnavailable(err)) {
        reconnectRetries++;
        delayMs = backoffDelay(SEND_RETRY_BACKOFF, reconnectRetries, deps.random);
        if (reconnectRetries > opts.maxRetries) {
          const keepOn = opts.shouldKeepRetrying
            ? await opts.shouldKeepRetrying({ attempt: attempt + 1, delayMs, error })
            : false;
          if (!keepOn || opts.signal?.aborted) throw err;
        }
      } else if (err instanceof RateLimited) {
        if (rateRetries >= MAX_RATE_LIMIT_RETRIES) throw err;
        rateRetries++;
        // A wait that is not ahead (no header, a reset already past) falls back to the backoff.
        const secs = err.retryAfterSeconds(Math.floor(deps.clock.now() / 1000));
        delayMs = secs !== undefined ? secs * 1000 : backoffDelay(SEND_RETRY_BACKOFF, rateRetries, deps.random);
        if (delayMs > MAX_RATE_LIMIT_WAIT_MS) throw err;
      } else {
        throw err;
      }
      attempt++;
      opts.onRetry?.({ attempt, delayMs, error });
      await wait(deps.clock, delayMs, opts.signal);
    }
  }
}
