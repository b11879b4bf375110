// The log's read API: what the deliveries' index (log-index.ts) answers, over the segments loaded at
// open and everything appended since. The writer and a read-only reader (EventLog, log.ts) share it.
import { join } from 'node:path';
import type { DeliveryCounts, DeliveryQuery } from './log-query';
import { LogContents, segName } from './log-segments';
import type { DeliveryBody, DeliveryDetail, DeliveryListItem, ForwardState, SeenRecord, StoredDelivery } from './types';

export class LogReader {
  protected readonly c = new LogContents();

  constructor(readonly dir: string) {}

  has(id: string): boolean {
    return this.c.index.entries.has(id);
  }

  get size(): number {
    return this.c.index.entries.size;
  }

  get(id: string): DeliveryDetail | undefined {
    return this.c.index.get(id);
  }

  body(id: string): Buffer | undefined {
    return this.c.index.body(id);
  }

  forwardState(id: string): ForwardState | undefined {
    return this.c.index.forwardState(id);
  }

  /** Pending deliveries, oldest first. */
  pending(): StoredDelivery[] {
    return this.c.index.pending();
  }

  /** Every delivery, oldest first (each parsed from its record). */
  all(): IterableIterator<StoredDelivery> {
    return this.c.index.all();
  }

  /** The authentic deliveries of one event, oldest first, each with its body (the records are not parsed). */
  bodies(event: string): IterableIterator<DeliveryBody> {
    return this.c.index.bodies(event);
  }

  /** The duplicate keys of the accepted deliveries, oldest first. */
  seenKeys(): IterableIterator<SeenRecord> {
    return this.c.index.seenKeys();
  }

  counts(): DeliveryCounts {
    return this.c.index.counts();
  }

  /** Newest first. */
  list(q: DeliveryQuery = {}): DeliveryListItem[] {
    return this.c.index.list(q);
  }

  /** For tests and the inspector: the segment files currently on disk. */
  segmentFiles(): string[] {
    return this.c.segments.map((s) => join(this.dir, segName(s.n)));
  }
}
