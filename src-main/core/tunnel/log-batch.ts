// One write's worth of appends: what each append holds, the attempt records held back for the next
// write, and how a batch of them becomes the bytes of one write (log-writer.ts).
import type { Segment } from './log-segments';
import type { LogRecord } from './types';

export interface Pending {
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
  /** The duplicate key of the delivery `rec`, when known (else the index works it out). */
  key: string | null | undefined;
  /** The append's own promise: settled once its records are applied (see settle()). */
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface Unsynced {
  p: Pending;
  seg: Segment;
  /** The buffer written. */
  buf: Buffer;
}

export function newPending(
  data: string,
  deliveries: number,
  durable: boolean,
  rec: LogRecord | null,
  carried: string[] | null,
  key?: string | null,
): Pending & { promise: Promise<void> } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { data, deliveries, durable, rec, start: 0, end: 0, carried, key, resolve, reject, promise };
}

/**
 * The bytes of one write: the attempts held back, then each append's records, each line ending in a
 * newline; notes where each append's data went. The index keeps delivery and attempt records as
 * ranges of this buffer, so a write holding any gets one of its own (not a slice of Node's shared pool).
 */
export function encode(lazy: string, batch: Pending[]): Buffer {
  let size = Buffer.byteLength(lazy);
  // The index keeps attempt records as ranges of the buffer too.
  let kept = lazy !== '';
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

/** Where a held attempt record lies in the text written, in bytes (for the index: attemptWritten). */
interface HeldRef {
  deliveryId: string;
  line: string;
  start: number;
  end: number;
}

/** Attempt records taken into memory, written at the head of the next write. */
export class HeldAttempts {
  /** Their lines, each ending in a newline ('' when none is held). */
  text = '';
  private refs: HeldRef[] = [];
  private bytes = 0;

  add(deliveryId: string, line: string): void {
    const start = this.bytes;
    const end = start + Buffer.byteLength(line);
    this.refs.push({ deliveryId, line, start, end });
    this.text += `${line}\n`;
    this.bytes = end + 1;
  }

  /** What is held, for a write; nothing is held after. */
  take(): { text: string; refs: readonly HeldRef[] } {
    const out = { text: this.text, refs: this.refs };
    this.text = '';
    this.refs = [];
    this.bytes = 0;
    return out;
  }
}
