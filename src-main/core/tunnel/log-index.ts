// The log's deliveries in memory: each with its forward attempts and the segment it lives in,
// ordered by id (ids sort by receive time), and the queries over them (list, get, pending).
import { forwardStateOf } from './records';
import type { DeliveryDetail, DeliveryListItem, ForwardAttempt, ForwardState, LogRecord, StoredDelivery, TunnelReason } from './types';

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

export interface Entry {
  delivery: StoredDelivery;
  attempts: ForwardAttempt[];
  segment: number;
}

export class LogIndex {
  readonly entries = new Map<string, Entry>();
  /** Delivery ids, oldest first. */
  private order: string[] = [];

  /**
   * Takes one record read or written in `segment`. A delivery: the segment it lived in before (a
   * pending delivery carried forward), or null; an attempt: null. Undefined when the record was not
   * taken (an attempt of an unknown delivery, or one already known).
   */
  apply(rec: LogRecord, segment: number): number | null | undefined {
    if (rec.kind === 'delivery') {
      const existing = this.entries.get(rec.id);
      if (existing) {
        // A pending delivery carried forward: it now lives in the newer segment.
        const before = existing.segment;
        existing.segment = segment;
        return before;
      }
      this.entries.set(rec.id, { delivery: rec, attempts: NO_ATTEMPTS, segment });
      this.insertOrdered(rec.id);
      return null;
    }
    const entry = this.entries.get(rec.deliveryId);
    if (!entry) return undefined;
    if (entry.attempts === NO_ATTEMPTS) {
      entry.attempts = [rec];
      return null;
    }
    // A carried-forward pending delivery repeats its attempts in the newer segment.
    for (const a of entry.attempts) if (a.id === rec.id) return undefined;
    const at = entry.attempts.findIndex((a) => a.at > rec.at);
    if (at < 0) entry.attempts.push(rec);
    else entry.attempts.splice(at, 0, rec);
    return null;
  }

  /** Forgets deliveries (their segment was dropped). */
  drop(ids: string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.entries.delete(id);
    const gone = new Set(ids);
    this.order = this.order.filter((id) => !gone.has(id));
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
}
