// One delivery of the log as the index keeps it: a flat entry with what lists, counts and the
// forwarder ask about, plus its record and its attempts' records as written (JSON lines), and the
// readers that take what is asked for from it. A whole record is parsed back only when asked for
// (get, pending, all, or a body search); a body is cut from its record as written (bodyOf), so
// reading bodies parses no record. A delivery's record, and its first attempt's once written, is kept
// as a range of the very buffer that was written to disk (or read from it), shared by every record of
// that write: a few long-lived objects per write, off the collector's heap, instead of a string (often
// a tree of pieces: JSON.stringify builds its result in parts) per record.
import { isFinalStatus } from './records';
import type { DeliveryBody, ForwardAttempt, ForwardState, StoredDelivery, TunnelReason, TunnelVerdict } from './types';

export interface Entry {
  readonly id: string;
  readonly agentId: string;
  readonly receivedAt: number;
  segment: number;
  /** The delivery record as written (JSON, without the newline): bytes start..end of src. */
  readonly src: Buffer;
  readonly start: number;
  readonly end: number;
  /**
   * Its attempts' records as written, one per line, in the order they were taken ('' when none);
   * the first one may be held as bytes attemptStart..attemptEnd of attemptSrc instead (see attemptWritten).
   */
  attemptLines: string;
  attemptSrc: Buffer | null;
  attemptStart: number;
  attemptEnd: number;
  attempts: number;
  /** Attempts that were not replays. */
  forwards: number;
  /** The status and time of the latest attempt that was not a replay. */
  lastStatus: number | null;
  lastAt: number;
  readonly ok: boolean;
  readonly reason: TunnelReason;
  readonly scheme: TunnelVerdict['scheme'];
  readonly event: string | null;
  readonly from: string | null;
  readonly messageId: string | null;
  readonly type: string | null;
  /** The duplicate key of an accepted delivery (seen.ts), or null. */
  readonly key: string | null;
  /** Body bytes. */
  readonly bytes: number;
  readonly simulated: boolean;
  readonly forward: boolean;
}

export function base64Bytes(b64: string): number {
  return Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
}

/** not-forwarded, or the word of the latest attempt that was not a replay (none yet: pending). */
export function stateOf(e: Entry): ForwardState {
  if (!e.forward) return 'not-forwarded';
  if (e.forwards === 0) return 'pending';
  const s = e.lastStatus;
  if (s !== null && s >= 200 && s <= 299) return 'delivered';
  return isFinalStatus(s) ? 'rejected' : 'pending';
}

export function lineOf(e: Entry): string {
  return e.src.toString('utf8', e.start, e.end);
}

export function parseDelivery(e: Entry): StoredDelivery {
  return JSON.parse(lineOf(e)) as StoredDelivery;
}

/** `"bodyBase64":"` as a delivery record is written. */
const BODY_KEY = Buffer.from('"bodyBase64":"');

/**
 * A delivery's body bytes, cut from its record as written: the base64 after `"bodyBase64":"`. A
 * quote inside a string value is escaped, so the text is found only where it is a key, and no header
 * has that name (header names are stored lower-cased). The cut is taken when the base64 is as long as
 * the body and ends with a quote; otherwise the record is parsed.
 */
export function bodyOf(e: Entry): Buffer {
  const at = e.src.indexOf(BODY_KEY, e.start);
  const from = at + BODY_KEY.length;
  const to = from + 4 * Math.ceil(e.bytes / 3);
  if (at >= 0 && to < e.end && e.src[to] === 0x22) return Buffer.from(e.src.toString('latin1', from, to), 'base64');
  return Buffer.from(parseDelivery(e).bodyBase64, 'base64');
}

/** A delivery as the log's bodies() yields it. */
export function deliveryBody(d: StoredDelivery): DeliveryBody {
  return {
    id: d.id,
    agentId: d.agentId,
    receivedAt: d.receivedAt,
    simulated: d.simulated === true,
    ok: d.verdict.ok,
    event: d.summary.event,
    body: Buffer.from(d.bodyBase64, 'base64'),
  };
}

/** Its attempts' records as written, one per line ('' when none). */
export function attemptText(e: Entry): string {
  if (e.attemptSrc === null) return e.attemptLines;
  const first = e.attemptSrc.toString('utf8', e.attemptStart, e.attemptEnd);
  return e.attemptLines === '' ? first : `${first}\n${e.attemptLines}`;
}

export function parseAttempts(e: Entry): ForwardAttempt[] {
  const text = attemptText(e);
  if (text === '') return [];
  const out = text.split('\n').map((l) => JSON.parse(l) as ForwardAttempt);
  // In time order (stable: taken order among equal times).
  return out.sort((a, b) => a.at - b.at);
}
