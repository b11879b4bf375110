// The durable, append-only event log: JSONL segment files under <dataDir>/deliveries.
// Writes are serialized (the file keeps the order of appends) and made on the main thread with
// write(2) (it only reaches the page cache; fdatasync, which waits for the disk, runs in the thread
// pool: in the app this thread is Electron's main process, which a slow disk must never freeze). A delivery append resolves only once it is written AND an fdatasync that started after its
// write has finished. Group commit: while a sync runs, appends wait; when it ends, everything that
// came meanwhile goes out in one write and one sync at once, before the records the ended sync made
// durable are answered (on a busy receiver one write and one sync serve a whole window of
// deliveries, and every syscall and thread wake-up saved counts).
// A forward attempt is taken into memory at once and written with the next write (a delivery's, or
// the lazy flush within SYNC_LAZY_MS, rotation or close()); it is durable once a sync follows.
// Losing the last attempt records in a machine crash only means those deliveries are forwarded
// again (at least once, never skipped).
// Segments are zero-filled ahead of the writes (PREALLOCATE_BYTES at a time) and written in place:
// an fdatasync of bytes written inside the file's size needs no journal commit for a new size, which
// makes it several times cheaper (and its tail far shorter) on a journaling file system. A segment's
// records end at its first NUL byte (JSON never holds one); the padding is cut when the segment is
// closed.
// Rotation never stalls the writes: once a segment is full its successor is opened (and its first
// chunk zero-filled) in the thread pool, and the next write goes there; the old segment is synced (its records answered only then), cut and
// closed off the write path.
//
// Storage failures never cost an acknowledged record. A failed or short write (ENOSPC, EIO) fails its
// batch and cuts the file back to the last whole record before anything else is appended; when the
// cut itself fails, or an fdatasync fails (the kernel may have dropped those pages), every record of
// that segment still waiting for a sync fails too and the log rolls to a fresh segment before the
// next append. A record answers only once it is durable, so acknowledging resumes by itself as soon as
// a write and its sync succeed again. A torn last line (crash mid-write) is cut away at open.
//
// One writer per data dir (lock.ts); a reader (readOnly) loads the segments and never cuts, rolls,
// compacts or writes: a torn last line is simply not read.
// Bounded by deliveries / bytes / age; the oldest segment goes first, and deliveries still
// pending in it are carried forward into the newest segment so nothing waiting is lost, and the
// others are handed to beforeDrop first (the tunnel keeps their duplicate keys: seen.ts).
import { constants, fdatasync, ftruncateSync, writeSync } from 'node:fs';
import { open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Clock, type Logger } from '../ports';
import { ensurePrivateDir, PRIVATE_FILE_MODE, privateFiles } from './private-files';
import { LogIndex, type DeliveryCounts, type DeliveryQuery, type Leaving } from './log-index';
import { isFinalStatus, parseRecord } from './records';
import type { DeliveryDetail, DeliveryListItem, ForwardAttempt, ForwardState, LogRecord, SeenRecord, StoredDelivery } from './types';

export { isFinalStatus };
export type { DeliveryCounts, DeliveryQuery };

export interface LogBounds {
  maxDeliveries?: number;
  maxBytes?: number;
  maxAgeMs?: number;
  /** A segment is closed once it holds this many bytes ... */
  segmentBytes?: number;
  /** ... or this many deliveries. */
  segmentDeliveries?: number;
}

const DEFAULT_BOUNDS: Required<LogBounds> = {
  maxDeliveries: 10_000,
  maxBytes: 256 * 1024 * 1024,
  maxAgeMs: 14 * 24 * 3600_000,
  segmentBytes: 8 * 1024 * 1024,
  segmentDeliveries: 1_000,
};

interface Segment {
  n: number;
  bytes: number;
  deliveries: number;
  /** Delivery records written to it (counted at write time, for rotation). */
  written: number;
  newestAt: number;
}

/** Attempt records are written and synced within this time when no delivery carries them earlier. */
const SYNC_LAZY_MS = 1_000;

interface Pending {
  /** What to write: its record(s), without the newline after the last ('' when nothing). */
  data: string;
  /** How many delivery records `data` holds. */
  deliveries: number;
  /** Resolve only once on disk (fdatasync). */
  durable: boolean;
  /** The record `data` holds (the common case: one), or null. */
  rec: LogRecord | null;
  /** Where `data` went in the buffer written (set by the write). */
  start: number;
  end: number;
  /** Deliveries `data` carries forward (their records, already in the index), or null. */
  carried: string[] | null;
  /** The append's own promise: settled once its records are applied (see settle()). */
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Unsynced {
  p: Pending;
  seg: Segment;
  /** The buffer written. */
  buf: Buffer;
}

function newPending(data: string, deliveries: number, durable: boolean, rec: LogRecord | null, carried: string[] | null): Pending & { promise: Promise<void> } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { data, deliveries, durable, rec, start: 0, end: 0, carried, resolve, reject, promise };
}

/** fdatasyncs in flight at once; appends made meanwhile wait and share the next write and sync. */
const MAX_SYNCS = 1;

/** Zero-filled ahead of the writes, at a time (see the top of this file). */
const PREALLOCATE_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(64 * 1024);
const SEGMENT_OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;

const SEGMENT_RE = /^seg-(\d{12})\.jsonl$/;
const segName = (n: number) => `seg-${String(n).padStart(12, '0')}.jsonl`;

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

/** What the append path does to the segment file. */
export interface LogIO {
  /** pwrite(2) at `position`: may write less than asked, or throw (ENOSPC, EIO). */
  write(fd: number, buf: Buffer, off: number, len: number, position: number): number;
  truncate(fd: number, len: number): void;
  datasync(fh: FileHandle): Promise<void>;
}

const NODE_IO: LogIO = {
  write: (fd, buf, off, len, position) => writeSync(fd, buf, off, len, position),
  truncate: (fd, len) => ftruncateSync(fd, len),
  // The callback form: the same fdatasync in the thread pool, without the promise API's heavier request.
  datasync: (fh) => new Promise<void>((resolve, reject) => fdatasync(fh.fd, (err) => (err ? reject(err) : resolve()))),
};

/** An append refused because the log is read-only or closed. */
export class LogClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogClosedError';
  }
}

export class EventLog {
  readonly dir: string;
  private readonly bounds: Required<LogBounds>;
  private readonly logger: Logger;
  private readonly index = new LogIndex();
  private segments: Segment[] = [];
  private fh: FileHandle | null = null;
  /** Appended, not yet written. */
  private queue: Pending[] = [];
  /** Attempt records already applied in memory, written with the next write. */
  private lazy = '';
  /** The write loop (writes are serialized: the file keeps the order of appends). */
  private flushing: Promise<void> | null = null;
  /** Written, waiting for an fdatasync that starts after their write. */
  private unsynced: Unsynced[] = [];
  private readonly syncs = new Set<Promise<void>>();
  /** `writes` when the latest sync started. */
  private syncedWrites = 0;
  /** The segment after the current one, opened ahead (see openSpare), and its handle once open. */
  private spare: Promise<FileHandle | null> | null = null;
  private spareFh: FileHandle | null = null;
  private spareSize = 0;
  /** Segments left, still being synced and closed (see switchTo). */
  private readonly retiring = new Set<Promise<void>>();
  private writes = 0;
  private opened = false;
  private closed = false;
  private maintaining = false;
  /** The bounds are exceeded only by deliveries waiting to be forwarded (said once). */
  private overByPending = false;
  /** Written but not yet synced. */
  private dirty = false;
  private syncTimer: unknown = null;
  /** A write could not be cut back, or a sync failed: roll to a fresh segment before the next append. */
  private broken = false;
  /** Segments on which an fdatasync failed: nothing more written to them counts as durable. */
  private readonly failedSegments = new Set<number>();
  /** The current segment's file size: its records, then zeros up to here. */
  private fileSize = 0;
  /** No new zero-filling before the current segment holds this many bytes (it failed: disk full). */
  private noPreallocateUntil = 0;
  readonly readOnly: boolean;
  private readonly io: LogIO;

  constructor(private readonly opts: EventLogOptions) {
    this.io = { ...NODE_IO, ...(opts.io ?? {}) };
    this.dir = join(opts.dataDir, 'deliveries');
    this.bounds = { ...DEFAULT_BOUNDS, ...(opts.bounds ?? {}) };
    this.logger = opts.logger ?? silentLogger;
    this.readOnly = opts.readOnly === true;
  }

  /**
   * Loads every segment and (the writer) cuts a torn last line away, makes the files private and
   * opens the newest for appending. A reader finds an empty log where there is no folder yet.
   */
  async open(): Promise<void> {
    if (this.opened) return;
    let names: string[];
    if (this.readOnly) {
      names = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
    } else {
      await ensurePrivateDir(this.dir);
      await privateFiles(this.dir);
      names = await readdir(this.dir);
    }
    names = names.filter((n) => SEGMENT_RE.test(n)).sort();
    for (let i = 0; i < names.length; i++) {
      const n = Number(SEGMENT_RE.exec(names[i]!)![1]);
      await this.load(n, i === names.length - 1);
    }
    this.index.loaded();
    if (this.segments.length === 0) this.segments.push({ n: 1, bytes: 0, deliveries: 0, written: 0, newestAt: 0 });
    if (!this.readOnly) {
      const last = this.segments[this.segments.length - 1]!;
      this.fh = await this.openSegment(last.n);
      this.fileSize = last.bytes;
    }
    this.opened = true;
    if (!this.readOnly) await this.maintain();
  }

  private async load(n: number, isLast: boolean): Promise<void> {
    const path = join(this.dir, segName(n));
    let buf: Buffer;
    try {
      buf = await readFile(path);
    } catch (err) {
      // A reader racing the writer: the segment was dropped meanwhile.
      if (this.readOnly && (err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    // Records end at the first NUL (the zero padding), and at the last newline before it.
    const nul = buf.indexOf(0);
    const data = nul < 0 ? buf.length : nul;
    const end = data === 0 ? 0 : buf.lastIndexOf(0x0a, data - 1) + 1;
    if (end < buf.length) {
      if (isLast && !this.readOnly) {
        if (end < data) this.logger.warn('tunnel log: cutting a torn last line', { segment: n, bytes: data - end });
        const fh = await open(path, 'r+');
        try {
          await fh.truncate(end);
          await fh.datasync();
        } finally {
          await fh.close();
        }
      }
      buf = buf.subarray(0, end);
    }
    const seg: Segment = { n, bytes: buf.length, deliveries: 0, written: 0, newestAt: 0 };
    this.segments.push(seg);
    for (let start = 0, nl = 0; start < buf.length; start = nl + 1) {
      nl = buf.indexOf(0x0a, start);
      if (nl === start) continue;
      const line = buf.toString('utf8', start, nl);
      const parsed = parseRecord(line);
      if (parsed === null) {
        this.logger.warn('tunnel log: skipping an unreadable line', { segment: n });
        continue;
      }
      if (parsed.kind === 'delivery') {
        seg.written++;
        this.applyDelivery(parsed, seg, buf, start, nl);
      } else this.applyAttempt(parsed, seg, line);
    }
  }

  /** Takes a delivery record (as written: bytes start..end of src) into the index and keeps the segments' counts. */
  private applyDelivery(d: StoredDelivery, seg: Segment, src: Buffer, start: number, end: number): void {
    this.counted(this.index.addDelivery(d, seg.n, src, start, end), seg, d.receivedAt);
  }

  private applyAttempt(a: ForwardAttempt, seg: Segment, line: string): void {
    if (this.index.addAttempt(a, line)) seg.newestAt = Math.max(seg.newestAt, a.at);
  }

  /** A delivery now lives in `seg` (`before`: the segment it was carried from, or null). */
  private counted(before: number | null, seg: Segment, receivedAt: number): void {
    if (before !== null) this.segmentOf(before).deliveries--;
    seg.deliveries++;
    seg.newestAt = Math.max(seg.newestAt, receivedAt);
  }

  private segmentOf(n: number): Segment {
    return this.segments.find((s) => s.n === n) ?? { n, bytes: 0, deliveries: 0, written: 0, newestAt: 0 };
  }

  private current(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  /** Appends a delivery; resolves once it is on disk (fdatasync). */
  appendDelivery(d: StoredDelivery): Promise<void> {
    if (this.index.entries.has(d.id)) return Promise.reject(new Error(`delivery ${d.id} already exists`));
    return this.appendOne(d, true);
  }

  /** Appends a forward/replay attempt (see takeAttempt); durable: resolves once it is written and synced. */
  appendAttempt(a: ForwardAttempt, durable = false): Promise<void> {
    if (durable) {
      if (!this.index.entries.has(a.deliveryId)) return Promise.reject(new Error(`unknown delivery ${a.deliveryId}`));
      return this.appendOne(a, true);
    }
    try {
      this.takeAttempt(a);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Takes a forward/replay attempt into memory at once, on disk with the next write (see the top of
   * this file). Throws when its delivery is unknown or the log cannot be written.
   */
  takeAttempt(a: ForwardAttempt): void {
    if (!this.index.entries.has(a.deliveryId)) throw new Error(`unknown delivery ${a.deliveryId}`);
    if (!this.opened || this.closed || this.readOnly) throw this.notWritable();
    const line = JSON.stringify(a);
    this.applyAttempt(a, this.current(), line);
    this.lazy += `${line}\n`;
    this.scheduleSync();
  }

  private notWritable(): LogClosedError {
    return new LogClosedError(this.readOnly ? 'the delivery log is open read-only' : 'the delivery log is not open');
  }

  /** One record (the hot path: one JSON.stringify, no per-record closures). */
  private appendOne(rec: LogRecord, durable: boolean): Promise<void> {
    if (!this.opened || this.closed || this.readOnly) return Promise.reject(this.notWritable());
    const p = newPending(JSON.stringify(rec), rec.kind === 'delivery' ? 1 : 0, durable, rec, null);
    this.push(p);
    return p.promise;
  }

  /** Writes pending deliveries of a segment about to be dropped again (their lines as written), durably. */
  private carryForward(l: Leaving): Promise<void> {
    if (!this.opened || this.closed || this.readOnly) return Promise.reject(this.notWritable());
    const p = newPending(l.carryText, l.carry.length, true, null, l.carry);
    this.push(p);
    return p.promise;
  }

  private push(p: Pending): void {
    this.queue.push(p);
    if (!this.flushing && this.syncs.size < MAX_SYNCS) void this.kick();
  }

  /** The records of `p` are in `seg`, written as `buf` (and on disk when durable): apply them, then resolve. */
  private settle(p: Pending, seg: Segment, buf: Buffer): void {
    if (p.rec?.kind === 'delivery') this.applyDelivery(p.rec, seg, buf, p.start, p.end);
    else if (p.rec) this.applyAttempt(p.rec, seg, p.data);
    else if (p.carried) {
      for (const id of p.carried) {
        const moved = this.index.move(id, seg.n);
        if (moved) this.counted(moved.before, seg, moved.receivedAt);
      }
    }
    p.resolve();
  }

  /** `now`: write at once (the appends that waited for a sync), else after one turn of the event loop. */
  private kick(now = false): Promise<void> {
    if (!this.flushing) {
      // One turn of the event loop first: every append made meanwhile (the deliveries of one poll
      // phase, a burst of attempts) shares one write.
      const run = now ? this.flushLoop() : new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushLoop());
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
      const buf = this.encode(batch);
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
      if (this.spare && this.full(this.current())) {
        // Its successor was opened meanwhile (opening it is all this may wait for).
        const fh = this.spareFh ?? (await this.spare);
        if (fh) {
          this.switchTo(fh);
          void this.maintain();
        }
      }
      const seg = this.current();
      this.preallocate(seg, buf.length);
      try {
        // A plain pwrite(2) into the page cache, on this thread: cheaper than a trip through the
        // thread pool (the fdatasync, which waits for the disk, still goes there).
        const fd = this.fh!.fd;
        let off = 0;
        while (off < buf.length) off += this.io.write(fd, buf, off, buf.length - off, seg.bytes + off);
      } catch (err) {
        this.logger.error('tunnel log: write failed', { error: err instanceof Error ? err.message : String(err) });
        this.cutBack(seg);
        for (const p of batch) p.reject(err);
        continue;
      }
      seg.bytes += buf.length;
      this.fileSize = Math.max(this.fileSize, seg.bytes);
      seg.written += deliveries;
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
      // Full: its successor is opened meanwhile, for the next write.
      if (this.full(seg)) void this.openSpare();
    }
  }

  /**
   * The bytes of one write: the attempts held back, then each append's records, each line ending in a
   * newline; notes where each append's data went. The index keeps delivery records as ranges of this
   * buffer, so a write holding any gets one of its own (not a slice of Node's shared pool).
   */
  private encode(batch: Pending[]): Buffer {
    const lazy = this.lazy;
    this.lazy = '';
    let size = Buffer.byteLength(lazy);
    let kept = false;
    for (const p of batch) {
      if (p.data !== '') size += Buffer.byteLength(p.data) + 1;
      if (p.deliveries > 0) kept = true;
    }
    const buf = kept ? Buffer.allocUnsafeSlow(size) : Buffer.allocUnsafe(size);
    let at = buf.write(lazy, 0);
    for (const p of batch) {
      if (p.data === '') continue;
      p.start = at;
      at += buf.write(p.data, at);
      p.end = at;
      buf[at++] = 0x0a;
    }
    return buf;
  }

  private full(seg: Segment): boolean {
    return seg.bytes >= this.bounds.segmentBytes || seg.written >= this.bounds.segmentDeliveries;
  }

  /** Opens a segment for writing in place (created 0600 when missing). */
  private openSegment(n: number): Promise<FileHandle> {
    return open(join(this.dir, segName(n)), SEGMENT_OPEN_FLAGS, PRIVATE_FILE_MODE);
  }

  /**
   * Zero-fills the current segment ahead of a write of `len` bytes. When the disk has no room for
   * it, the padding is cut back and the write extends the file itself (and may fail: cutBack).
   */
  private preallocate(seg: Segment, len: number): void {
    const need = seg.bytes + len;
    if (need <= this.fileSize || need < this.noPreallocateUntil) return;
    const chunk = Math.min(PREALLOCATE_BYTES, this.bounds.segmentBytes);
    const target = Math.ceil((need + 1) / chunk) * chunk;
    const fd = this.fh!.fd;
    let at = this.fileSize;
    try {
      while (at < target) at += this.io.write(fd, ZEROS, 0, Math.min(ZEROS.length, target - at), at);
      this.fileSize = target;
    } catch {
      this.noPreallocateUntil = need + chunk;
      try {
        this.io.truncate(fd, Math.max(seg.bytes, this.fileSize));
      } catch {
        // the zeros stay: harmless past the records
        this.fileSize = Math.max(this.fileSize, at);
      }
    }
  }

  /**
   * A write failed part-way: cut the segment back to its last whole record (seg.bytes), so nothing
   * is ever appended after torn bytes. When even that fails, roll before the next append.
   */
  private cutBack(seg: Segment): void {
    try {
      this.io.truncate(this.fh!.fd, seg.bytes);
      this.fileSize = seg.bytes;
    } catch (err) {
      this.logger.error('tunnel log: could not cut a failed write back; rolling to a fresh segment', { error: err instanceof Error ? err.message : String(err) });
      this.broken = true;
    }
  }

  /** After a failed sync or cut: a fresh segment for what follows (false when it cannot be opened). */
  private async roll(): Promise<boolean> {
    const fh = await this.openSpare();
    if (!fh) return false;
    this.switchTo(fh);
    this.broken = false;
    return true;
  }

  /** Opens the segment after the current one (once; null when it cannot be opened: the current one grows for now). */
  private openSpare(): Promise<FileHandle | null> {
    if (!this.spare) {
      const n = this.current().n + 1;
      const opening = this.openSegment(n).then(
        async (fh) => {
          this.spareSize = await this.zeroFill(fh);
          return (this.spareFh = fh);
        },
        (err: unknown) => {
          this.logger.error('tunnel log: could not open a new segment', { segment: n, error: err instanceof Error ? err.message : String(err) });
          this.spare = null;
          return null;
        },
      );
      this.spare = opening;
    }
    return this.spare;
  }

  /** Zero-fills a segment opened ahead, in the thread pool (see preallocate): the size it reached. */
  private async zeroFill(fh: FileHandle): Promise<number> {
    const target = Math.min(PREALLOCATE_BYTES, this.bounds.segmentBytes);
    let at = 0;
    try {
      while (at < target) at += (await fh.write(ZEROS, 0, Math.min(ZEROS.length, target - at), at)).bytesWritten;
      return at;
    } catch {
      // No room: the writes extend the file themselves (preallocate).
      return fh.truncate(0).then(
        () => 0,
        () => at,
      );
    }
  }

  /**
   * Moves the writes to the opened next segment at once. The old one is left off the write path:
   * once the syncs running on it end, what was written to it and not yet synced is synced (its
   * records answered then), and it loses its padding and is closed.
   */
  private switchTo(fh: FileHandle): void {
    const old = this.fh!;
    const seg = this.current();
    const fileSize = this.fileSize;
    const waiting = this.unsynced;
    const running = [...this.syncs];
    const needsSync = this.dirty && this.syncedWrites !== this.writes;
    this.unsynced = [];
    this.spare = null;
    this.spareFh = null;
    this.fh = fh;
    this.segments.push({ n: seg.n + 1, bytes: 0, deliveries: 0, written: 0, newestAt: 0 });
    this.fileSize = this.spareSize;
    this.noPreallocateUntil = 0;
    this.dirty = false;
    const retiring = this.leave(old, seg, fileSize, running, waiting, needsSync).finally(() => this.retiring.delete(retiring));
    this.retiring.add(retiring);
  }

  private async leave(fh: FileHandle, seg: Segment, fileSize: number, running: Promise<void>[], waiting: Unsynced[], needsSync: boolean): Promise<void> {
    await Promise.all(running);
    if (needsSync || waiting.length > 0) {
      try {
        await this.io.datasync(fh);
      } catch (err) {
        this.logger.error('tunnel log: sync failed', { error: err instanceof Error ? err.message : String(err) });
        this.failedSegments.add(seg.n);
      }
    }
    for (const w of waiting) {
      if (this.failedSegments.has(w.seg.n)) w.p.reject(new Error('a sync of this segment failed'));
      else this.settle(w.p, w.seg, w.buf);
    }
    await this.retire(fh, seg, fileSize);
  }

  /** Syncs everything written so far, unless MAX_SYNCS are running (then the next one to end does). */
  private startSync(): void {
    if (this.unsynced.length === 0 || this.syncs.size >= MAX_SYNCS) return;
    const waiting = this.unsynced;
    this.unsynced = [];
    const writesBefore = this.writes;
    this.syncedWrites = this.writes;
    const segment = this.current().n;
    const sync: Promise<void> = this.io.datasync(this.fh!).then(
      () => {
        if (this.writes === writesBefore) this.dirty = false;
        this.syncEnded(sync);
        for (const w of waiting) {
          // A sync of this segment failed meanwhile: the kernel may have dropped pages these records share.
          if (this.failedSegments.has(w.seg.n)) w.p.reject(new Error('an earlier sync of this segment failed'));
          else this.settle(w.p, w.seg, w.buf);
        }
      },
      (err: unknown) => {
        this.logger.error('tunnel log: sync failed; rolling to a fresh segment', { error: err instanceof Error ? err.message : String(err) });
        this.failedSegments.add(segment);
        // (A sync of a segment already left fails only that segment's records.)
        if (segment === this.current().n) this.broken = true;
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

  /** Waits until no record waits for a sync (before the file is closed). */
  private async settleSyncs(): Promise<void> {
    while (this.syncs.size > 0 || this.unsynced.length > 0) {
      this.startSync();
      await Promise.all([...this.syncs]);
    }
  }

  private scheduleSync(): void {
    if (this.syncTimer !== null) return;
    // A real timer, not the injected clock: it only bounds how long written bytes stay unsynced and
    // changes nothing a caller can observe (tests on a fake clock must not see it among their timers).
    const timer = setTimeout(() => {
      this.syncTimer = null;
      // An empty durable batch: the flush loop writes the attempts held back and syncs.
      if ((this.dirty || this.lazy !== '') && !this.closed) void this.syncNow().catch(() => undefined);
    }, SYNC_LAZY_MS);
    timer.unref();
    this.syncTimer = timer;
  }

  /** Resolves once everything appended so far is on disk. */
  syncNow(): Promise<void> {
    if (!this.opened || this.closed) return Promise.resolve();
    const p = newPending('', 0, true, null, null);
    this.push(p);
    return p.promise;
  }

  /** Cuts the zero padding off a segment left (`fileSize`: its file's size) and closes it (best effort). */
  private async retire(fh: FileHandle, seg: Segment, fileSize: number): Promise<void> {
    try {
      if (fileSize > seg.bytes) this.io.truncate(fh.fd, seg.bytes);
    } catch {
      // the padding stays: readers stop at its first NUL
    }
    await fh.close().catch(() => undefined);
  }

  /**
   * Drops the oldest segments while over a bound; pending deliveries are carried forward (durably)
   * first and the others handed to beforeDrop. A failure of either drops nothing.
   */
  async maintain(): Promise<void> {
    if (this.maintaining || !this.opened || this.readOnly) return;
    this.maintaining = true;
    try {
      while (this.segments.length > 1 && this.overBounds()) {
        const oldest = this.segments[0]!;
        const leaving = this.index.leaving(oldest.n);
        // Carrying a segment's pending deliveries forward must free more than it writes again: when
        // most of it still waits to be forwarded, it is kept (over the bounds) until they are.
        // Otherwise a log whose pending deliveries alone are over a bound would carry them from
        // segment to segment without end.
        if (leaving.drop.length < leaving.carry.length && Buffer.byteLength(leaving.carryText) * 2 > oldest.bytes) {
          this.keepingPending(leaving.carry.length);
          break;
        }
        if (leaving.carry.length > 0) await this.carryForward(leaving);
        if (this.opts.beforeDrop) await this.opts.beforeDrop(leaving.seen);
        this.failedSegments.delete(oldest.n);
        this.index.drop(leaving.drop);
        this.segments.shift();
        await unlink(join(this.dir, segName(oldest.n))).catch(() => undefined);
        this.logger.info('tunnel log: dropped the oldest segment', { segment: oldest.n, deliveries: leaving.drop.length, carried: leaving.carry.length });
      }
      if (!this.overBounds()) this.overByPending = false;
    } catch (err) {
      this.logger.error('tunnel log: could not drop the oldest segment (kept for now)', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.maintaining = false;
    }
  }

  /** Says once (until the log is back within its bounds) that pending deliveries keep it over them. */
  private keepingPending(carry: number): void {
    if (this.overByPending) return;
    this.overByPending = true;
    this.logger.warn('tunnel log: over its bounds while deliveries wait to be forwarded; they are all kept', { pendingInOldestSegment: carry, deliveries: this.index.entries.size });
  }

  private overBounds(): boolean {
    const bytes = this.segments.reduce((s, x) => s + x.bytes, 0);
    const oldest = this.segments[0]!;
    return (
      this.index.entries.size > this.bounds.maxDeliveries ||
      bytes > this.bounds.maxBytes ||
      (oldest.newestAt > 0 && oldest.newestAt < this.opts.clock.now() - this.bounds.maxAgeMs)
    );
  }

  /** Writes what is held back, waits for queued appends and syncs, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.lazy !== '' && this.opened && !this.readOnly) void this.syncNow().catch(() => undefined);
    while (this.flushing || this.queue.length > 0 || this.syncs.size > 0) {
      if (this.syncs.size > 0) await Promise.all([...this.syncs]);
      else await this.kick();
    }
    await this.settleSyncs();
    while (this.retiring.size > 0) await Promise.all([...this.retiring]);
    if (this.syncTimer !== null) {
      clearTimeout(this.syncTimer as ReturnType<typeof setTimeout>);
      this.syncTimer = null;
    }
    if (this.dirty && this.fh) {
      await this.fh.datasync().catch(() => undefined);
      this.dirty = false;
    }
    this.closed = true;
    if (this.fh) await this.retire(this.fh, this.current(), this.fileSize);
    this.fh = null;
    const spare = await this.spare;
    if (spare) {
      // Opened ahead and never written: not a segment yet.
      await spare.close().catch(() => undefined);
      await unlink(join(this.dir, segName(this.current().n + 1))).catch(() => undefined);
    }
  }

  has(id: string): boolean {
    return this.index.entries.has(id);
  }

  get size(): number {
    return this.index.entries.size;
  }

  get(id: string): DeliveryDetail | undefined {
    return this.index.get(id);
  }

  body(id: string): Buffer | undefined {
    return this.index.body(id);
  }

  forwardState(id: string): ForwardState | undefined {
    return this.index.forwardState(id);
  }

  /** Pending deliveries, oldest first. */
  pending(): StoredDelivery[] {
    return this.index.pending();
  }

  /** Every delivery, oldest first (each parsed from its record). */
  all(): IterableIterator<StoredDelivery> {
    return this.index.all();
  }

  /** The duplicate keys of the accepted deliveries, oldest first. */
  seenKeys(): IterableIterator<SeenRecord> {
    return this.index.seenKeys();
  }

  counts(): DeliveryCounts {
    return this.index.counts();
  }

  /** Newest first. */
  list(q: DeliveryQuery = {}): DeliveryListItem[] {
    return this.index.list(q);
  }

  /** For tests and the inspector: the segment files currently on disk. */
  segmentFiles(): string[] {
    return this.segments.map((s) => join(this.dir, segName(s.n)));
  }
}
