// What the service answered, kept to show a person when the client could not read it: status,
// content type, size, the first bytes of the body, and for a token stream its frames as received.
// The API key is taken out of everything kept here.
import type { RawFrame, RawResponse } from './types';

const REDACTED = '[redacted]';

/** Removes every occurrence of the secret from text. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(REDACTED);
}

/** How much of a body is kept to show. */
export const RAW_PREFIX_BYTES = 2048;

/** The first `max` bytes of `text` as UTF-8 (a character cut in half becomes U+FFFD). */
export function textPrefix(text: string, max = RAW_PREFIX_BYTES): string {
  if (text.length * 3 <= max) return text;
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= max ? text : bytes.subarray(0, max).toString('utf8');
}

export function rawResponse(status: number, contentType: string | null, bodyText: string, secret?: string): RawResponse {
  return { status, contentType, bytes: Buffer.byteLength(bodyText, 'utf8'), prefix: redact(textPrefix(bodyText), secret) };
}

function redactFrame(f: RawFrame, secret: string | undefined): RawFrame {
  if (!secret) return f;
  const out: RawFrame = { ...f, data: redact(f.data, secret) };
  if (f.event !== null) out.event = redact(f.event, secret);
  if (f.id !== null) out.id = redact(f.id, secret);
  if (f.comment !== undefined) out.comment = redact(f.comment, secret);
  return out;
}

export interface FrameSnapshot {
  frames: RawFrame[];
  /** Frames received but not in `frames` (the middle of a long stream). */
  omitted: number;
}

/**
 * The frames of one stream, bounded: the first `headMax` and the latest `tailMax` are kept, the
 * ones in between only counted. Pushing is a plain array write (this runs once per frame).
 */
export class FrameLog {
  private readonly head: RawFrame[] = [];
  private readonly tail: RawFrame[] = [];
  /** Next slot of the tail ring to overwrite once it is full. */
  private next = 0;
  private dropped = 0;

  constructor(
    private readonly headMax = 200,
    private readonly tailMax = 1800,
  ) {}

  push(frame: RawFrame): void {
    if (this.head.length < this.headMax) this.head.push(frame);
    else if (this.tail.length < this.tailMax) this.tail.push(frame);
    else {
      this.tail[this.next] = frame;
      this.next = this.next + 1 === this.tailMax ? 0 : this.next + 1;
      this.dropped++;
    }
  }

  get count(): number {
    return this.head.length + this.tail.length + this.dropped;
  }

  /** The kept frames in order, at most `head` from the start and `tail` from the end, key removed. */
  snapshot(secret?: string, head = this.headMax, tail = this.tailMax): FrameSnapshot {
    const ordered = this.tail.length < this.tailMax ? this.tail : [...this.tail.slice(this.next), ...this.tail.slice(0, this.next)];
    const all = this.head.concat(ordered);
    let frames = all;
    let omitted = this.dropped;
    if (all.length > head + tail) {
      frames = all.slice(0, head).concat(tail > 0 ? all.slice(-tail) : []);
      omitted += all.length - frames.length;
    }
    return { frames: frames.map((f) => redactFrame(f, secret)), omitted };
  }
}
