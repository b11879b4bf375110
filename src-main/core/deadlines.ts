// Many timeouts on one clock timer. Each deadline is due `ms` after it was added; the timer waits for
// the earliest one still pending. Adding is O(1) when deadlines come in due order (one timeout length,
// the usual case) and cancelling is O(1): a cancelled deadline only stays in the queue, inert, until
// the queue is next walked. When no deadline is pending, no timer is left behind.
import type { Clock } from './ports';

export interface Deadline {
  /** Stops it from firing (nothing happens if it already fired). */
  cancel(): void;
}

class Entry implements Deadline {
  constructor(
    readonly owner: Deadlines,
    readonly at: number,
    /** Called with `subject` (typed by add(), which pairs them). */
    public fire: ((subject: unknown) => void) | null,
    /** Let go on cancel: an inert entry waiting in the queue keeps nothing else alive. */
    public subject: unknown,
  ) {}

  cancel(): void {
    if (this.fire === null) return;
    this.fire = null;
    this.subject = null;
    this.owner.cancelled();
  }
}

export class Deadlines {
  /** Pending entries from `head` on, in due order (cancelled ones may still be among them). */
  private queue: Entry[] = [];
  private head = 0;
  private live = 0;
  private timer: unknown = null;
  private timerAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Calls fire(subject) `ms` from now, unless cancelled first. */
  add<T>(ms: number, fire: (subject: T) => void, subject: T): Deadline {
    const entry = new Entry(this, this.clock.now() + ms, fire as (subject: unknown) => void, subject);
    const q = this.queue;
    let i = q.length;
    while (i > this.head && q[i - 1]!.at > entry.at) i--;
    if (i === q.length) q.push(entry);
    else q.splice(i, 0, entry);
    this.live++;
    if (entry.at < this.timerAt) this.arm(entry.at);
    return entry;
  }

  /** Deadlines still pending. */
  get pending(): number {
    return this.live;
  }

  /** Called by an entry that was cancelled. */
  cancelled(): void {
    if (--this.live > 0) return;
    this.disarm();
    this.queue = [];
    this.head = 0;
  }

  private arm(at: number): void {
    this.disarm();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        this.run();
      },
      Math.max(0, at - this.clock.now()),
    );
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  /** Fires what is due, drops cancelled entries at the front, and waits for the next pending one. */
  private run(): void {
    const now = this.clock.now();
    // A fire may add or cancel deadlines: the queue is read afresh each time round.
    while (this.head < this.queue.length) {
      const e = this.queue[this.head]!;
      if (e.fire !== null && e.at > now) break;
      this.head++;
      const fire = e.fire;
      if (fire === null) continue;
      e.fire = null;
      this.live--;
      fire(e.subject);
    }
    if (this.live === 0) {
      this.disarm();
      this.queue = [];
      this.head = 0;
      return;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const next = this.queue[this.head]!.at;
    if (next !== this.timerAt) this.arm(next);
  }
}
