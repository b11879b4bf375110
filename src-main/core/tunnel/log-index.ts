// The log's deliveries in memory, ordered by id (ids sort by receive time), and the queries over
// them (list, get, pending). The index lives as long as the log, so everything it holds is copied
// by the garbage collector's young generation and kept in the old one: it is kept compact, one flat
// entry per delivery (log-entry.ts).
import {
  attemptText,
  base64Bytes,
  bodyOf,
  lineOf,
  parseAttempts,
  parseDelivery,
  stateOf,
  type Entry,
} from './log-entry';
import { countDeliveries, listDeliveries, type DeliveryCounts, type DeliveryQuery } from './log-query';
import { keyOfDelivery } from './seen';
import type {
  DeliveryBody,
  DeliveryDetail,
  DeliveryListItem,
  ForwardAttempt,
  ForwardState,
  SeenRecord,
  StoredDelivery,
} from './types';

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
    return countDeliveries(this.entries.values());
  }

  /** Newest first. */
  list(q: DeliveryQuery = {}): DeliveryListItem[] {
    return listDeliveries(this.order, this.entries, q);
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
}
