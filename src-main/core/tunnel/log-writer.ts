// The log's writer: appends in order, group commit, rotation.
// Writes are serialized (the file keeps the order of appends) and made on the main thread with
// write(2) (it only reaches the page cache; fdatasync, which waits for the disk, runs in the thread
// pool: in the app this thread is Electron's main process, which a slow disk must never freeze). A
// delivery append resolves only once it is written AND an fdatasync that started after its write has
// finished. Group commit: while a sync runs, appends wait; when it ends, everything that came
// meanwhile goes out in one write and one sync at once, before the records the ended sync made
// durable are answered (on a busy receiver one write and one sync serve a whole window of
// deliveries, and every syscall and thread wake-up saved counts).
// A forward attempt is taken into memory at once and written with the next write (a delivery's, or
// the lazy flush within SYNC_LAZY_MS, rotation or close()); it is durable once a sync follows.
// Losing the last attempt records in a machine crash only means those deliveries are forwarded
// again (at least once, never skipped).
// Once a segment is full the writes move to its successor (log-file.ts opens it ahead); the old one
// is synced (its records answered only then), cut and closed off the write path.
//
// Storage failures never cost an acknowledged record. A failed or short write (ENOSPC, EIO) fails its
// batch and cuts the file back to the last whole record before anything else is appended; when the
// cut itself fails, or an fdatasync fails (the kernel may have dropped those pages), every record of
// that segment still waiting for a sync fails too and the log rolls to a fresh segment before the
// next append; the failed segment is cut back to what its last good sync covered, so no record that
// failed (a delivery answered 503, whose retry the service sends) is read back after a restart. A
// record answers only once it is durable, so acknowledging resumes by itself as soon as a write and
// its sync succeed again.
import type { FileHandle } from 'node:fs/promises';
import { ChurnSet } from '../churn';
import type { Logger } from '../ports';
import { SegmentFile } from './log-file';
import type { Leaving } from './log-index';
import { encode, HeldAttempts, newPending, type Pending, type Unsynced } from './log-batch';
import { newSegment, type LogBounds, type LogContents, type LogIO, type Segment } from './log-segments';
import type { ForwardAttempt, LogRecord } from './types';

/** Attempt records are written and synced within this time when no delivery carries them earlier. */
const SYNC_LAZY_MS = 1_000;

/** fdatasyncs in flight at once; appends made meanwhile wait and share the next write and sync. */
const MAX_SYNCS = 1;

export interface LogWriterOptions {
  dir: string;
  bounds: Required<LogBounds>;
  io: LogIO;
  logger: Logger;
  /** The writes moved to a fresh segment (retention may drop the oldest now). */
  onRotate(): void;
}

export class LogWriter {
  private readonly file: SegmentFile;
  /** Appended, not yet written. */
  private queue: Pending[] = [];
  /** Attempt records already applied in memory, written with the next write. */
  private readonly held = new HeldAttempts();
  /** The write loop (writes are serialized: the file keeps the order of appends). */
  private flushing: Promise<void> | null = null;
  /** Written, waiting for an fdatasync that starts after their write. */
  private unsynced: Unsynced[] = [];
  private readonly syncs = new ChurnSet<Promise<void>>();
  /** `writes` when the latest sync started. */
  private syncedWrites = 0;
  /** Segments left, still being synced and closed (see switchTo). */
  private readonly retiring = new Set<Promise<void>>();
  private writes = 0;
  /** Written but not yet synced. */
  private dirty = false;
  private syncTimer: unknown = null;
  /** A write could not be cut back, or a sync failed: roll to a fresh segment before the next append. */
  private broken = false;
  /** Segments on which an fdatasync failed: nothing more written to them counts as durable. */
  private readonly failedSegments = new Set<number>();
  closed = false;

  constructor(
    private readonly c: LogContents,
    private readonly o: LogWriterOptions,
  ) {
    this.file = new SegmentFile(o);
  }

  /** Opens the newest segment (after recovery) for appending. */
  open(): Promise<void> {
    return this.file.open(this.c.current());
  }

  /** One record (the hot path: one JSON.stringify, or its `json` given, no per-record closures). */
  append(rec: LogRecord, durable: boolean, key?: string | null, json?: string): Promise<void> {
    const p = newPending(json ?? JSON.stringify(rec), rec.kind === 'delivery' ? 1 : 0, durable, rec, null, key);
    this.push(p);
    return p.promise;
  }

  /** Takes an attempt into memory at once; written with the next write (see the top of this file). */
  takeAttempt(a: ForwardAttempt): void {
    const line = JSON.stringify(a);
    this.c.applyAttempt(a, this.c.current(), line);
    this.held.add(a.deliveryId, line);
    this.scheduleSync();
  }

  /** Writes pending deliveries of a segment about to be dropped again (their lines as written), durably. */
  carryForward(l: Leaving): Promise<void> {
    const p = newPending(l.carryText, l.carry.length, true, null, l.carry);
    this.push(p);
    return p.promise;
  }

  /** Resolves once everything appended so far is on disk. */
  syncNow(): Promise<void> {
    const p = newPending('', 0, true, null, null);
    this.push(p);
    return p.promise;
  }

  /** A segment was dropped. */
  dropped(n: number): void {
    this.failedSegments.delete(n);
  }

  private push(p: Pending): void {
    this.queue.push(p);
    if (!this.flushing && this.syncs.size < MAX_SYNCS) void this.kick();
  }

  /** The records of `p` are in `seg`, written as `buf` (and on disk when durable): apply them, then resolve. */
  private settle(p: Pending, seg: Segment, buf: Buffer): void {
    if (p.rec?.kind === 'delivery') this.c.applyDelivery(p.rec, seg, buf, p.start, p.end, p.key);
    else if (p.rec) this.c.applyAttempt(p.rec, seg, p.data);
    else if (p.carried) this.c.moved(p.carried, seg);
    p.resolve();
  }

  /** `now`: write at once (the appends that waited for a sync), else after one turn of the event loop. */
  private kick(now = false): Promise<void> {
    if (!this.flushing) {
      // One turn of the event loop first: every append made meanwhile (the deliveries of one poll
      // phase, a burst of attempts) shares one write.
      const run = now
        ? this.flushLoop()
        : new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushLoop());
      this.flushing = run.finally(() => {
        this.flushing = null;
        // An append that arrived while the loop was finishing must not be left behind (while a sync
        // runs, its end kicks the loop again).
        if (this.queue.length > 0 && this.syncs.size < MAX_SYNCS) void this.kick();
      });
    }
    return this.flushing;
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0 && this.syncs.size < MAX_SYNCS) {
      const batch = this.queue;
      this.queue = [];
      const { text, refs } = this.held.take();
      const buf = encode(text, batch);
      let durable = false;
      let deliveries = 0;
      for (const p of batch) {
        deliveries += p.deliveries;
        if (p.durable) durable = true;
      }
      if (this.broken && !(await this.roll())) {
        for (const p of batch) p.reject(new Error('the delivery log cannot write: no fresh segment could be opened'));
        continue;
      }
      if (this.file.opening && this.file.full(this.c.current())) {
        // Its successor was opened meanwhile (opening it is all this may wait for).
        const fh = this.file.spareHandle ?? (await this.file.openSpare(this.c.current().n + 1));
        if (fh) {
          this.switchTo(fh);
          this.o.onRotate();
        }
      }
      const seg = this.c.current();
      try {
        this.file.write(seg, buf);
      } catch (err) {
        this.o.logger.error('tunnel log: write failed', { error: err instanceof Error ? err.message : String(err) });
        if (!(await this.file.cutBack(seg))) this.broken = true;
        for (const p of batch) p.reject(err);
        continue;
      }
      seg.bytes += buf.length;
      seg.written += deliveries;
      // The attempts held back lead the buffer.
      for (const r of refs) this.c.index.attemptWritten(r.deliveryId, r.line, buf, r.start, r.end);
      if (buf.length > 0) {
        this.writes++;
        this.dirty = true;
      }
      for (const p of batch) {
        if (p.durable) this.unsynced.push({ p, seg, buf });
        else this.settle(p, seg, buf);
      }
      if (durable) this.startSync();
      else this.scheduleSync();
      // Nearly full: its successor is opened (and zero-filled) meanwhile, ready before it is needed.
      this.file.prepareNext(seg);
    }
  }

  /** After a failed sync or cut: a fresh segment for what follows (false when it cannot be opened). */
  private async roll(): Promise<boolean> {
    const fh = await this.file.openSpare(this.c.current().n + 1);
    if (!fh) return false;
    this.switchTo(fh);
    this.broken = false;
    return true;
  }

  /**
   * Moves the writes to the opened next segment at once. The old one is left off the write path:
   * once the syncs running on it end, what was written to it and not yet synced is synced (its
   * records answered then), and it loses its padding and is closed.
   */
  private switchTo(fh: FileHandle): void {
    const seg = this.c.current();
    const waiting = this.unsynced;
    const running = this.syncs.values();
    const needsSync = this.dirty && this.syncedWrites !== this.writes;
    this.unsynced = [];
    const left = this.file.switchTo(fh);
    this.c.segments.push(newSegment(seg.n + 1));
    this.dirty = false;
    const retiring = this.leave(left.fh, seg, left.fileSize, running, waiting, needsSync).finally(() =>
      this.retiring.delete(retiring),
    );
    this.retiring.add(retiring);
  }

  private async leave(
    fh: FileHandle,
    seg: Segment,
    fileSize: number,
    running: Promise<void>[],
    waiting: Unsynced[],
    needsSync: boolean,
  ): Promise<void> {
    await Promise.all(running);
    if (needsSync || waiting.length > 0) {
      try {
        await this.o.io.datasync(fh);
      } catch (err) {
        this.o.logger.error('tunnel log: sync failed', { error: err instanceof Error ? err.message : String(err) });
        this.failedSegments.add(seg.n);
      }
    }
    if (!this.failedSegments.has(seg.n)) seg.synced = seg.bytes;
    for (const w of waiting) {
      if (this.failedSegments.has(w.seg.n)) w.p.reject(new Error('a sync of this segment failed'));
      else this.settle(w.p, w.seg, w.buf);
    }
    await this.file.retire(fh, seg, fileSize, this.failedSegments.has(seg.n));
  }

  /** Syncs everything written so far, unless MAX_SYNCS are running (then the next one to end does). */
  private startSync(): void {
    if (this.unsynced.length === 0 || this.syncs.size >= MAX_SYNCS) return;
    const waiting = this.unsynced;
    this.unsynced = [];
    const writesBefore = this.writes;
    this.syncedWrites = this.writes;
    const seg = this.c.current();
    const segment = seg.n;
    const upTo = seg.bytes;
    const sync: Promise<void> = this.o.io.datasync(this.file.handle!).then(
      () => {
        if (this.writes === writesBefore) this.dirty = false;
        if (!this.failedSegments.has(segment)) seg.synced = upTo;
        this.syncEnded(sync);
        for (const w of waiting) {
          // A sync of this segment failed meanwhile: the kernel may have dropped pages these records share.
          if (this.failedSegments.has(w.seg.n)) w.p.reject(new Error('an earlier sync of this segment failed'));
          else this.settle(w.p, w.seg, w.buf);
        }
      },
      (err: unknown) => {
        this.o.logger.error('tunnel log: sync failed; rolling to a fresh segment', {
          error: err instanceof Error ? err.message : String(err),
        });
        this.failedSegments.add(segment);
        // (A sync of a segment already left fails only that segment's records.)
        if (segment === this.c.current().n) this.broken = true;
        this.syncEnded(sync);
        for (const w of waiting) w.p.reject(err);
      },
    );
    this.syncs.add(sync);
  }

  /**
   * What was written meanwhile is synced, and the appends that waited for this sync go out now,
   * together: before the records it made durable are answered, so the next sync runs meanwhile.
   */
  private syncEnded(sync: Promise<void>): void {
    this.syncs.delete(sync);
    this.startSync();
    if (this.queue.length > 0 && !this.flushing) void this.kick(true);
  }

  private scheduleSync(): void {
    if (this.syncTimer !== null) return;
    // A real timer, not the injected clock: it only bounds how long written bytes stay unsynced and
    // changes nothing a caller can observe (tests on a fake clock must not see it among their timers).
    const timer = setTimeout(() => {
      this.syncTimer = null;
      // An empty durable batch: the flush loop writes the attempts held back and syncs.
      if ((this.dirty || this.held.text !== '') && !this.closed) void this.syncNow().catch(() => undefined);
    }, SYNC_LAZY_MS);
    timer.unref();
    this.syncTimer = timer;
  }

  /** Writes what is held back, waits for queued appends and syncs, then closes the file. */
  async close(): Promise<void> {
    if (this.held.text !== '') void this.syncNow().catch(() => undefined);
    while (this.flushing || this.queue.length > 0 || this.syncs.size > 0) {
      if (this.syncs.size > 0) await Promise.all(this.syncs.values());
      else await this.kick();
    }
    // No record waits for a sync any more.
    while (this.syncs.size > 0 || this.unsynced.length > 0) {
      this.startSync();
      await Promise.all(this.syncs.values());
    }
    while (this.retiring.size > 0) await Promise.all([...this.retiring]);
    if (this.syncTimer !== null) {
      clearTimeout(this.syncTimer as ReturnType<typeof setTimeout>);
      this.syncTimer = null;
    }
    const fh = this.file.handle;
    if (this.dirty && fh) {
      await fh.datasync().catch(() => undefined);
      this.dirty = false;
    }
    this.closed = true;
    const seg = this.c.current();
    if (fh) await this.file.retire(fh, seg, this.file.size, this.failedSegments.has(seg.n));
    await this.file.close(seg);
  }
}
