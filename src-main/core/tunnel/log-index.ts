// The log's deliveries in memory, ordered by id (ids sort by receive time), and the queries over
// them (list, get, pending). The index lives as long as the log, so everything it holds is copied
// by the garbage collector's young generation and kept in the old one: it is kept compact. Per
// delivery one flat entry with what lists, counts and the forwarder ask about, plus its record and
// its attempts' records as written (JSON lines); a whole record is parsed back only when asked for
// (get, pending, all, or a body search). A delivery's record, and its first attempt's once written,
// is kept as a range of the very buffer that was written to disk (or read from it), shared by every
// record of that write: a few long-lived objects per write, off the collector's heap, instead of a
// string (often a tree of pieces: JSON.stringify builds its result in parts) per record.
// A body is cut from its record as written (bodyOf), so reading bodies parses no record.
import { isFinalStatus } from './records';
import { keyOfDelivery } from './seen';
import type {
  DeliveryBody,
  DeliveryDetail,
  DeliveryListItem,
  DeliverySummary,
  ForwardAttempt,
  ForwardState,
  SeenRecord,
  StoredDelivery,
  TunnelReason,
  TunnelVerdict,
} from './types';

export interface DeliveryQuery {
  agentId?: string;
  /** A reason (`verified`, `duplicate`, …), or `ok` / `rejected`. */
  verdict?: TunnelReason | 'ok' | 'rejected';
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

/** What the tunnel screen counts (refused requests are counted from their own store). */
export interface DeliveryCounts {
  received: number;
  /** Authentic deliveries, duplicates among them. */
  verified: number;
  /** Repeats of a delivery already received: authentic and acknowledged, not passed on again. */
  duplicates: number;
  /** Not authentic (bad, missing or stale signature, no secret to check it with …). */
  rejected: number;
  forwarded: number;
  failed: number;
}

/** What leaves with a segment: the pending deliveries to carry forward, the rest to drop. */
export interface Leaving {
  carry: string[];
  /** Their records and their attempts' records as written, one per line (no newline after the last). */
  carryText: string;
  drop: string[];
  /** The duplicate keys of the dropped deliveries. */
  seen: SeenRecord[];
}

/** Repeated short strings (agent ids, event names, senders, reasons) share one copy. */
const INTERN_MAX = 4096;

function base64Bytes(b64: string): number {
  return Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
}

/** not-forwarded, or the word of the latest attempt that was not a replay (none yet: pending). */
function stateOf(e: Entry): ForwardState {
  if (!e.forward) return 'not-forwarded';
  if (e.forwards === 0) return 'pending';
  const s = e.lastStatus;
  if (s !== null && s >= 200 && s <= 299) return 'delivered';
  return isFinalStatus(s) ? 'rejected' : 'pending';
}

function lineOf(e: Entry): string {
  return e.src.toString('utf8', e.start, e.end);
}

function parseDelivery(e: Entry): StoredDelivery {
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
function bodyOf(e: Entry): Buffer {
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
function attemptText(e: Entry): string {
  if (e.attemptSrc === null) return e.attemptLines;
  const first = e.attemptSrc.toString('utf8', e.attemptStart, e.attemptEnd);
  return e.attemptLines === '' ? first : `${first}\n${e.attemptLines}`;
}

function parseAttempts(e: Entry): ForwardAttempt[] {
  const text = attemptText(e);
  if (text === '') return [];
  const out = text.split('\n').map((l) => JSON.parse(l) as ForwardAttempt);
  // In time order (stable: taken order among equal times).
  return out.sort((a, b) => a.at - b.at);
}

export class LogIndex {
  readonly entries = new Map<string, Entry>();
  /** Delivery ids, oldest first. */
  private order: string[] = [];
  private readonly interned = new Map<string, string>();
  /** While loading: attempt ids already taken (a carried-forward delivery repeats its attempts). */
  private loadedAttempts: Set<string> | null = new Set();

  private intern<T extends string | null>(s: T): T {
    if (s === null) return s;
    const known = this.interned.get(s);
    if (known !== undefined) return known as T;
    if (this.interned.size < INTERN_MAX) this.interned.set(s, s);
    return s;
  }

  /** Loading is over: attempts taken from now on are new ones. */
  loaded(): void {
    this.loadedAttempts = null;
  }

  /**
   * Takes a delivery record read or written in `segment`, as written: bytes start..end of src. The
   * segment it lived in before (a pending delivery carried forward), or null. `key`: its duplicate key
   * (keyOfDelivery) when the caller knows it.
   */
  addDelivery(
    d: StoredDelivery,
    segment: number,
    src: Buffer,
    start: number,
    end: number,
    key?: string | null,
  ): number | null {
    const existing = this.entries.get(d.id);
    if (existing) {
      // A pending delivery carried forward: it now lives in the newer segment.
      const before = existing.segment;
      existing.segment = segment;
      return before;
    }
    this.entries.set(d.id, this.entryOf(d, segment, src, start, end, key === undefined ? keyOfDelivery(d) : key));
    this.insertOrdered(d.id);
    return null;
  }

  /**
   * Takes an attempt record, with its line as written; false when it was not taken (an attempt of an
   * unknown delivery, or one already known).
   */
  addAttempt(rec: ForwardAttempt, line: string): boolean {
    const e = this.entries.get(rec.deliveryId);
    if (!e) return false;
    if (this.loadedAttempts) {
      if (this.loadedAttempts.has(rec.id)) return false;
      this.loadedAttempts.add(rec.id);
    }
    e.attemptLines = e.attemptLines === '' ? line : `${e.attemptLines}\n${line}`;
    e.attempts++;
    if (!rec.replay) {
      e.forwards++;
      if (rec.at >= e.lastAt) {
        e.lastAt = rec.at;
        e.lastStatus = rec.status;
      }
    }
    return true;
  }

  /**
   * An attempt's record `line`, taken with addAttempt, was written as bytes start..end of `src`:
   * when it is its delivery's only attempt, the entry keeps it as that range (off the collector's
   * heap, like the delivery's record) instead of the string.
   */
  attemptWritten(deliveryId: string, line: string, src: Buffer, start: number, end: number): void {
    const e = this.entries.get(deliveryId);
    if (!e || e.attemptSrc !== null || e.attemptLines !== line) return;
    e.attemptSrc = src;
    e.attemptStart = start;
    e.attemptEnd = end;
    e.attemptLines = '';
  }

  private entryOf(
    d: StoredDelivery,
    segment: number,
    src: Buffer,
    start: number,
    end: number,
    key: string | null,
  ): Entry {
    const s = d.summary;
    return {
      id: d.id,
      agentId: this.intern(d.agentId),
      receivedAt: d.receivedAt,
      segment,
      src,
      start,
      end,
      attemptLines: '',
      attemptSrc: null,
      attemptStart: 0,
      attemptEnd: 0,
      attempts: 0,
      forwards: 0,
      lastStatus: null,
      lastAt: -Infinity,
      ok: d.verdict.ok,
      reason: this.intern(d.verdict.reason),
      scheme: d.verdict.scheme,
      event: this.intern(s.event),
      from: this.intern(s.from),
      messageId: s.messageId,
      type: this.intern(s.type),
      key,
      bytes: base64Bytes(d.bodyBase64),
      simulated: d.simulated === true,
      forward: d.forward,
    };
  }

  /** A delivery carried forward now lives in `segment`: where it was, or undefined when unknown. */
  move(id: string, segment: number): { before: number; receivedAt: number } | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    const before = e.segment;
    e.segment = segment;
    return { before, receivedAt: e.receivedAt };
  }

  /** Forgets deliveries (their segment was dropped). */
  drop(ids: string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.entries.delete(id);
    const gone = new Set(ids);
    // They are the oldest (a dropped segment's), so usually the front of the order: cut off at once,
    // then looked for in the rest only when some were not there (a delivery carried forward among them).
    const o = this.order;
    let front = 0;
    while (front < o.length && gone.has(o[front]!)) front++;
    this.order = front === ids.length ? o.slice(front) : o.slice(front).filter((id) => !gone.has(id));
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

  has(id: string): boolean {
    return this.entries.has(id);
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): DeliveryDetail | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    return { ...parseDelivery(e), attempts: parseAttempts(e), forwardState: stateOf(e) };
  }

  body(id: string): Buffer | undefined {
    const e = this.entries.get(id);
    return e ? bodyOf(e) : undefined;
  }

  forwardState(id: string): ForwardState | undefined {
    const e = this.entries.get(id);
    return e ? stateOf(e) : undefined;
  }

  /** Pending deliveries, oldest first. */
  pending(): StoredDelivery[] {
    const out: StoredDelivery[] = [];
    for (const id of this.order) {
      const e = this.entries.get(id)!;
      if (stateOf(e) === 'pending') out.push(parseDelivery(e));
    }
    return out;
  }

  /** Every delivery, oldest first. */
  *all(): IterableIterator<StoredDelivery> {
    for (const id of this.order) yield parseDelivery(this.entries.get(id)!);
  }

  /** The authentic deliveries of one event, oldest first, with their bodies (no record is parsed). */
  *bodies(event: string): IterableIterator<DeliveryBody> {
    for (const id of this.order) {
      const e = this.entries.get(id)!;
      if (!e.ok || e.event !== event) continue;
      yield {
        id,
        agentId: e.agentId,
        receivedAt: e.receivedAt,
        simulated: e.simulated,
        ok: true,
        event,
        body: bodyOf(e),
      };
    }
  }

  /** The duplicate keys of the accepted deliveries, oldest first (for the duplicate index). */
  *seenKeys(): IterableIterator<SeenRecord> {
    for (const id of this.order) {
      const e = this.entries.get(id)!;
      if (e.key !== null) yield { agentId: e.agentId, key: e.key, at: e.receivedAt };
    }
  }

  counts(): DeliveryCounts {
    const out: DeliveryCounts = { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 };
    for (const e of this.entries.values()) {
      out.received++;
      if (e.reason === 'duplicate') {
        out.verified++;
        out.duplicates++;
      } else if (e.ok) out.verified++;
      else out.rejected++;
      const state = stateOf(e);
      if (state === 'delivered') out.forwarded++;
      else if (state === 'rejected' || (state === 'pending' && e.forwards > 0)) out.failed++;
    }
    return out;
  }

  /** What leaves with a segment (see Leaving). */
  leaving(segment: number): Leaving {
    const out: Leaving = { carry: [], carryText: '', drop: [], seen: [] };
    const lines: string[] = [];
    for (const [id, e] of this.entries) {
      if (e.segment !== segment) continue;
      if (stateOf(e) === 'pending') {
        out.carry.push(id);
        lines.push(lineOf(e));
        if (e.attempts > 0) lines.push(attemptText(e));
        continue;
      }
      out.drop.push(id);
      if (e.key !== null) out.seen.push({ agentId: e.agentId, key: e.key, at: e.receivedAt });
    }
    out.carryText = lines.join('\n');
    return out;
  }

  /** Newest first. */
  list(q: DeliveryQuery = {}): DeliveryListItem[] {
    const limit = Math.min(Math.max(1, q.limit ?? 50), 1000);
    const text = q.text?.toLowerCase();
    const from = q.from?.replace(/^\+/, '');
    const out: DeliveryListItem[] = [];
    for (let i = this.order.length - 1; i >= 0 && out.length < limit; i--) {
      const id = this.order[i]!;
      if (q.before !== undefined && id >= q.before) continue;
      const e = this.entries.get(id)!;
      if (q.agentId !== undefined && e.agentId !== q.agentId) continue;
      if (q.verdict !== undefined) {
        if (q.verdict === 'ok' ? !e.ok : q.verdict === 'rejected' ? e.ok : e.reason !== q.verdict) continue;
      }
      if (from !== undefined && e.from !== from) continue;
      if (q.type !== undefined && e.type !== q.type) continue;
      if (q.since !== undefined && e.receivedAt < q.since) continue;
      if (q.until !== undefined && e.receivedAt >= q.until) continue;
      const state = stateOf(e);
      if (q.forwardState !== undefined && state !== q.forwardState) continue;
      if (text !== undefined && !this.body(id)!.toString('utf8').toLowerCase().includes(text)) continue;
      const summary: DeliverySummary = { event: e.event, from: e.from, messageId: e.messageId, type: e.type };
      out.push({
        id,
        agentId: e.agentId,
        receivedAt: e.receivedAt,
        verdict: { ok: e.ok, reason: e.reason, scheme: e.scheme },
        summary,
        bytes: e.bytes,
        simulated: e.simulated,
        forwardState: state,
        attempts: e.attempts,
        lastStatus: e.lastStatus,
      });
    }
    return out;
  }
}
