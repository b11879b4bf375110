// The durable, append-only event log: JSONL segment files under <dataDir>/deliveries.
// Writes are serialized (the file keeps the order of appends): the appends of one turn of the event
// loop go out in one write(2) made on the main thread (it only reaches the page cache; fdatasync,
// which waits for the disk, runs in the thread pool). A delivery append resolves only once it is
// written AND an fdatasync that started after its write has finished (group commit: everything
// appended meanwhile shares one write; up to MAX_SYNCS syncs overlap, so a batch written while one
// runs starts its own at once). A forward attempt is only written, not forced to disk on its own: the
// next delivery's sync (fdatasync covers every byte written before it), the lazy sync within
// SYNC_LAZY_MS, rotation or close() make it durable. Losing the last attempt records in a machine
// crash only means those deliveries are forwarded again (at least once, never skipped).
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
// pending in it are carried forward into the newest segment so nothing waiting is lost, as are the
// duplicate keys (seen.ts) of the deliveries it held that are still inside the duplicate window.
import { ftruncateSync, writeSync } from 'node:fs';
import { open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Clock, type Logger } from '../ports';
import { ensurePrivateDir, PRIVATE_FILE_MODE, privateFiles } from './private-files';
import { forwardStateOf, isFinalStatus, parseRecord } from './records';
import { DEFAULT_DUPLICATE_WINDOW_MS, keyOfDelivery } from './seen';
import type { DeliveryDetail, DeliveryListItem, ForwardAttempt, ForwardState, LogRecord, SeenRecord, StoredDelivery, TunnelReason } from './types';

export { isFinalStatus };

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

export interface DeliveryQuery {
  agentId?: string;
  /** A reason (`verified`, `duplicate`, …), or `ok` / `invalid`. */
  verdict?: TunnelReason | 'ok' | 'invalid';
  from?: string;
  type?: string;
  /** ms since epoch, inclusive */
  since?: number;
  /** ms since epoch, exclusive */
  until?: number;
  /** Case-insensitive substring of the body. */
  text?: string;
  forwardState?: ForwardState;
  /** Page size; default 50, at most 1000. */
  limit?: number;
  /** Cursor: only ids older than this one. */
  before?: string;
}

/** Shared by every entry without attempts yet (most of them, briefly); replaced on the first one. */
const NO_ATTEMPTS: ForwardAttempt[] = [];

interface Entry {
  delivery: StoredDelivery;
  attempts: ForwardAttempt[];
  segment: number;
}

interface Segment {
  n: number;
  bytes: number;
  deliveries: number;
  /** Delivery records written to it (counted at write time, for rotation). */
  written: number;
  newestAt: number;
}

/** Attempt records written without a sync of their own are synced within this time. */
const SYNC_LAZY_MS = 1_000;

interface Pending {
  data: string;
  /** How many delivery records `data` holds. */
  deliveries: number;
  /** Resolve only once on disk (fdatasync). */
  durable: boolean;
  /** The record `data` holds (the common case: one), or null. */
  rec: LogRecord | null;
  /** The records `data` holds when there are several, or null. */
  recs: LogRecord[] | null;
  /** The append's own promise: settled once its records are applied (see settle()). */
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Unsynced {
  p: Pending;
  seg: Segment;
}

function newPending(data: string, deliveries: number, durable: boolean, rec: LogRecord | null, recs: LogRecord[] | null): Pending & { promise: Promise<void> } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { data, deliveries, durable, rec, recs, resolve, reject, promise };
}

/**
 * fdatasyncs in flight at once: a batch written while one runs need not wait for it to end (the disk
 * overlaps them; one libuv thread of the default four stays free for the writes).
 */
const MAX_SYNCS = 3;

const SEGMENT_RE = /^seg-(\d{12})\.jsonl$/;
const segName = (n: number) => `seg-${String(n).padStart(12, '0')}.jsonl`;

export interface EventLogOptions {
  dataDir: string;
  clock: Clock;
  bounds?: LogBounds;
  logger?: Logger;
  /** Load only: no cut, no roll, no compaction, no append (the writer may be running). */
  readOnly?: boolean;
  /** How long duplicate keys are carried forward when a segment is dropped (seen.ts). */
  duplicateWindowMs?: number;
  /** The file operations on the append path (tests inject failing ones). */
  io?: Partial<LogIO>;
}

/** What the append path does to the segment file. */
export interface LogIO {
  /** write(2): may write less than asked, or throw (ENOSPC, EIO). */
  write(fd: number, buf: Buffer, off: number, len: number): number;
  truncate(fd: number, len: number): void;
  datasync(fh: FileHandle): Promise<void>;
}

const NODE_IO: LogIO = {
  write: (fd, buf, off, len) => writeSync(fd, buf, off, len),
  truncate: (fd, len) => ftruncateSync(fd, len),
  datasync: (fh) => fh.datasync(),
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
  private readonly entries = new Map<string, Entry>();
  /** Delivery ids, oldest first. */
  private order: string[] = [];
  private segments: Segment[] = [];
  private fh: FileHandle | null = null;
  /** Appended, not yet written. */
  private queue: Pending[] = [];
  /** The write loop (writes are serialized: the file keeps the order of appends). */
  private flushing: Promise<void> | null = null;
  /** Written, waiting for an fdatasync that starts after their write. */
  private unsynced: Unsynced[] = [];
  private readonly syncs = new Set<Promise<void>>();
  private writes = 0;
  private opened = false;
  private closed = false;
  private maintaining = false;
  /** Written but not yet synced. */
  private dirty = false;
  private syncTimer: unknown = null;
  /** A write could not be cut back, or a sync failed: roll to a fresh segment before the next append. */
  private broken = false;
  /** Segments on which an fdatasync failed: nothing more written to them counts as durable. */
  private readonly failedSegments = new Set<number>();
  /** Duplicate keys carried forward, per segment. */
  private readonly seenBySegment = new Map<number, SeenRecord[]>();
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
    if (this.segments.length === 0) this.segments.push({ n: 1, bytes: 0, deliveries: 0, written: 0, newestAt: 0 });
    if (!this.readOnly) {
      const last = this.segments[this.segments.length - 1]!;
      this.fh = await open(join(this.dir, segName(last.n)), 'a', PRIVATE_FILE_MODE);
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
    const end = buf.lastIndexOf(0x0a) + 1;
    if (end < buf.length) {
      if (isLast && !this.readOnly) {
        this.logger.warn('tunnel log: cutting a torn last line', { segment: n, bytes: buf.length - end });
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
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(0x0a, start);
      const line = buf.subarray(start, nl);
      start = nl + 1;
      if (line.length === 0) continue;
      const parsed = parseRecord(line);
      if (parsed === null) {
        this.logger.warn('tunnel log: skipping an unreadable line', { segment: n });
        continue;
      }
      if (parsed.kind === 'delivery') seg.written++;
      this.applyRecord(parsed, seg);
    }
  }

  private applyRecord(rec: LogRecord, seg: Segment): void {
    if (rec.kind === 'seen') {
      const list = this.seenBySegment.get(seg.n);
      if (list) list.push(rec);
      else this.seenBySegment.set(seg.n, [rec]);
      return;
    }
    if (rec.kind === 'delivery') {
      const existing = this.entries.get(rec.id);
      if (existing) {
        // A pending delivery carried forward: it now lives in the newer segment.
        this.segmentOf(existing.segment).deliveries--;
        existing.segment = seg.n;
      } else {
        this.entries.set(rec.id, { delivery: rec, attempts: NO_ATTEMPTS, segment: seg.n });
        this.insertOrdered(rec.id);
      }
      seg.deliveries++;
      seg.newestAt = Math.max(seg.newestAt, rec.receivedAt);
      return;
    }
    const entry = this.entries.get(rec.deliveryId);
    if (!entry) return;
    if (entry.attempts === NO_ATTEMPTS) {
      entry.attempts = [rec];
      seg.newestAt = Math.max(seg.newestAt, rec.at);
      return;
    }
    // A carried-forward pending delivery repeats its attempts in the newer segment.
    for (const a of entry.attempts) if (a.id === rec.id) return;
    const at = entry.attempts.findIndex((a) => a.at > rec.at);
    if (at < 0) entry.attempts.push(rec);
    else entry.attempts.splice(at, 0, rec);
    seg.newestAt = Math.max(seg.newestAt, rec.at);
  }

  private insertOrdered(id: string): void {
    const o = this.order;
    if (o.length === 0 || o[o.length - 1]! < id) {
      o.push(id);
      return;
    }
    let lo = 0;
    let hi = o.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (o[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    o.splice(lo, 0, id);
  }

  private segmentOf(n: number): Segment {
    return this.segments.find((s) => s.n === n) ?? { n, bytes: 0, deliveries: 0, written: 0, newestAt: 0 };
  }

  private current(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  /** Appends a delivery; resolves once it is on disk (fdatasync). */
  appendDelivery(d: StoredDelivery): Promise<void> {
    if (this.entries.has(d.id)) return Promise.reject(new Error(`delivery ${d.id} already exists`));
    return this.appendOne(d, true);
  }

  /**
   * Appends a forward/replay attempt; resolves once it is written (durable: also synced). Not
   * durable by default (see the top of this file).
   */
  appendAttempt(a: ForwardAttempt, durable = false): Promise<void> {
    if (!this.entries.has(a.deliveryId)) return Promise.reject(new Error(`unknown delivery ${a.deliveryId}`));
    return this.appendOne(a, durable);
  }

  private notWritable(): Promise<never> {
    return Promise.reject(new LogClosedError(this.readOnly ? 'the delivery log is open read-only' : 'the delivery log is not open'));
  }

  /** One record (the hot path: one JSON.stringify, no per-record closures). */
  private appendOne(rec: LogRecord, durable: boolean): Promise<void> {
    if (!this.opened || this.closed || this.readOnly) return this.notWritable();
    const p = newPending(`${JSON.stringify(rec)}\n`, rec.kind === 'delivery' ? 1 : 0, durable, rec, null);
    this.push(p);
    return p.promise;
  }

  private append(records: LogRecord[], durable: boolean): Promise<void> {
    if (!this.opened || this.closed || this.readOnly) return this.notWritable();
    let data = '';
    let deliveries = 0;
    for (const r of records) {
      data += `${JSON.stringify(r)}\n`;
      if (r.kind === 'delivery') deliveries++;
    }
    const p = newPending(data, deliveries, durable, null, records);
    this.push(p);
    return p.promise;
  }

  private push(p: Pending): void {
    this.queue.push(p);
    if (!this.flushing) void this.kick();
  }

  /** The records of `p` are in `seg` (and on disk when durable): apply them, then resolve. */
  private settle(p: Pending, seg: Segment): void {
    if (p.rec) this.applyRecord(p.rec, seg);
    else if (p.recs) for (const r of p.recs) this.applyRecord(r, seg);
    p.resolve();
  }

  private kick(): Promise<void> {
    if (!this.flushing) {
      // One turn of the event loop first: every append made meanwhile (the deliveries of one poll
      // phase, a burst of attempts) shares one write.
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushLoop()).finally(() => {
        this.flushing = null;
        // An append that arrived while the loop was finishing must not be left behind.
        if (this.queue.length > 0) void this.kick();
      });
    }
    return this.flushing;
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      let text = '';
      let durable = false;
      let deliveries = 0;
      for (const p of batch) {
        text += p.data;
        deliveries += p.deliveries;
        if (p.durable) durable = true;
      }
      const buf = Buffer.from(text, 'utf8');
      if (this.broken && !(await this.roll())) {
        for (const p of batch) p.reject(new Error('the delivery log cannot write: no fresh segment could be opened'));
        continue;
      }
      const seg = this.current();
      try {
        // A plain write(2) into the page cache, on this thread: cheaper than a trip through the
        // thread pool (the fdatasync, which waits for the disk, still goes there).
        const fd = this.fh!.fd;
        let off = 0;
        while (off < buf.length) off += this.io.write(fd, buf, off, buf.length - off);
      } catch (err) {
        this.logger.error('tunnel log: write failed', { error: err instanceof Error ? err.message : String(err) });
        this.cutBack(seg);
        for (const p of batch) p.reject(err);
        continue;
      }
      seg.bytes += buf.length;
      seg.written += deliveries;
      if (buf.length > 0) {
        this.writes++;
        this.dirty = true;
      }
      for (const p of batch) {
        if (p.durable) this.unsynced.push({ p, seg });
        else this.settle(p, seg);
      }
      if (durable) this.startSync();
      else this.scheduleSync();
      if (!this.maintaining && (seg.bytes >= this.bounds.segmentBytes || seg.written >= this.bounds.segmentDeliveries)) {
        await this.rotate();
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
    } catch (err) {
      this.logger.error('tunnel log: could not cut a failed write back; rolling to a fresh segment', { error: err instanceof Error ? err.message : String(err) });
      this.broken = true;
    }
  }

  /** After a failed sync or cut: a fresh segment for what follows (false when it cannot be opened). */
  private async roll(): Promise<boolean> {
    const next = this.current().n + 1;
    let fh: FileHandle;
    try {
      fh = await open(join(this.dir, segName(next)), 'a', PRIVATE_FILE_MODE);
    } catch (err) {
      this.logger.error('tunnel log: no fresh segment', { error: err instanceof Error ? err.message : String(err) });
      return false;
    }
    // Syncs still running on the old file settle first (as failures: see startSync).
    await this.settleSyncs();
    const old = this.fh;
    this.fh = fh;
    this.segments.push({ n: next, bytes: 0, deliveries: 0, written: 0, newestAt: 0 });
    this.broken = false;
    this.dirty = false;
    await old?.close().catch(() => undefined);
    return true;
  }

  /** Syncs everything written so far, unless MAX_SYNCS are running (then the next one to end does). */
  private startSync(): void {
    if (this.unsynced.length === 0 || this.syncs.size >= MAX_SYNCS) return;
    const waiting = this.unsynced;
    this.unsynced = [];
    const writesBefore = this.writes;
    const segment = this.current().n;
    const sync: Promise<void> = this.io.datasync(this.fh!).then(
      () => {
        if (this.writes === writesBefore) this.dirty = false;
        for (const w of waiting) {
          // A sync of this segment failed meanwhile: the kernel may have dropped pages these records share.
          if (this.failedSegments.has(w.seg.n)) w.p.reject(new Error('an earlier sync of this segment failed'));
          else this.settle(w.p, w.seg);
        }
      },
      (err: unknown) => {
        this.logger.error('tunnel log: sync failed; rolling to a fresh segment', { error: err instanceof Error ? err.message : String(err) });
        this.failedSegments.add(segment);
        this.broken = true;
        for (const w of waiting) w.p.reject(err);
      },
    );
    this.syncs.add(sync);
    void sync.finally(() => {
      this.syncs.delete(sync);
      this.startSync();
    });
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
      // An empty durable batch: the flush loop syncs whatever was written before it.
      if (this.dirty && !this.closed) void this.syncNow().catch(() => undefined);
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

  private async rotate(): Promise<void> {
    const next = this.current().n + 1;
    let fh: FileHandle;
    try {
      fh = await open(join(this.dir, segName(next)), 'a', PRIVATE_FILE_MODE);
    } catch (err) {
      // The current segment grows past its size for now; the next append tries again.
      this.logger.error('tunnel log: could not open the next segment', { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const old = this.fh;
    await this.settleSyncs();
    if (this.dirty) {
      await old?.datasync().catch((err: unknown) => this.logger.error('tunnel log: sync failed', { error: err instanceof Error ? err.message : String(err) }));
      this.dirty = false;
    }
    this.fh = fh;
    this.segments.push({ n: next, bytes: 0, deliveries: 0, written: 0, newestAt: 0 });
    await old?.close();
    void this.maintain();
  }

  /** Duplicate keys of the segment that are still inside the window (its own, and those it carried). */
  private seenToCarry(segment: number, except: Set<string>): SeenRecord[] {
    const since = this.opts.clock.now() - (this.opts.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS);
    const out: SeenRecord[] = [];
    for (const r of this.seenBySegment.get(segment) ?? []) if (r.at >= since) out.push(r);
    for (const [id, e] of this.entries) {
      const d = e.delivery;
      if (e.segment !== segment || except.has(id) || d.receivedAt < since) continue;
      const key = keyOfDelivery(d);
      if (key !== null) out.push({ kind: 'seen', agentId: d.agentId, key, at: d.receivedAt });
    }
    return out;
  }

  /**
   * Drops the oldest segments while over a bound; pending deliveries and duplicate keys still inside
   * the window are carried forward (durably) first. A failed carry drops nothing.
   */
  async maintain(): Promise<void> {
    if (this.maintaining || !this.opened || this.readOnly) return;
    this.maintaining = true;
    try {
      while (this.segments.length > 1 && this.overBounds()) {
        const oldest = this.segments[0]!;
        const carry: LogRecord[] = [];
        const drop: string[] = [];
        const carried = new Set<string>();
        for (const [id, e] of this.entries) {
          if (e.segment !== oldest.n) continue;
          if (forwardStateOf(e.delivery, e.attempts) === 'pending') {
            carry.push(e.delivery, ...e.attempts);
            carried.add(id);
          } else drop.push(id);
        }
        carry.push(...this.seenToCarry(oldest.n, carried));
        if (carry.length > 0) await this.append(carry, true);
        this.seenBySegment.delete(oldest.n);
        this.failedSegments.delete(oldest.n);
        for (const id of drop) this.entries.delete(id);
        if (drop.length > 0) {
          const gone = new Set(drop);
          this.order = this.order.filter((id) => !gone.has(id));
        }
        this.segments.shift();
        await unlink(join(this.dir, segName(oldest.n))).catch(() => undefined);
        this.logger.info('tunnel log: dropped the oldest segment', { segment: oldest.n, deliveries: drop.length, carried: carry.length });
      }
    } catch (err) {
      this.logger.error('tunnel log: could not drop the oldest segment (kept for now)', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.maintaining = false;
    }
  }

  private overBounds(): boolean {
    const bytes = this.segments.reduce((s, x) => s + x.bytes, 0);
    const oldest = this.segments[0]!;
    return (
      this.entries.size > this.bounds.maxDeliveries ||
      bytes > this.bounds.maxBytes ||
      (oldest.newestAt > 0 && oldest.newestAt < this.opts.clock.now() - this.bounds.maxAgeMs)
    );
  }

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing || this.queue.length > 0) await this.kick();
    await this.settleSyncs();
    if (this.syncTimer !== null) {
      clearTimeout(this.syncTimer as ReturnType<typeof setTimeout>);
      this.syncTimer = null;
    }
    if (this.dirty && this.fh) {
      await this.fh.datasync().catch(() => undefined);
      this.dirty = false;
    }
    this.closed = true;
    await this.fh?.close();
    this.fh = null;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): DeliveryDetail | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    return { ...e.delivery, attempts: [...e.attempts], forwardState: forwardStateOf(e.delivery, e.attempts) };
  }

  body(id: string): Buffer | undefined {
    const e = this.entries.get(id);
    return e ? Buffer.from(e.delivery.bodyBase64, 'base64') : undefined;
  }

  /** The delivery when it still waits to be forwarded (no copy; for the forwarder). */
  pendingDelivery(id: string): StoredDelivery | undefined {
    const e = this.entries.get(id);
    return e && forwardStateOf(e.delivery, e.attempts) === 'pending' ? e.delivery : undefined;
  }

  forwardState(id: string): ForwardState | undefined {
    const e = this.entries.get(id);
    return e ? forwardStateOf(e.delivery, e.attempts) : undefined;
  }

  /** Pending deliveries, oldest first. */
  pending(): StoredDelivery[] {
    const out: StoredDelivery[] = [];
    for (const id of this.order) {
      const e = this.entries.get(id)!;
      if (forwardStateOf(e.delivery, e.attempts) === 'pending') out.push(e.delivery);
    }
    return out;
  }

  /** Duplicate keys carried forward from dropped segments (for rebuilding the duplicate index). */
  *seenRecords(): IterableIterator<SeenRecord> {
    for (const list of this.seenBySegment.values()) yield* list;
  }

  /** Every delivery, oldest first (for rebuilding indexes). */
  *all(): IterableIterator<StoredDelivery> {
    for (const id of this.order) yield this.entries.get(id)!.delivery;
  }

  /** Newest first. */
  list(q: DeliveryQuery = {}): DeliveryListItem[] {
    const limit = Math.min(Math.max(1, q.limit ?? 50), 1000);
    const text = q.text?.toLowerCase();
    const out: DeliveryListItem[] = [];
    for (let i = this.order.length - 1; i >= 0 && out.length < limit; i--) {
      const id = this.order[i]!;
      if (q.before !== undefined && id >= q.before) continue;
      const { delivery: d, attempts } = this.entries.get(id)!;
      if (q.agentId !== undefined && d.agentId !== q.agentId) continue;
      if (q.verdict !== undefined) {
        if (q.verdict === 'ok' ? !d.verdict.ok : q.verdict === 'invalid' ? d.verdict.ok : d.verdict.reason !== q.verdict) continue;
      }
      if (q.from !== undefined && d.summary.from !== q.from.replace(/^\+/, '')) continue;
      if (q.type !== undefined && d.summary.type !== q.type) continue;
      if (q.since !== undefined && d.receivedAt < q.since) continue;
      if (q.until !== undefined && d.receivedAt >= q.until) continue;
      const state = forwardStateOf(d, attempts);
      if (q.forwardState !== undefined && state !== q.forwardState) continue;
      if (text !== undefined && !Buffer.from(d.bodyBase64, 'base64').toString('utf8').toLowerCase().includes(text)) continue;
      const last = attempts.filter((a) => !a.replay).at(-1);
      out.push({
        id,
        agentId: d.agentId,
        receivedAt: d.receivedAt,
        verdict: { ok: d.verdict.ok, reason: d.verdict.reason, scheme: d.verdict.scheme },
        summary: d.summary,
        bytes: Math.floor((d.bodyBase64.length * 3) / 4) - (d.bodyBase64.endsWith('==') ? 2 : d.bodyBase64.endsWith('=') ? 1 : 0),
        simulated: d.simulated === true,
        forwardState: state,
        attempts: attempts.length,
        lastStatus: last?.status ?? null,
      });
    }
    return out;
  }

  /** For tests and the inspector: the segment files currently on disk. */
  segmentFiles(): string[] {
    return this.segments.map((s) => join(this.dir, segName(s.n)));
  }
}
