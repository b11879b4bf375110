// Retention: the log is bounded by deliveries / bytes / age; the oldest segment goes first.
// Deliveries still pending in it are carried forward into the newest segment so nothing waiting is
// lost, and the others' duplicate keys are handed to beforeDrop first (the tunnel keeps them:
// seen.ts). A failure of either drops nothing.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Logger } from '../ports';
import type { Leaving } from './log-index';
import { segName, type LogBounds, type LogContents } from './log-segments';
import type { SeenRecord } from './types';

export interface RetentionOptions {
  dir: string;
  bounds: Required<LogBounds>;
  clock: Clock;
  logger: Logger;
  beforeDrop?: (leaving: SeenRecord[]) => Promise<void>;
  /** Writes a leaving segment's pending deliveries again, durably (log-writer.ts). */
  carryForward(l: Leaving): Promise<void>;
  /** Segment `n` is gone. */
  dropped(n: number): void;
}

export class Retention {
  private maintaining = false;
  /** The bounds are exceeded only by deliveries waiting to be forwarded (said once). */
  private overByPending = false;

  constructor(
    private readonly c: LogContents,
    private readonly o: RetentionOptions,
  ) {}

  /** Drops the oldest segments while over a bound (see the top of this file). */
  async maintain(): Promise<void> {
    if (this.maintaining) return;
    this.maintaining = true;
    const segments = this.c.segments;
    try {
      while (segments.length > 1 && this.overBounds()) {
        const oldest = segments[0]!;
        const leaving = this.c.index.leaving(oldest.n);
        // Carrying a segment's pending deliveries forward must free more than it writes again: when
        // most of it still waits to be forwarded, it is kept (over the bounds) until they are.
        // Otherwise a log whose pending deliveries alone are over a bound would carry them from
        // segment to segment without end.
        if (leaving.drop.length < leaving.carry.length && Buffer.byteLength(leaving.carryText) * 2 > oldest.bytes) {
          this.keepingPending(leaving.carry.length);
          break;
        }
        if (leaving.carry.length > 0) await this.o.carryForward(leaving);
        if (this.o.beforeDrop) await this.o.beforeDrop(leaving.seen);
        this.o.dropped(oldest.n);
        this.c.index.drop(leaving.drop);
        segments.shift();
        await unlink(join(this.o.dir, segName(oldest.n))).catch(() => undefined);
        this.o.logger.info('tunnel log: dropped the oldest segment', {
          segment: oldest.n,
          deliveries: leaving.drop.length,
          carried: leaving.carry.length,
        });
      }
      if (!this.overBounds()) this.overByPending = false;
    } catch (err) {
      this.o.logger.error('tunnel log: could not drop the oldest segment (kept for now)', {
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      this.maintaining = false;
    }
  }

  /** Says once (until the log is back within its bounds) that pending deliveries keep it over them. */
  private keepingPending(carry: number): void {
    if (this.overByPending) return;
    this.overByPending = true;
    this.o.logger.warn('tunnel log: over its bounds while deliveries wait to be forwarded; they are all kept', {
      pendingInOldestSegment: carry,
      deliveries: this.c.index.entries.size,
    });
  }

  private overBounds(): boolean {
    const segments = this.c.segments;
    const bytes = segments.reduce((s, x) => s + x.bytes, 0);
    const oldest = segments[0]!;
    return (
      this.c.index.entries.size > this.o.bounds.maxDeliveries ||
      bytes > this.o.bounds.maxBytes ||
      (oldest.newestAt > 0 && oldest.newestAt < this.o.clock.now() - this.o.bounds.maxAgeMs)
    );
  }
}
