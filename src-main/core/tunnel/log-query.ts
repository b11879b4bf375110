// The questions the tunnel screen and the CLI ask of the log's deliveries: a filtered page of them,
// newest first, and the counts.
import { bodyOf, stateOf, type Entry } from './log-entry';
import type { DeliveryListItem, DeliverySummary, ForwardState, TunnelReason } from './types';

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

export function countDeliveries(entries: Iterable<Entry>): DeliveryCounts {
  const out: DeliveryCounts = { received: 0, verified: 0, duplicates: 0, rejected: 0, forwarded: 0, failed: 0 };
  for (const e of entries) {
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

/** The deliveries a query asks for, newest first: `order` holds the ids oldest first. */
export function listDeliveries(
  order: readonly string[],
  entries: ReadonlyMap<string, Entry>,
  q: DeliveryQuery,
): DeliveryListItem[] {
  const limit = Math.min(Math.max(1, q.limit ?? 50), 1000);
  const text = q.text?.toLowerCase();
  const from = q.from?.replace(/^\+/, '');
  const out: DeliveryListItem[] = [];
  for (let i = order.length - 1; i >= 0 && out.length < limit; i--) {
    const id = order[i]!;
    if (q.before !== undefined && id >= q.before) continue;
    const e = entries.get(id)!;
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
    if (text !== undefined && !bodyOf(e).toString('utf8').toLowerCase().includes(text)) continue;
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
