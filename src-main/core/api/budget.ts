// Client-side send budget for one team: a sliding window (60 sends per 60 s unless the service
// reports another X-RateLimit-Limit). Sends beyond it wait in a FIFO queue instead of earning 429s.
// ASSUMPTION A-RATE
import type { Clock } from '../ports';
import { Aborted } from './errors';
import type { QueuedSend, SendBudgetSnapshot } from './service';

interface Waiter {
  id: string;
  agentId: string;
  to: string;
  enqueuedAt: number;
  resolve(): void;
  reject(err: Error): void;
  detach(): void;
}

export interface SendBudgetOptions {
  limit?: number;
  windowMs?: number;
  /** Extra hold per slot: the service's window starts when a send arrives, this budget's when it leaves. */
  marginMs?: number;
  clock: Clock;
  newId: () => string;
}

export class SendBudget {
  private limit: number;
  readonly windowMs: number;
  /** How long one send holds its slot: the window plus the transit margin. */
  private readonly holdMs: number;
  private readonly clock: Clock;
  private readonly newId: () => string;
  /** Start times of sends in the window, oldest first. */
  private stamps: number[] = [];
  private queue: Waiter[] = [];
  private timer: unknown = undefined;

  constructor(opts: SendBudgetOptions) {
    this.limit = Math.max(1, Math.floor(opts.limit ?? 60));
    this.windowMs = Math.max(1, opts.windowMs ?? 60_000);
    this.holdMs = this.windowMs + Math.max(0, opts.marginMs ?? Math.min(1000, Math.floor(this.windowMs / 60)));
    this.clock = opts.clock;
    this.newId = opts.newId;
  }

  /** Adopts the ceiling the service reports (X-RateLimit-Limit on a send answer). */
  setLimit(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1 || limit === this.limit) return;
    this.limit = limit;
    this.drain();
  }

  /**
   * Resolves when a send may go out (the slot is taken at that moment). Rejects with Aborted when the
   * signal fires or cancel(id) is called while it waits.
   */
  acquire(
    meta: { agentId: string; to: string },
    signal?: AbortSignal,
    onQueued?: (info: { id: string; position: number; waitMs: number }) => void,
  ): Promise<void> {
    if (signal?.aborted) return Promise.reject(new Aborted({ message: 'The send was cancelled.' }));
    const now = this.clock.now();
    this.prune(now);
    if (this.queue.length === 0 && this.stamps.length < this.limit) {
      this.stamps.push(now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const id = this.newId();
      const onAbort = () => {
        if (this.remove(id))
          reject(new Aborted({ message: 'The send was cancelled while it waited for the send budget.' }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiter: Waiter = {
        id,
        agentId: meta.agentId,
        to: meta.to,
        enqueuedAt: now,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      this.queue.push(waiter);
      const position = this.queue.length;
      const eta = this.etas(now)[position - 1] ?? now;
      onQueued?.({ id, position, waitMs: Math.max(0, eta - now) });
      this.schedule(now);
    });
  }

  /** Rejects a queued send with Aborted. False when it is not (or no longer) queued. */
  cancel(id: string): boolean {
    const w = this.queue.find((q) => q.id === id);
    if (!w || !this.remove(id)) return false;
    w.reject(new Aborted({ message: 'The queued send was cancelled.' }));
    return true;
  }

  snapshot(): SendBudgetSnapshot {
    const now = this.clock.now();
    this.prune(now);
    const etas = this.etas(now);
    const queued: QueuedSend[] = this.queue.map((w, i) => ({
      id: w.id,
      agentId: w.agentId,
      to: w.to,
      enqueuedAt: w.enqueuedAt,
      etaMs: Math.max(0, (etas[i] ?? now) - now),
    }));
    return { limit: this.limit, windowMs: this.windowMs, used: this.stamps.length, queued };
  }

  /** Rejects every waiter (client closing). */
  dispose(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const waiting = this.queue;
    this.queue = [];
    for (const w of waiting) {
      w.detach();
      w.reject(new Aborted({ message: 'The client was closed before the send went out.' }));
    }
  }

  private remove(id: string): boolean {
    const i = this.queue.findIndex((q) => q.id === id);
    if (i === -1) return false;
    const [w] = this.queue.splice(i, 1);
    w?.detach();
    this.schedule(this.clock.now());
    return true;
  }

  private prune(now: number): void {
    while (this.stamps.length > 0 && (this.stamps[0] as number) + this.holdMs <= now) this.stamps.shift();
  }

  /** Estimated start time of each queued send, simulating the window forward. */
  private etas(now: number): number[] {
    const times = [...this.stamps];
    const out: number[] = [];
    for (let i = 0; i < this.queue.length; i++) {
      const idx = times.length - this.limit;
      const t = idx >= 0 ? Math.max(now, (times[idx] as number) + this.holdMs) : now;
      times.push(t);
      out.push(t);
    }
    return out;
  }

  private drain(): void {
    const now = this.clock.now();
    this.prune(now);
    while (this.queue.length > 0 && this.stamps.length < this.limit) {
      const w = this.queue.shift() as Waiter;
      w.detach();
      this.stamps.push(now);
      w.resolve();
    }
    this.schedule(now);
  }

  private schedule(now: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const idx = this.stamps.length - this.limit;
    const at = idx >= 0 ? (this.stamps[idx] as number) + this.holdMs : now;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.drain();
      },
      Math.max(0, at - now),
    );
  }
}
