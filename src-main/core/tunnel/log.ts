// The durable, append-only event log of the tunnel's deliveries and their forward attempts: JSONL
// segment files under <dataDir>/deliveries. Its parts, each one job:
// - log-recovery.ts: start-up: loads the segments, cuts a torn last line and the zero padding;
// - log-writer.ts: appends in order, group commit (a delivery resolves once it is on disk), rotation,
//   and what a storage failure costs (never an acknowledged record); log-file.ts: the segment file
//   written, zero-filled ahead of the writes;
// - log-retention.ts: bounded by deliveries / bytes / age, pending deliveries carried forward;
// - log-reader.ts: the read API over the in-memory index (log-index.ts).
// One writer per data dir (lock.ts); a reader (readOnly) loads the segments and never cuts, rolls,
// compacts or writes.
import { join } from 'node:path';
import { silentLogger, type Clock, type Logger } from '../ports';
import { LogReader } from './log-reader';
import { eraseBodies } from './log-erase';
import { recover } from './log-recovery';
import { Retention } from './log-retention';
import { DEFAULT_BOUNDS, LogClosedError, NODE_IO, type LogBounds, type LogIO } from './log-segments';
import { LogWriter } from './log-writer';
import { isFinalStatus } from './records';
import type { ForwardAttempt, LogRecord, SeenRecord, StoredDelivery } from './types';

export { isFinalStatus, LogClosedError };
export type { DeliveryQuery } from './log-query';
export type { LogBounds, LogIO };

export interface EventLogOptions {
  dataDir: string;
  clock: Clock;
  bounds?: LogBounds;
  logger?: Logger;
  /** Load only: no cut, no roll, no compaction, no append (the writer may be running). */
  readOnly?: boolean;
  /**
   * Called with the duplicate keys of the accepted deliveries of a segment about to be dropped (not
   * those carried forward); a failure keeps the segment.
   */
  beforeDrop?: (leaving: SeenRecord[]) => Promise<void>;
  /** The file operations on the append path (tests inject failing ones). */
  io?: Partial<LogIO>;
}

export class EventLog extends LogReader {
  readonly readOnly: boolean;
  private readonly bounds: Required<LogBounds>;
  private readonly logger: Logger;
  private readonly io: LogIO;
  private readonly retention: Retention;
  /** The writer (null until open, and for a reader). */
  private writer: LogWriter | null = null;
  private opened = false;
  private closed = false;

  constructor(private readonly opts: EventLogOptions) {
    super(join(opts.dataDir, 'deliveries'));
    this.io = { ...NODE_IO, ...(opts.io ?? {}) };
    this.bounds = { ...DEFAULT_BOUNDS, ...(opts.bounds ?? {}) };
    this.logger = opts.logger ?? silentLogger;
    this.readOnly = opts.readOnly === true;
    this.retention = new Retention(this.c, {
      dir: this.dir,
      bounds: this.bounds,
      clock: opts.clock,
      logger: this.logger,
      ...(opts.beforeDrop ? { beforeDrop: opts.beforeDrop } : {}),
      carryForward: (l) => (this.writable() ? this.writer!.carryForward(l) : Promise.reject(this.notWritable())),
      dropped: (n) => this.writer?.dropped(n),
    });
  }

  /**
   * Loads every segment and (the writer) cuts a torn last line away, makes the files private and
   * opens the newest for appending. A reader finds an empty log where there is no folder yet.
   */
  async open(): Promise<void> {
    if (this.opened) return;
    await recover(this.c, { dir: this.dir, readOnly: this.readOnly, logger: this.logger });
    if (!this.readOnly) {
      const writer = new LogWriter(this.c, {
        dir: this.dir,
        bounds: this.bounds,
        io: this.io,
        logger: this.logger,
        onRotate: () => void this.maintain(),
      });
      await writer.open();
      this.writer = writer;
    }
    this.opened = true;
    if (!this.readOnly) await this.maintain();
  }

  private writable(): boolean {
    return this.opened && !this.closed && this.writer !== null && !this.writer.closed;
  }

  private notWritable(): LogClosedError {
    return new LogClosedError(this.readOnly ? 'the delivery log is open read-only' : 'the delivery log is not open');
  }

  /**
   * Appends a delivery; resolves once it is on disk (fdatasync), or with `durable` false once it is written
   * (the page cache: for a log that only caches what a durable store elsewhere holds). `key`: its duplicate
   * key (seen.ts keyOfDelivery) when the caller has it at hand, so the index need not work it out again;
   * `json`: its JSON.stringify when the caller built it already (the record is written as that text).
   */
  appendDelivery(d: StoredDelivery, key?: string | null, durable = true, json?: string): Promise<void> {
    if (this.c.index.entries.has(d.id)) return Promise.reject(new Error(`delivery ${d.id} already exists`));
    if (!this.writable()) return Promise.reject(this.notWritable());
    return this.writer!.append(d, durable, key, json);
  }

  /** Appends a forward/replay attempt (see takeAttempt); durable: resolves once it is written and synced. */
  appendAttempt(a: ForwardAttempt, durable = false): Promise<void> {
    if (durable) {
      if (!this.c.index.entries.has(a.deliveryId)) return Promise.reject(new Error(`unknown delivery ${a.deliveryId}`));
      return this.appendOne(a);
    }
    try {
      this.takeAttempt(a);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Takes a forward/replay attempt into memory at once, on disk with the next write (log-writer.ts).
   * Throws when its delivery is unknown or the log cannot be written.
   */
  takeAttempt(a: ForwardAttempt): void {
    if (!this.c.index.entries.has(a.deliveryId)) throw new Error(`unknown delivery ${a.deliveryId}`);
    if (!this.writable()) throw this.notWritable();
    this.writer!.takeAttempt(a);
  }

  private appendOne(rec: LogRecord): Promise<void> {
    if (!this.writable()) return Promise.reject(this.notWritable());
    return this.writer!.append(rec, true);
  }

  /** Resolves once everything appended so far is on disk. */
  syncNow(): Promise<void> {
    if (!this.writable()) return Promise.resolve();
    return this.writer!.syncNow();
  }

  /**
   * Makes the bodies of these deliveries unreadable, in memory and in the segment files, once what
   * was appended is on disk (log-erase.ts); resolves with the records erased on disk.
   */
  async eraseBodies(ids: readonly string[]): Promise<number> {
    if (this.readOnly) throw this.notWritable();
    await this.syncNow();
    return eraseBodies(this.c, this.dir, ids);
  }

  /** Drops the oldest segments while over a bound (log-retention.ts). */
  async maintain(): Promise<void> {
    if (!this.opened || this.readOnly) return;
    await this.retention.maintain();
  }

  /** Writes what is held back, waits for queued appends and syncs, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.writer && !this.writer.closed) await this.writer.close();
    this.closed = true;
  }
}
