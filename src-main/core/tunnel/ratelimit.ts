// Per-source budget for refused requests (a token bucket per remote address): a source that keeps
// sending what the receiver refuses gets 429 with Retry-After, and only the first such answer per
// spell is kept in the refused store. Verified deliveries never touch the budget.
// A source named by X-Forwarded-For (a request relayed by a tunnel program on this machine) may be
// made up: a program that relays raw TCP (ssh -R) passes the header on as the sender wrote it. So
// everything relayed through one local peer also shares one bucket, RELAYED_SHARE times a source's,
// and is refused at once when either is spent: made-up sources cannot multiply the budget.
export interface RefusalRate {
  /** Refusals a source may run up at once. */
  burst: number;
  /** Refusals per second a source earns back. */
  perSec: number;
}

const DEFAULT_REFUSAL_RATE: RefusalRate = { burst: 30, perSec: 0.5 };
/** Sources remembered at once (the least recently seen are forgotten first). */
const MAX_SOURCES = 10_000;
/** The bucket shared by the sources relayed through one local peer, in sources' budgets. */
const RELAYED_SHARE = 10;

interface Bucket {
  tokens: number;
  at: number;
  /** Over budget since the last refusal that was within it. */
  limited: boolean;
}

export type Take = { limited: false } | { limited: true; retryAfterSec: number; first: boolean };

/** Token buckets by key, the least recently seen forgotten first. */
class Buckets {
  private readonly map = new Map<string, Bucket>();

  constructor(private readonly rate: RefusalRate) {}

  refill(key: string, nowMs: number): Bucket {
    let b = this.map.get(key);
    if (!b) {
      b = { tokens: this.rate.burst, at: nowMs, limited: false };
      if (this.map.size >= MAX_SOURCES) this.map.delete(this.map.keys().next().value!);
    } else {
      this.map.delete(key);
      b.tokens = Math.min(this.rate.burst, b.tokens + ((nowMs - b.at) / 1000) * this.rate.perSec);
      b.at = nowMs;
    }
    this.map.set(key, b);
    return b;
  }

  /** Seconds until a limited bucket has a token again (0: not limited). */
  wait(key: string, nowMs: number): number {
    const b = this.map.get(key);
    if (!b || !b.limited) return 0;
    const tokens = Math.min(this.rate.burst, b.tokens + ((nowMs - b.at) / 1000) * this.rate.perSec);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.rate.perSec));
  }
}

export class RefusalLimiter {
  private readonly sources: Buckets;
  private readonly relays: Buckets;

  constructor(rate: RefusalRate = DEFAULT_REFUSAL_RATE) {
    this.sources = new Buckets(rate);
    this.relays = new Buckets({ burst: rate.burst * RELAYED_SHARE, perSec: rate.perSec * RELAYED_SHARE });
  }

  /**
   * Counts one refusal against the source (and, for a source named by X-Forwarded-For, against the
   * local peer `via` that relayed it).
   */
  take(from: string, nowMs: number, via?: string): Take {
    const own = this.sources.refill(from, nowMs);
    const shared = via === undefined ? null : this.relays.refill(via, nowMs);
    if (own.tokens >= 1 && (shared === null || shared.tokens >= 1)) {
      own.tokens -= 1;
      own.limited = false;
      if (shared) {
        shared.tokens -= 1;
        shared.limited = false;
      }
      return { limited: false };
    }
    // Only the first refusal of a spell is kept: a made-up source met by a spent shared bucket is not a new spell.
    const first = !own.limited && !(shared?.limited ?? false);
    own.limited = true;
    if (shared && shared.tokens < 1) shared.limited = true;
    return {
      limited: true,
      retryAfterSec: Math.max(this.sources.wait(from, nowMs), via === undefined ? 0 : this.relays.wait(via, nowMs), 1),
      first,
    };
  }

  /** Seconds the source must wait before a refusal is answered normally again (0: not limited). */
  retryAfter(from: string, nowMs: number, via?: string): number {
    return Math.max(this.sources.wait(from, nowMs), via === undefined ? 0 : this.relays.wait(via, nowMs));
  }
}
