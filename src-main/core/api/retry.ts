// Retry policy for sends: 503 CHANNEL_RECONNECTING → exponential backoff with jitter (bounded);
// 429 → wait Retry-After / X-RateLimit-Reset (bounded); everything else is not retried, because a
// send is not idempotent. Waits run on the injected clock and stop when the signal fires.
import { backoffDelay, type BackoffPolicy } from '../backoff';
import { sleep, type Clock, type Random } from '../ports';
import { Aborted, ChannelReconnecting, RateLimited, ServiceError } from './errors';
import type { RetryInfo } from './service';

/** Waits between send retries: 1 s doubling to 16 s, each somewhere in its upper half. */
export const SEND_RETRY_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 16_000, jitter: 0.5 };
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
  /** Asked once maxRetries 503 retries are spent: true retries the 503 again (at the backoff's cap). */
  shouldKeepRetrying?: () => boolean;
}

async function wait(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(clock, ms, signal);
  } catch {
    throw new Aborted({ message: 'The send was cancelled while waiting to retry.' });
  }
}

/** Runs one send attempt after another until it succeeds or the policy says stop. */
export async function withSendRetry<T>(deps: SendRetryDeps, opts: SendRetryOptions, attemptOnce: () => Promise<T>): Promise<T> {
  let reconnectRetries = 0;
  let rateRetries = 0;
  let attempt = 0;
  for (;;) {
    try {
      return await attemptOnce();
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      let delayMs: number;
      if (err instanceof ChannelReconnecting) {
        if (reconnectRetries >= opts.maxRetries && !opts.shouldKeepRetrying?.()) throw err;
        reconnectRetries++;
        delayMs = backoffDelay(SEND_RETRY_BACKOFF, reconnectRetries, deps.random);
      } else if (err instanceof RateLimited) {
        if (rateRetries >= MAX_RATE_LIMIT_RETRIES) throw err;
        rateRetries++;
        const secs = err.retryAfterSeconds(Math.floor(deps.clock.now() / 1000));
        delayMs = secs !== undefined ? secs * 1000 : backoffDelay(SEND_RETRY_BACKOFF, rateRetries, deps.random);
        if (delayMs > MAX_RATE_LIMIT_WAIT_MS) throw err;
      } else {
        throw err;
      }
      attempt++;
      opts.onRetry?.({ attempt, delayMs, error: { kind: err.kind, code: err.code, message: err.message } });
      await wait(deps.clock, delayMs, opts.signal);
    }
  }
}
