// Forwards stored deliveries to the developer's local app, one at a time per agent and in order:
// a later delivery never overtakes an earlier pending one. When the app is down (no answer, 5xx,
// 408/429, time-out) the head of the queue is retried with backoff on the injected clock. The queue
// is derived from the log (pending = forwarded but without a final answer), so it survives restarts.
import { silentLogger, type Clock, type Logger } from '../ports';
import type { IdGenerator } from './ids';
import { isFinalStatus, type EventLog } from './log';
import { postOnce, type Transport } from './transport';
import type { ForwardAttempt, StoredDelivery } from './types';

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

export interface AgentForwardStatus {
  agentId: string;
  /** ms since epoch when the local app stopped answering; null while it answers. */
  localAppDownSince: number | null;
  pending: number;
  lastError: string | null;
  /** ms since epoch of the next retry, when one is scheduled. */
  nextRetryAt: number | null;
}

export interface ForwarderOptions {
  log: EventLog;
  clock: Clock;
  transport: Transport;
  newId: IdGenerator;
  /** The local app's URL for an agent; undefined: none configured. */
  targetOf(agentId: string): string | undefined;
  /** The headers for one forward (may re-sign a stale delivery). */
  headersFor(d: StoredDelivery): Promise<{ headers: Record<string, string>; resigned: boolean }>;
  timeoutMs?: number;
  backoff?: BackoffPolicy;
  logger?: Logger;
  onAttempt?(attempt: ForwardAttempt, delivery: StoredDelivery): void;
  onStatus?(status: AgentForwardStatus): void;
}

interface AgentQueue {
  ids: string[];
  busy: boolean;
  timer: unknown;
  backoffMs: number;
  downSince: number | null;
  lastError: string | null;
  nextRetryAt: number | null;
}

export class Forwarder {
  private readonly queues = new Map<string, AgentQueue>();
  private readonly running = new Set<Promise<void>>();
  private readonly recording = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly backoff: BackoffPolicy;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private stopped = false;

  constructor(private readonly o: ForwarderOptions) {
    this.backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.timeoutMs = o.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
    this.logger = o.logger ?? silentLogger;
  }

  private queue(agentId: string): AgentQueue {
    let q = this.queues.get(agentId);
    if (!q) {
      q = { ids: [], busy: false, timer: null, backoffMs: this.backoff.initialMs, downSince: null, lastError: null, nextRetryAt: null };
      this.queues.set(agentId, q);
    }
    return q;
  }

  /** Queues a stored delivery (behind every earlier pending one of its agent). */
  enqueue(d: StoredDelivery): void {
    if (this.stopped || !d.forward) return;
    const q = this.queue(d.agentId);
    if (q.ids.includes(d.id)) return;
    q.ids.push(d.id);
    this.emitStatus(d.agentId);
    this.pump(d.agentId);
  }

  /** Queues every pending delivery of the log (at start). */
  resume(): void {
    for (const d of this.o.log.pending()) this.enqueue(d);
  }

  /** Retries now instead of waiting out the backoff (e.g. "my app is back"). */
  retryNow(agentId?: string): void {
    for (const [id, q] of this.queues) {
      if (agentId !== undefined && id !== agentId) continue;
      if (q.timer !== null) {
        this.o.clock.clearTimeout(q.timer);
        q.timer = null;
        q.nextRetryAt = null;
      }
      q.backoffMs = this.backoff.initialMs;
      this.pump(id);
    }
  }

  status(): AgentForwardStatus[] {
    return [...this.queues.keys()].sort().map((id) => this.statusOf(id));
  }

  statusOf(agentId: string): AgentForwardStatus {
    const q = this.queues.get(agentId);
    return {
      agentId,
      localAppDownSince: q?.downSince ?? null,
      pending: q?.ids.length ?? 0,
      lastError: q?.lastError ?? null,
      nextRetryAt: q?.nextRetryAt ?? null,
    };
  }

  /** Resolves when no queue has work it can do right now (queues waiting on a retry count as idle). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.recording.size > 0) await Promise.all([...this.running, ...this.recording]);
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.stop.abort(new Error('stopped'));
    for (const q of this.queues.values()) if (q.timer !== null) this.o.clock.clearTimeout(q.timer);
    await this.idle();
  }

  private emitStatus(agentId: string): void {
    this.o.onStatus?.(this.statusOf(agentId));
  }

  private pump(agentId: string): void {
    const q = this.queue(agentId);
    if (this.stopped || q.busy || q.timer !== null || q.ids.length === 0) return;
    q.busy = true;
    const run = this.drain(agentId, q)
      .catch((err) => this.logger.error('tunnel forwarder failed', { agentId, error: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        q.busy = false;
        this.running.delete(run);
      });
    this.running.add(run);
  }

  private async drain(agentId: string, q: AgentQueue): Promise<void> {
    while (!this.stopped && q.ids.length > 0) {
      const id = q.ids[0]!;
      const d = this.o.log.get(id);
      if (!d || d.forwardState !== 'pending') {
        q.ids.shift();
        continue;
      }
      const attempt = await this.attempt(d);
      if (this.stopped) return;
      // Not awaited: the next delivery need not wait for this record's fdatasync. Appends reach the
      // file in order, so after a crash a lost record can only be a later one (its delivery is then
      // forwarded again: at least once, never skipped).
      // Listeners hear of the attempt once it is in the log (so get() already shows it).
      const recorded = this.o.log
        .appendAttempt(attempt)
        .catch((err) => {
          this.logger.error('tunnel forwarder: could not record an attempt', { error: err instanceof Error ? err.message : String(err) });
        })
        .then(() => this.o.onAttempt?.(attempt, d));
      this.recording.add(recorded);
      void recorded.finally(() => this.recording.delete(recorded));
      if (isFinalStatus(attempt.status)) {
        q.ids.shift();
        q.downSince = null;
        q.lastError = attempt.error;
        q.backoffMs = this.backoff.initialMs;
        this.emitStatus(agentId);
        continue;
      }
      const now = this.o.clock.now();
      q.downSince ??= now;
      q.lastError = attempt.error;
      const wait = q.backoffMs;
      q.backoffMs = Math.min(q.backoffMs * 2, this.backoff.maxMs);
      q.nextRetryAt = now + wait;
      q.timer = this.o.clock.setTimeout(() => {
        q.timer = null;
        q.nextRetryAt = null;
        this.pump(agentId);
      }, wait);
      this.emitStatus(agentId);
      return;
    }
  }

  private async attempt(d: StoredDelivery): Promise<ForwardAttempt> {
    const url = this.o.targetOf(d.agentId);
    const at = this.o.clock.now();
    const base = { kind: 'attempt' as const, id: this.o.newId(), deliveryId: d.id, at, url: url ?? '' };
    if (url === undefined) {
      return { ...base, status: null, error: 'no local app URL is configured for this agent', latencyMs: 0, responseBody: null };
    }
    const { headers, resigned } = await this.o.headersFor(d);
    const body = Buffer.from(d.bodyBase64, 'base64');
    const out = await postOnce(this.o.transport, this.o.clock, { url, headers, body, timeoutMs: this.timeoutMs, signal: this.stop.signal });
    return { ...base, ...out, ...(resigned ? { resigned: true } : {}) };
  }
}
