// A manual Clock for tests: time only moves through advance(), which fires due timers one at a
// time in order and lets async work settle after each.
import type { Clock } from '../../src-main/core/ports';

/** Lets pending promise chains (and undici's mock replies) run. */
export async function flush(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

export interface FakeClockOptions {
  /** Start time in ms since epoch. */
  start?: number;
  /** Run before the first timer, after each timer and at the end of advance(); flush() by default. */
  settle?: () => Promise<void>;
}

export class FakeClock implements Clock {
  protected t: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  private readonly settle: () => Promise<void>;

  constructor(opts: number | FakeClockOptions = {}) {
    const o = typeof opts === 'number' ? { start: opts } : opts;
    this.t = o.start ?? Date.UTC(2024, 0, 10, 12, 0, 0);
    this.settle = o.settle ?? (() => flush());
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.timers.size;
  }

  /** Milliseconds until each pending timer fires, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((x) => x.at - this.t).sort((a, b) => a - b);
  }

  /** Moves time forward by ms, firing due timers in order (ties by creation) and settling between them. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await this.settle();
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
      await this.settle();
    }
    this.t = end;
    await this.settle();
  }
}
