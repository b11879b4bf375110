// The inspector's one list of requests: stored deliveries and refused (or not-a-hook) requests
// side by side, newest first, and the filter over them (what to show, which agent, and text).
import type { DeliverySummaryDTO, RefusedRequestDTO, Verdict } from '../../../../src-shared/contract';

export type RequestRow =
  | { kind: 'delivery'; id: string; at: number; d: DeliverySummaryDTO }
  | { kind: 'refused'; id: string; at: number; r: RefusedRequestDTO };

export type Show = 'all' | 'verified' | 'unverified' | 'simulated' | 'refused';

export const SHOW_WORDS: Record<Show, string> = {
  all: 'All requests',
  verified: 'Verified deliveries',
  unverified: 'Deliveries not verified',
  simulated: 'Simulated deliveries',
  refused: 'Refused and not-a-hook requests',
};

export interface RequestFilter {
  show: Show;
  /** '' = every agent. */
  agentId: string;
  text: string;
}

export const NO_FILTER: RequestFilter = { show: 'all', agentId: '', text: '' };

export function rowsOf(deliveries: DeliverySummaryDTO[], refused: RefusedRequestDTO[]): RequestRow[] {
  const rows: RequestRow[] = [
    ...deliveries.map((d): RequestRow => ({ kind: 'delivery', id: d.id, at: d.receivedAt, d })),
    ...refused.map((r): RequestRow => ({ kind: 'refused', id: r.id, at: r.at, r })),
  ];
  return rows.sort((a, b) => b.at - a.at);
}

/** Every row once (by kind and id), newest first. */
export function mergeRows(...lists: RequestRow[][]): RequestRow[] {
  const seen = new Map<string, RequestRow>();
  for (const list of lists) for (const row of list) seen.set(`${row.kind}:${row.id}`, row);
  return [...seen.values()].sort((a, b) => b.at - a.at);
}

const digits = (s: string) => s.replace(/[\s()+-]/g, '').toLowerCase();

/** The words a row is found by; `agentName` gives an agent's label. */
function rowText(row: RequestRow, agentName: (agentId: string) => string): string {
  if (row.kind === 'delivery') {
    const d = row.d;
    return [
      d.id,
      d.agentId,
      d.agentId ? agentName(d.agentId) : '',
      d.from,
      d.messageType,
      d.event,
      d.preview,
      d.messageId,
      d.verdict,
    ]
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
  }
  const r = row.r;
  return [
    r.id,
    r.method,
    r.path,
    r.agentId,
    r.agentId ? agentName(r.agentId) : '',
    r.from,
    r.reason,
    r.detail,
    r.prefix,
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** Signed with the current header and checked (a duplicate was, the first time). */
const FULLY_VERIFIED: ReadonlySet<Verdict> = new Set<Verdict>(['verified', 'duplicate']);

function shows(row: RequestRow, show: Show): boolean {
  switch (show) {
    case 'all':
      return true;
    case 'refused':
      return row.kind === 'refused';
    case 'verified':
      return row.kind === 'delivery' && FULLY_VERIFIED.has(row.d.verdict);
    case 'simulated':
      return row.kind === 'delivery' && row.d.verdict === 'simulated';
    case 'unverified':
      return row.kind === 'delivery' && !FULLY_VERIFIED.has(row.d.verdict) && row.d.verdict !== 'simulated';
  }
}

export function matches(row: RequestRow, f: RequestFilter, agentName: (agentId: string) => string): boolean {
  if (!shows(row, f.show)) return false;
  const agent = row.kind === 'delivery' ? row.d.agentId : row.r.agentId;
  if (f.agentId && agent !== f.agentId) return false;
  const words = f.text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = rowText(row, agentName);
  const compact = digits(text);
  return words.every((w) => text.includes(w) || (/^[\d\s()+-]+$/.test(w) && compact.includes(digits(w))));
}
