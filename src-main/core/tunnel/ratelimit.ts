// Per-source budget for refused requests (a token bucket per remote address): a source that keeps
// sending what the receiver refuses gets 429 with Retry-After, and only the first such answer per
// spell is kept in the refused store. Verified deliveries never touch the budget.
export interface RefusalRate {
  /** Refusals a source may run up at once. */
  burst: number;
  /** Refusals per second a source earns back. */
  perSec: number;
}

export const DEFAULT_REFUSAL_RATE: RefusalRate = { burst: 30, perSec: 0.5 };
/** Sources remembered at once (the least recently seen are forgotten first). */
const MAX_SOURCES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
  /** Over budget since the last refusal that was within it. */
  limited: boolean;
}

export type Take = { limited: false } | { limited: true; retryAfterSec: number; first: boolean };

export class RefusalLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly rate: RefusalRate = DEFAULT_REFUSAL_RATE) {}

  private refill(from: string, nowMs: number): Bucket {
    let b = this.buckets.get(from);
    if (!b) {
      b = { tokens: this.rate.burst, at: nowMs, limited: false };
      if (this.buckets.size >= MAX_SOURCES) this.buckets.delete(this.buckets.keys().next().value!);
    } else {
      this.buckets.delete(from);
      b.tokens = Math.min(this.rate.burst, b.tokens + ((nowMs - b.at) / 1000) * this.rate.perSec);
      b.at = nowMs;
    }
    this.buckets.set(from, b);
    return b;
  }

  private wait(b: Bucket): number {
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate.perSec));
  }

  /** Counts one refusal against the source. */
  take(from: string, nowMs: number): Take {
    const b = this.refill(from, nowMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      b.limited = false;
      return { limited: false };
    }
    const first = !b.limited;
    b.limited = true;
    return { limited: true, retryAfterSec: this.wait(b), first };
  }

  /** Seconds the source must wait before a refusal is answered normally again (0: not limited). */
  retryAfter(from: string, nowMs: number): number {
    const b = this.buckets.get(from);
    if (!b || !b.limited) return 0;
    const tokens = Math.min(this.rate.burst, b.tokens + ((nowMs - b.at) / 1000) * this.rate.perSec);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.rate.perSec));
  }
}
