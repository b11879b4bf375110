// The log's segments and what they hold: the JSONL segment files under <dataDir>/deliveries (named
// by number, oldest first), each one's counts (kept for rotation and retention), the in-memory index
// of their deliveries (log-index.ts), and the file operations the append path makes on them.
import { constants, fdatasync, ftruncate, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from './private-files';
import { LogIndex } from './log-index';
import type { ForwardAttempt, StoredDelivery } from './types';
import { CompanionError } from '../errors';

export interface LogBounds {
  maxDeliveries?: number;
  maxBytes?: number;
  maxAgeMs?: number;
  /** A segment is closed once it holds this many bytes ... */
  segmentBytes?: number;
  /** ... or this many deliveries. */
  segmentDeliveries?: number;
}

export const DEFAULT_BOUNDS: Required<LogBounds> = {
  maxDeliveries: 10_000,
  maxBytes: 256 * 1024 * 1024,
  maxAgeMs: 14 * 24 * 3600_000,
  segmentBytes: 8 * 1024 * 1024,
  segmentDeliveries: 1_000,
};

export interface Segment {
  n: number;
  /** Bytes of whole records in it. */
  bytes: number;
  /** Its first bytes known to be on disk (an fdatasync that covered them succeeded). */
  synced: number;
  deliveries: number;
  /** Delivery records written to it (counted at write time, for rotation). */
  written: number;
  newestAt: number;
}

export const newSegment = (n: number): Segment => ({ n, bytes: 0, synced: 0, deliveries: 0, written: 0, newestAt: 0 });

export const SEGMENT_RE = /^seg-(\d{12})\.jsonl$/;
export const segName = (n: number) => `seg-${String(n).padStart(12, '0')}.jsonl`;

const SEGMENT_OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;

/** Opens a segment for writing in place (created 0600 when missing). */
export function openSegment(dir: string, n: number): Promise<FileHandle> {
  return open(join(dir, segName(n)), SEGMENT_OPEN_FLAGS, PRIVATE_FILE_MODE);
}

/** What the append path does to the segment file. */
export interface LogIO {
  /** pwrite(2) at `position`: may write less than asked, or throw (ENOSPC, EIO). */
  write(fd: number, buf: Buffer, off: number, len: number, position: number): number;
  /** ftruncate(2), in the thread pool (a cut can take milliseconds: it frees the blocks past `len`). */
  truncate(fd: number, len: number): Promise<void>;
  datasync(fh: FileHandle): Promise<void>;
}

export const NODE_IO: LogIO = {
  write: (fd, buf, off, len, position) => writeSync(fd, buf, off, len, position),
  truncate: (fd, len) =>
    new Promise<void>((resolve, reject) => ftruncate(fd, len, (err) => (err ? reject(err) : resolve()))),
  // The callback form: the same fdatasync in the thread pool, without the promise API's heavier request.
  datasync: (fh) => new Promise<void>((resolve, reject) => fdatasync(fh.fd, (err) => (err ? reject(err) : resolve()))),
};

/** An append refused because the log is read-only or closed. */
export class LogClosedError extends CompanionError {
  constructor(message: string) {
    super(message);
    this.name = 'LogClosedError';
  }
}

/** The segments (oldest first, the last one written) and the index of the deliveries they hold. */
export class LogContents {
  readonly index = new LogIndex();
  readonly segments: Segment[] = [];

  current(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  segmentOf(n: number): Segment {
    return this.segments.find((s) => s.n === n) ?? newSegment(n);
  }

  /**
   * Takes a delivery record (as written: bytes start..end of src) into the index and keeps the
   * segments' counts. `key`: its duplicate key when known.
   */
  applyDelivery(d: StoredDelivery, seg: Segment, src: Buffer, start: number, end: number, key?: string | null): void {
    this.counted(this.index.addDelivery(d, seg.n, src, start, end, key), seg, d.receivedAt);
  }

  applyAttempt(a: ForwardAttempt, seg: Segment, line: string): void {
    if (this.index.addAttempt(a, line)) seg.newestAt = Math.max(seg.newestAt, a.at);
  }

  /** Deliveries carried forward now live in `seg`. */
  moved(ids: string[], seg: Segment): void {
    for (const id of ids) {
      const moved = this.index.move(id, seg.n);
      if (moved) this.counted(moved.before, seg, moved.receivedAt);
    }
  }

  /** A delivery now lives in `seg` (`before`: the segment it was carried from, or null). */
  private counted(before: number | null, seg: Segment, receivedAt: number): void {
    if (before !== null) this.segmentOf(before).deliveries--;
    seg.deliveries++;
    seg.newestAt = Math.max(seg.newestAt, receivedAt);
  }
}
