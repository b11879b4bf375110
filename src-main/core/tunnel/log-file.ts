// The segment file being written: preallocation and the file side of rotation.
// Segments are zero-filled ahead of the writes (PREALLOCATE_BYTES at a time) and written in place:
// an fdatasync of bytes written inside the file's size needs no journal commit for a new size, which
// makes it several times cheaper (and its tail far shorter) on a journaling file system. A segment's
// records end at its first NUL byte (JSON never holds one); the padding is cut when the segment is
// closed.
// Rotation never stalls the writes: once a segment is three quarters full its successor is opened
// and zero-filled (as far as the current one is expected to reach) in the thread pool, and once it
// is full the next write goes there (log-writer.ts syncs, cuts and closes the old one off the write
// path; the cut, ftruncate(2), runs in the thread pool too).
import { unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../ports';
import { openSegment, segName, type LogBounds, type LogIO, type Segment } from './log-segments';

/** Zero-filled ahead of the writes, at a time (see the top of this file). */
const PREALLOCATE_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(64 * 1024);
/** Zeros for filling a segment opened ahead, a few large writes each (made on first use). */
let fillZeros: Buffer | null = null;

export interface SegmentFileOptions {
  dir: string;
  bounds: Required<LogBounds>;
  io: LogIO;
  logger: Logger;
}

export class SegmentFile {
  /** The current segment's handle. */
  private fh: FileHandle | null = null;
  /** The current segment's file size: its records, then zeros up to here. */
  private fileSize = 0;
  /** No new zero-filling before the current segment holds this many bytes (it failed: disk full). */
  private noPreallocateUntil = 0;
  /** The segment after the current one, opened ahead (see openSpare), and its handle once open. */
  private spare: Promise<FileHandle | null> | null = null;
  private spareFh: FileHandle | null = null;
  private spareSize = 0;

  constructor(private readonly o: SegmentFileOptions) {}

  /** Opens the newest segment (loaded at start-up, `bytes` long) for writing after its records. */
  async open(seg: Segment): Promise<void> {
    this.fh = await openSegment(this.o.dir, seg.n);
    this.fileSize = seg.bytes;
  }

  get handle(): FileHandle | null {
    return this.fh;
  }

  /** The current segment's file size. */
  get size(): number {
    return this.fileSize;
  }

  full(seg: Segment): boolean {
    return seg.bytes >= this.o.bounds.segmentBytes || seg.written >= this.o.bounds.segmentDeliveries;
  }

  /**
   * Once `seg` is three quarters full, opens its successor ahead (see openSpare), zero-filled as far
   * as `seg` is expected to reach by then: rotation then only switches the writes to it, and the
   * writes of a segment as large as this one never wait for zero-filling.
   */
  prepareNext(seg: Segment): void {
    if (this.spare) return;
    const b = this.o.bounds;
    if (4 * seg.bytes < 3 * b.segmentBytes && 4 * seg.written < 3 * b.segmentDeliveries) return;
    const perDelivery = seg.written > 0 ? seg.bytes / seg.written : seg.bytes;
    const expected = Math.min(b.segmentBytes, Math.ceil(perDelivery * b.segmentDeliveries));
    // A little past it: the write that fills a segment may end beyond its bound.
    void this.openSpare(seg.n + 1, Math.ceil((expected * 1.1) / ZEROS.length) * ZEROS.length);
  }

  /** Writes `buf` after the records of `seg` (a plain pwrite(2) into the page cache); throws when it fails part-way. */
  write(seg: Segment, buf: Buffer): void {
    this.preallocate(seg, buf.length);
    // On this thread: cheaper than a trip through the thread pool (the fdatasync, which waits for
    // the disk, still goes there).
    const fd = this.fh!.fd;
    let off = 0;
    while (off < buf.length) off += this.o.io.write(fd, buf, off, buf.length - off, seg.bytes + off);
    this.fileSize = Math.max(this.fileSize, seg.bytes + buf.length);
  }

  /**
   * Zero-fills the current segment ahead of a write of `len` bytes, when the zeros filled ahead (see
   * openSpare) do not reach that far. When the disk has no room for them, the zeros written so far
   * stay (the records overwrite them in place) and the write extends the file itself (and may fail:
   * cutBack).
   */
  private preallocate(seg: Segment, len: number): void {
    const need = seg.bytes + len;
    if (need <= this.fileSize || need < this.noPreallocateUntil) return;
    const chunk = Math.min(PREALLOCATE_BYTES, this.o.bounds.segmentBytes);
    const target = Math.ceil((need + 1) / chunk) * chunk;
    const fd = this.fh!.fd;
    let at = this.fileSize;
    try {
      while (at < target) at += this.o.io.write(fd, ZEROS, 0, Math.min(ZEROS.length, target - at), at);
    } catch {
      this.noPreallocateUntil = need + chunk;
    }
    this.fileSize = Math.max(this.fileSize, at);
  }

  /**
   * A write failed part-way: cuts the segment back to its last whole record (seg.bytes), so nothing
   * is ever appended after torn bytes. False when even that fails (roll before the next append).
   */
  async cutBack(seg: Segment): Promise<boolean> {
    try {
      await this.o.io.truncate(this.fh!.fd, seg.bytes);
      this.fileSize = seg.bytes;
      return true;
    } catch (err) {
      this.o.logger.error('tunnel log: could not cut a failed write back; rolling to a fresh segment', {
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  /** Whether the next segment is being opened (or is open) ahead. */
  get opening(): boolean {
    return this.spare !== null;
  }

  /** The next segment's handle once it is open ahead, or null. */
  get spareHandle(): FileHandle | null {
    return this.spareFh;
  }

  /**
   * Opens segment `n`, the one after the current (once; null when it cannot be opened: the current one
   * grows for now), zero-filled up to `bytes` (at most a segment's bound).
   */
  openSpare(n: number, bytes = PREALLOCATE_BYTES): Promise<FileHandle | null> {
    if (!this.spare) {
      const opening = openSegment(this.o.dir, n).then(
        async (fh) => {
          this.spareSize = await this.zeroFill(fh, Math.min(bytes, this.o.bounds.segmentBytes));
          return (this.spareFh = fh);
        },
        (err: unknown) => {
          this.o.logger.error('tunnel log: could not open a new segment', {
            segment: n,
            error: err instanceof Error ? err.message : String(err),
          });
          this.spare = null;
          return null;
        },
      );
      this.spare = opening;
    }
    return this.spare;
  }

  /** Zero-fills a segment opened ahead, in the thread pool (see preallocate): the size it reached. */
  private async zeroFill(fh: FileHandle, target: number): Promise<number> {
    let at = 0;
    try {
      const zeros = (fillZeros ??= Buffer.alloc(PREALLOCATE_BYTES));
      while (at < target) at += (await fh.write(zeros, 0, Math.min(zeros.length, target - at), at)).bytesWritten;
      return at;
    } catch {
      // No room: the writes extend the file themselves (preallocate).
      return fh.truncate(0).then(
        () => 0,
        () => at,
      );
    }
  }

  /** Moves the writes to `fh`, the next segment opened ahead; returns the one left and its file's size. */
  switchTo(fh: FileHandle): { fh: FileHandle; fileSize: number } {
    const left = { fh: this.fh!, fileSize: this.fileSize };
    this.spare = null;
    this.spareFh = null;
    this.fh = fh;
    this.fileSize = this.spareSize;
    this.noPreallocateUntil = 0;
    return left;
  }

  /**
   * After a failed fdatasync: cuts `seg` back to the bytes synced before it (the records written
   * after them failed) and syncs the cut. False when either fails: those records stay in the file.
   */
  private async cutFailed(fh: FileHandle, seg: Segment): Promise<boolean> {
    try {
      await this.o.io.truncate(fh.fd, seg.synced);
      await this.o.io.datasync(fh);
      if (fh === this.fh) this.fileSize = seg.synced;
      return true;
    } catch (err) {
      this.o.logger.error(
        'tunnel log: could not cut records that failed to sync out of their segment; they may be read back after a restart',
        {
          segment: seg.n,
          error: err instanceof Error ? err.message : String(err),
        },
      );
      return false;
    }
  }

  /**
   * Closes a segment left (`fileSize`: its file's size): cut to its records, or, after a failed sync
   * (`failed`), to what was synced before it; its zero padding cut off (best effort).
   */
  async retire(fh: FileHandle, seg: Segment, fileSize: number, failed: boolean): Promise<void> {
    if (failed && seg.bytes > seg.synced && (await this.cutFailed(fh, seg))) seg.bytes = seg.synced;
    try {
      if (fileSize > seg.bytes) await this.o.io.truncate(fh.fd, seg.bytes);
    } catch {
      // the padding stays: readers stop at its first NUL
    }
    await fh.close().catch(() => undefined);
  }

  /** Forgets the current segment (retired by the caller) and removes the next one if it was opened ahead and never written. */
  async close(seg: Segment): Promise<void> {
    this.fh = null;
    const spare = await this.spare;
    if (spare) {
      // Opened ahead and never written: not a segment yet.
      await spare.close().catch(() => undefined);
      await unlink(join(this.o.dir, segName(seg.n + 1))).catch(() => undefined);
    }
  }
}
