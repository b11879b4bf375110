// Deliveries already received per agent, for the `duplicate` verdict. A delivery is known by its
// message.id, or, without one, by a hash of what its signature covers (dedupeKey).
// Keys are kept for the duplicate window: at least twice the v1 tolerance (a timestamp is good from
// `tolerance` before to `tolerance` after) plus the service's retry horizon (ASSUMPTION A-RETRY: 5
// tries, 10 s each at most, after 1, 2, 4, 8 s of back-off: 65 s), so a retry or a replay inside the
// signature's validity is always caught. The index is rebuilt at open from the log's deliveries and
// the seen file (<dataDir>/seen.jsonl), where the keys of deliveries leave for when the log drops
// their segment; so it survives restarts and rotation. A check-and-claim is synchronous, so two
// concurrent retries of one message cannot both pass.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_TOLERANCE_SEC } from '../signature';
import { appendJsonLines, readJsonLines, rewriteJsonLines } from '../jsonl';
import type { SeenRecord, StoredDelivery } from './types';

/** The service's retry horizon in seconds (ASSUMPTION A-RETRY). */
const RETRY_HORIZON_SEC = 5 * 10 + 1 + 2 + 4 + 8;
/** Default duplicate window: 15 minutes, past twice the default tolerance plus the retry horizon. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 15 * 60_000;
/**
 * Keys held at most (the oldest go first beyond it): a bound on memory that only a sustained
 * rate of several hundred deliveries a second for the whole window reaches.
 */
const MAX_SEEN_KEYS = 500_000;

/** The shortest window that still catches every retry and replay of a valid signature. */
export function minDuplicateWindowMs(toleranceSec = DEFAULT_TOLERANCE_SEC): number {
  return (2 * toleranceSec + RETRY_HORIZON_SEC) * 1000;
}

/**
 * The duplicate key of an accepted delivery: its message.id, or `sig:` + sha256 over what the
 * signature covers (the v1 timestamp and the raw body; the body alone when only the legacy header
 * signed it). Never the signature header's text: one signature can be written many ways (hex case,
 * spaces, extra or repeated entries), each of which verifies.
 */
export function dedupeKey(messageId: string | null, v1Timestamp: number | undefined, body: Uint8Array): string {
  if (messageId !== null) return messageId;
  return `sig:${createHash('sha256')
    .update(v1Timestamp === undefined ? 'legacy\n' : `v1 ${v1Timestamp}\n`)
    .update(body)
    .digest('base64url')}`;
}

/** The key of a stored delivery that was accepted (ok), or null. */
export function keyOfDelivery(d: StoredDelivery): string | null {
  if (!d.verdict.ok) return null;
  const body = Buffer.from(d.bodyBase64, 'base64');
  // A message.id read from a body that is not valid UTF-8 may not be the one sent (see verify.ts).
  return dedupeKey(
    isUtf8(body) ? d.summary.messageId : null,
    d.verdict.scheme === 'v1' ? d.verdict.timestamp : undefined,
    body,
  );
}

export class SeenIndex {
  /**
   * Per agent, key → when first seen (ms after `base`: a small integer, no heap number per key);
   * insertion order is (about) time order. The key itself is the map's key: no string is made per
   * look-up.
   */
  private readonly agents = new Map<string, Map<string, number>>();
  /** Duplicates received since a key was first seen, per `agentId \0 key` (in memory only; few keys have any). */
  private readonly repeated = new Map<string, number>();
  /** Keys held, all agents. */
  private count = 0;
  /** The first key's time (see `agents`). */
  private base = 0;
  /** When the first (oldest) key was seen, or at most that: nothing to prune before it expires. */
  private firstAt = Infinity;

  constructor(readonly windowMs: number = DEFAULT_DUPLICATE_WINDOW_MS) {}

  /** From the log at open: its accepted deliveries' keys and the seen file's, in any order. */
  static rebuild(windowMs: number, nowMs: number, ...sources: Array<Iterable<SeenRecord>>): SeenIndex {
    const index = new SeenIndex(windowMs);
    const since = nowMs - windowMs;
    const all: SeenRecord[] = [];
    for (const records of sources) for (const r of records) if (r.at >= since) all.push(r);
    all.sort((a, b) => a.at - b.at);
    for (const r of all) index.claim(r.agentId, r.key, r.at);
    return index;
  }

  /** Marks the key seen at `nowMs`; false when it already was (within the window). */
  claim(agentId: string, key: string, nowMs: number): boolean {
    this.prune(nowMs);
    let keys = this.agents.get(agentId);
    if (keys === undefined) {
      keys = new Map();
      this.agents.set(agentId, keys);
    } else if (keys.has(key)) {
      const k = `${agentId}\u0000${key}`;
      this.repeated.set(k, (this.repeated.get(k) ?? 0) + 1);
      return false;
    }
    if (this.count === 0) {
      this.firstAt = nowMs;
      this.base = nowMs;
    }
    keys.set(key, nowMs - this.base);
    this.count++;
    if (this.count > MAX_SEEN_KEYS) this.forgetOldest();
    return true;
  }

  /** How many duplicates of the key arrived since it was first seen. */
  repeats(agentId: string, key: string): number {
    return this.repeated.size === 0 ? 0 : (this.repeated.get(`${agentId}\u0000${key}`) ?? 0);
  }

  release(agentId: string, key: string): void {
    this.forget(agentId, key);
  }

  private forget(agentId: string, key: string): void {
    const keys = this.agents.get(agentId);
    if (keys?.delete(key)) {
      this.count--;
      if (keys.size === 0) this.agents.delete(agentId);
    }
    if (this.repeated.size > 0) this.repeated.delete(`${agentId}\u0000${key}`);
  }

  /** Over the bound: the oldest key of all goes. */
  private forgetOldest(): void {
    let oldest: { agentId: string; key: string; at: number } | null = null;
    for (const [agentId, keys] of this.agents) {
      for (const [key, at] of keys) {
        if (oldest === null || at < oldest.at) oldest = { agentId, key, at };
        break;
      }
    }
    if (oldest) this.forget(oldest.agentId, oldest.key);
  }

  has(agentId: string, key: string): boolean {
    return this.agents.get(agentId)?.has(key) ?? false;
  }

  get size(): number {
    return this.count;
  }

  /** Drops keys older than the window (they sit at the front of each agent's keys: insertion order is time order). */
  private prune(nowMs: number): void {
    const since = nowMs - this.windowMs;
    if (this.firstAt >= since) return;
    this.firstAt = Infinity;
    for (const [agentId, keys] of [...this.agents]) {
      for (const [key, at] of keys) {
        if (at + this.base >= since) {
          this.firstAt = Math.min(this.firstAt, at + this.base);
          break;
        }
        this.forget(agentId, key);
      }
    }
  }
}

const SEEN_FILE = 'seen.jsonl';
/** The seen file is rewritten with only its live keys once it holds this many lines more than them. */
const COMPACT_SLACK = 10_000;

/**
 * The keys of deliveries that left the log, for the duplicate window (the writer's; see the top of
 * this file). keep() is durable before it resolves: the log drops a segment only after.
 */
export class SeenFile {
  readonly path: string;
  private live: SeenRecord[] = [];
  private lines = 0;
  /** The file may end in a torn line (found at open, or left by a failed append): rewrite, never append after it. */
  private torn = false;

  constructor(
    dataDir: string,
    private readonly windowMs: number,
  ) {
    this.path = join(dataDir, SEEN_FILE);
  }

  /**
   * Loads the keys still inside the window (a missing or torn file gives what it has). The log may
   * drop segments as it opens (keep()): read the keys with keys() once it is open.
   */
  async open(nowMs: number): Promise<void> {
    const since = nowMs - this.windowMs;
    const read = await readJsonLines(this.path, (v) => {
      const r = v as Partial<SeenRecord> | null;
      return typeof r?.agentId === 'string' && typeof r.key === 'string' && typeof r.at === 'number' && r.at >= since
        ? { agentId: r.agentId, key: r.key, at: r.at }
        : undefined;
    }).catch(() => ({ records: [], lines: 0, torn: false }));
    this.torn = read.torn;
    this.lines = read.lines;
    this.live.push(...read.records);
  }

  /** The keys kept: those loaded at open and those of every delivery that left the log since. */
  keys(): readonly SeenRecord[] {
    return this.live;
  }

  /** Keeps the keys (of accepted deliveries) seen inside the window, durably. */
  async keep(records: SeenRecord[], nowMs: number): Promise<void> {
    const since = nowMs - this.windowMs;
    const add = records.filter((r) => r.at >= since);
    if (add.length === 0) return;
    // Kept (about) oldest first: only a list whose first key has expired is filtered (a key kept a
    // little past its window is harmless: the index is rebuilt within the window).
    if (this.live.length > 0 && this.live[0]!.at < since) this.live = this.live.filter((r) => r.at >= since);
    for (const r of add) this.live.push(r);
    if (this.torn || this.lines + add.length > this.live.length + COMPACT_SLACK) return this.rewrite();
    try {
      await appendJsonLines(this.path, add, { sync: true });
    } catch (err) {
      this.torn = true;
      throw err;
    }
    this.lines += add.length;
  }

  /** Only the live keys, replacing the file atomically. */
  private async rewrite(): Promise<void> {
    await rewriteJsonLines(this.path, this.live);
    this.lines = this.live.length;
    this.torn = false;
  }
}
