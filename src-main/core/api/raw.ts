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

export function rawResponse(
  status: number,
  contentType: string | null,
  bodyText: string,
  secret?: string,
): RawResponse {
  return {
    status,
    contentType,
    bytes: Buffer.byteLength(bodyText, 'utf8'),
    prefix: redact(textPrefix(bodyText), secret),
  };
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

/** A frame as the SSE parser hands it over (kept as is: no copy per frame). */
export interface ParsedFrame {
  event?: string | undefined;
  id?: string | undefined;
  data: string;
}

/** How many of a stream's frames are kept by default: the first `head` and the latest `tail`. */
export const FRAMES_KEPT = { head: 200, tail: 1800 } as const;

/**
 * The frames of one stream, bounded: the first `headMax` and the latest `tailMax` are kept, the
 * ones in between only counted. Pushing stores the parser's own object and the time in two arrays
 * (this runs once per frame); frames are built only when asked for.
 */
export class FrameLog {
  private readonly head: RawFrame[] = [];
  private readonly tail: Array<ParsedFrame | RawFrame> = [];
  private readonly tailMs: number[] = [];
  /** Next slot of the tail ring to overwrite once it is full. */
  private next = 0;
  private dropped = 0;

  constructor(
    private readonly headMax: number = FRAMES_KEPT.head,
    private readonly tailMax: number = FRAMES_KEPT.tail,
  ) {}

  /** A frame as received; `ms` when it was timed. */
  push(frame: RawFrame): void {
    this.add(frame, frame.ms);
  }

  /** A frame straight from the SSE parser (event, id, data), received at `ms`. */
  pushParsed(frame: ParsedFrame, ms: number | undefined): void {
    this.add(frame, ms);
  }

  get count(): number {
    return this.head.length + this.tail.length + this.dropped;
  }

  /** The kept frames in order, at most `head` from the start and `tail` from the end, key removed. */
  snapshot(secret?: string, head = this.headMax, tail = this.tailMax): FrameSnapshot {
    const order =
      this.tail.length < this.tailMax
        ? [...this.tail.keys()]
        : [...this.tail.keys()].map((i) => (i + this.next) % this.tailMax);
    const all = this.head.concat(order.map((i) => toRaw(this.tail[i]!, this.tailMs[i])));
    let frames = all;
    let omitted = this.dropped;
    if (all.length > head + tail) {
      frames = all.slice(0, head).concat(tail > 0 ? all.slice(-tail) : []);
      omitted += all.length - frames.length;
    }
    return { frames: frames.map((f) => redactFrame(f, secret)), omitted };
  }

  private add(frame: ParsedFrame | RawFrame, ms: number | undefined): void {
    if (this.head.length < this.headMax) this.head.push(toRaw(frame, ms));
    else if (this.tail.length < this.tailMax) {
      this.tail.push(frame);
      this.tailMs.push(ms ?? -1);
    } else {
      this.tail[this.next] = frame;
      this.tailMs[this.next] = ms ?? -1;
      this.next = this.next + 1 === this.tailMax ? 0 : this.next + 1;
      this.dropped++;
    }
  }
}

function toRaw(f: ParsedFrame | RawFrame, ms: number | undefined): RawFrame {
  const out: RawFrame = { event: f.event ?? null, id: f.id ?? null, data: f.data };
  if (ms !== undefined && ms >= 0) out.ms = ms;
  if ('comment' in f && f.comment !== undefined) out.comment = f.comment;
  if ('retry' in f && f.retry !== undefined) out.retry = f.retry;
  return out;
}
