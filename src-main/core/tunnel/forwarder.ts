// Forwards stored deliveries to the developer's local app, in order per agent: a later delivery
// never overtakes an earlier pending one (save the one pipelining edge spelled out below). When the app is down (no answer, 5xx, 408/429, time-out)
// the head of the queue is retried with backoff on the injected clock. The queue is derived from the
// log (pending = forwarded but without a final answer), so it survives restarts.
//
// Ordered pipelining: while the app answers well, up to `pipelining` deliveries of one agent are in
// flight at once, written in order on that agent's single keep-alive connection (a "lane", see
// transport.ts), and their answers are taken in order. After any failure the agent goes back to one
// delivery at a time, and pipelines again only once its deliveries have succeeded for
// HEALTHY_AFTER_MS on end (a flapping app is served strictly one at a time). The one edge this
// leaves, exactly (it needs an app that was healthy for a while to fail while a window is in flight):
//   delivery k fails (5xx / 408 / 429 / time-out / connection lost) while k+1.. were already
//   written behind it. Those were sent before k's answer was known, so the app may have received
//   them before k's retry. Nothing more is sent once k's failure is seen; the answers of the ones
//   already in flight are recorded as they are: a 2xx means that delivery IS delivered (it is not
//   sent again, and its attempt carries `aheadOf: <k's id>` so the inspector can show it went ahead
//   of k); no answer (the connection went with k) leaves it pending, retried after k, in order.
// With `pipelining: 1` (or a transport that cannot pipeline) there is no such edge.
import { backoffDelay, type BackoffPolicy } from '../backoff';
import { ChurnMap, ChurnSet } from '../churn';
import { silentLogger, type Clock, type Logger } from '../ports';
import { redactCredentials } from '../url';
import type { IdGenerator } from './ids';
import { originalHeaders } from './headers';
import { isFinalStatus, type EventLog } from './log';
import { postOnce, Stopper, type Transport } from './transport';
import type { ForwardAttempt, StoredDelivery } from './types';

/** Waits before retrying a delivery the local app did not take: 0.5 s doubling to 30 s, exact. */
const FORWARD_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000, jitter: 0 };
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
/** After a failure, pipelining resumes once deliveries have succeeded this long without one. */
const HEALTHY_AFTER_MS = 5_000;
/**
 * Raw bodies of queued deliveries kept in memory (so a forward need not decode the stored base64),
 * up to this many bytes in all; beyond it a forward decodes the delivery's base64, as after a restart.
 */
const RETAINED_BODY_BYTES = 32 * 1024 * 1024;

export interface AgentForwardStatus {
  agentId: string;
  /** ms since epoch when the local app stopped answering; null while it answers. */
  localAppDownSince: number | null;
  pending: number;
  lastError: string | null;
  /** ms since epoch of the next retry, when one is scheduled. */
  nextRetryAt: number | null;
}

export interface ForwardHeaders {
  headers: Record<string, string>;
  resigned: boolean;
}

export interface ForwarderOptions {
  log: EventLog;
  clock: Clock;
  transport: Transport;
  newId: IdGenerator;
  /** The local app's URL for an agent; undefined: none configured. */
  targetOf(agentId: string): string | undefined;
  /** The headers for one forward (may re-sign a stale delivery: then it may need to wait for the secret). */
  headersFor(o: Outgoing, body: Buffer): ForwardHeaders | Promise<ForwardHeaders>;
  timeoutMs?: number;
  backoff?: BackoffPolicy;
  /**
   * Deliveries of one agent in flight at once while the app is healthy (default: what the transport
   * can pipeline, else 1). 1: strictly one at a time.
   */
  pipelining?: number;
  logger?: Logger;
  onAttempt?(attempt: ForwardAttempt): void;
  onStatus?(status: AgentForwardStatus): void;
  /** False while nobody listens for status (saves building it per delivery); default true. */
  statusWanted?(): boolean;
}

/**
 * What the forwarder keeps of a queued delivery: what its forward needs, no more (the record itself
 * is in the log; a queue that waits for a down app holds this per delivery).
 */
export interface Outgoing {
  id: string;
  agentId: string;
  /** content-type and both signature headers as received (headersFor may add its markers to it). */
  headers: Record<string, string>;
  /** The v1 timestamp it was signed with (a stale one may be re-signed), when it has one. */
  signedAt: number | undefined;
  /** The raw body when kept in memory (see RETAINED_BODY_BYTES), else read back from the log. */
  body: Buffer | undefined;
}

interface AgentQueue {
  /** Pending deliveries in order; the ones in flight are at the front. */
  items: Outgoing[];
  /** Their ids. */
  queued: ChurnMap<string, true>;
  busy: boolean;
  timer: unknown;
  /** Failed attempts at the head since the last final answer (or retryNow). */
  failures: number;
  downSince: number | null;
  lastError: string | null;
  nextRetryAt: number | null;
  /** One at a time after a failure, until deliveries have succeeded for HEALTHY_AFTER_MS. */
  serial: boolean;
  /** Sent and not yet answered, in order (the first of `items`). */
  inflight: InFlight[];
  /** The running fill(), if any. */
  filling: Promise<void> | null;
  /** The head failed: nothing more is sent until its retry. */
  halted: boolean;
  /** A fill is scheduled (see enqueue). */
  fillSoon: boolean;
  lastFailureAt: number | null;
}

interface InFlight {
  o: Outgoing;
  result: Promise<ForwardAttempt>;
}

export class Forwarder {
  private readonly queues = new Map<string, AgentQueue>();
  private readonly running = new ChurnSet<Promise<void>>();
  private readonly stop = new Stopper();
  private readonly backoff: BackoffPolicy;
  private readonly timeoutMs: number;
  private readonly depth: number;
  private readonly logger: Logger;
  private stopped = false;
  /** Bytes of the raw bodies kept with queued deliveries (see RETAINED_BODY_BYTES). */
  private retained = 0;
  private lastUrl = '';
  private lastShown = '';

  constructor(private readonly o: ForwarderOptions) {
    this.backoff = o.backoff ?? FORWARD_BACKOFF;
    this.timeoutMs = o.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
    this.logger = o.logger ?? silentLogger;
    this.depth = Math.max(
      1,
      Math.min(Math.floor(o.pipelining ?? o.transport.pipelining ?? 1), o.transport.pipelining ?? 1),
    );
  }

  private queue(agentId: string): AgentQueue {
    let q = this.queues.get(agentId);
    if (!q) {
      q = {
        items: [],
        queued: new ChurnMap(),
        busy: false,
        timer: null,
        failures: 0,
        downSince: null,
        lastError: null,
        nextRetryAt: null,
        serial: false,
        lastFailureAt: null,
        inflight: [],
        filling: null,
        halted: false,
        fillSoon: false,
      };
      this.queues.set(agentId, q);
    }
    return q;
  }

  /**
   * Queues a stored delivery (behind every earlier pending one of its agent). `body`: its raw bytes
   * when at hand (exactly what `bodyBase64` holds), so the forward need not read the record back.
   */
  enqueue(d: StoredDelivery, body?: Buffer): void {
    if (this.stopped || !d.forward) return;
    const q = this.queue(d.agentId);
    if (q.queued.has(d.id)) return;
    const keep = body !== undefined && this.retained + body.length <= RETAINED_BODY_BYTES;
    if (keep) this.retained += body.length;
    const signedAt = d.verdict.ok ? d.verdict.timestamp : undefined;
    q.items.push({
      id: d.id,
      agentId: d.agentId,
      headers: originalHeaders(d.headers),
      signedAt,
      body: keep ? body : undefined,
    });
    q.queued.set(d.id, true);
    this.emitStatus(d.agentId);
    // A drain already running waits on its head: widen its window once the current callback and
    // its promise chains are done (deliveries answered together then go out together, in the same
    // turn of the event loop).
    if (q.busy) {
      if (q.timer === null && !q.fillSoon) {
        q.fillSoon = true;
        process.nextTick(() => {
          q.fillSoon = false;
          if (q.busy && q.timer === null) void this.fill(q);
        });
      }
    } else this.pump(d.agentId);
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
      q.failures = 0;
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
      pending: q?.items.length ?? 0,
      lastError: q?.lastError ?? null,
      nextRetryAt: q?.nextRetryAt ?? null,
    };
  }

  /** Resolves when no queue has work it can do right now (queues waiting on a retry count as idle). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.stop.stop(new Error('stopped'));
    for (const q of this.queues.values()) if (q.timer !== null) this.o.clock.clearTimeout(q.timer);
    await this.idle();
    for (const q of this.queues.values()) q.items = [];
    this.retained = 0;
  }

  /** Takes the item at `i` out of the queue. */
  private remove(q: AgentQueue, i: number): void {
    const [o] = i === 0 ? [q.items.shift()!] : q.items.splice(i, 1);
    q.queued.delete(o!.id);
    if (o!.body !== undefined) this.retained -= o!.body.length;
  }

  private emitStatus(agentId: string): void {
    if (this.o.onStatus && (this.o.statusWanted?.() ?? true)) this.o.onStatus(this.statusOf(agentId));
  }

  private pump(agentId: string): void {
    const q = this.queue(agentId);
    if (this.stopped || q.busy || q.timer !== null || q.items.length === 0) return;
    q.busy = true;
    const run = this.drain(agentId, q)
      .catch((err) =>
        this.logger.error('tunnel forwarder failed', {
          agentId,
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        q.busy = false;
        this.running.delete(run);
      });
    this.running.add(run);
  }

  private dequeue(q: AgentQueue, id: string): void {
    const i = q.items[0]?.id === id ? 0 : q.items.findIndex((x) => x.id === id);
    if (i >= 0) this.remove(q, i);
  }

  /**
   * Opens requests up to the window: q.items[0 .. inflight.length-1] are in flight, in order. Called
   * by the drain loop and on every enqueue (so a window fills while its head is still out). Never two
   * at once: a second call returns the running one, which sees the new ids too.
   */
  private fill(q: AgentQueue): Promise<void> {
    if (q.filling) return q.filling;
    if (this.stopped || q.halted) return Promise.resolve();
    const run = (async () => {
      while (!this.stopped && !q.halted) {
        const depth = q.serial ? 1 : this.depth;
        if (q.inflight.length >= depth || q.inflight.length >= q.items.length) break;
        const o = q.items[q.inflight.length]!;
        // Delivered or refused meanwhile (a replay does not count), or no longer in the log.
        if (this.o.log.forwardState(o.id) !== 'pending') {
          this.remove(q, q.inflight.length);
          continue;
        }
        // Prepared one after the other, so the requests reach the lane in queue order.
        const prepared = this.prepare(o);
        const send = typeof prepared === 'function' ? prepared : await prepared;
        if (this.stopped) break;
        q.inflight.push({ o, result: send() });
      }
    })().finally(() => {
      q.filling = null;
      // Ids that came while this run was finishing.
      if (
        q.busy &&
        !q.halted &&
        q.timer === null &&
        q.inflight.length < Math.min(q.items.length, q.serial ? 1 : this.depth)
      )
        void this.fill(q);
    });
    q.filling = run;
    return run;
  }

  private async drain(agentId: string, q: AgentQueue): Promise<void> {
    try {
      while (!this.stopped) {
        await this.fill(q);
        const head = q.inflight[0];
        if (!head) return;
        const attempt = await head.result;
        if (this.stopped) return;
        q.inflight.shift();
        this.record(attempt);
        if (isFinalStatus(attempt.status)) {
          this.dequeue(q, head.o.id);
          q.downSince = null;
          q.lastError = attempt.error;
          q.failures = 0;
          if (
            q.serial &&
            attempt.status !== null &&
            attempt.status < 300 &&
            this.o.clock.now() - (q.lastFailureAt ?? 0) >= HEALTHY_AFTER_MS
          ) {
            q.serial = false;
          }
          this.emitStatus(agentId);
          continue;
        }
        // The head failed: send nothing more; take the answers of those already sent, in order.
        q.halted = true;
        q.serial = true;
        await q.filling;
        for (const next of q.inflight.splice(0)) {
          const a = await next.result;
          if (this.stopped) return;
          const ok = a.status !== null && a.status >= 200 && a.status <= 299;
          this.record(ok ? { ...a, aheadOf: head.o.id } : a);
          if (isFinalStatus(a.status)) this.dequeue(q, next.o.id);
        }
        q.halted = false;
        const now = this.o.clock.now();
        q.lastFailureAt = now;
        q.downSince ??= now;
        q.lastError = attempt.error;
        const wait = backoffDelay(this.backoff, ++q.failures);
        q.nextRetryAt = now + wait;
        q.timer = this.o.clock.setTimeout(() => {
          q.timer = null;
          q.nextRetryAt = null;
          this.pump(agentId);
        }, wait);
        this.emitStatus(agentId);
        return;
      }
    } finally {
      // Only on stop can requests still be in flight here; they are aborted, let them settle.
      await q.filling;
      const rest = q.inflight.splice(0);
      if (rest.length > 0) await Promise.all(rest.map((f) => f.result));
    }
  }

  /**
   * Takes the attempt into the log at once (not forced to disk on its own: the next durable append or
   * the periodic sync carries it). A record lost in a crash only means the delivery is forwarded
   * again — at least once, never skipped. Listeners hear of it once it is in the log.
   */
  private record(attempt: ForwardAttempt): void {
    try {
      this.o.log.takeAttempt(attempt);
    } catch (err) {
      this.logger.error('tunnel forwarder: could not record an attempt', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    try {
      this.o.onAttempt?.(attempt);
    } catch (err) {
      this.logger.error('tunnel forwarder: an attempt listener failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** A forward URL as records show it (without user and password), worked out once per URL. */
  private shown(url: string): string {
    if (url !== this.lastUrl) {
      this.lastUrl = url;
      this.lastShown = redactCredentials(url);
    }
    return this.lastShown;
  }

  /** Everything before the POST (headers may need the secret store); the POST starts when called. */
  private prepare(o: Outgoing): Send | Promise<Send> {
    const url = this.o.targetOf(o.agentId);
    const at = this.o.clock.now();
    // The record shows the URL without its user and password; the POST itself still carries them.
    const base = {
      kind: 'attempt' as const,
      id: this.o.newId(),
      deliveryId: o.id,
      at,
      url: url === undefined ? '' : this.shown(url),
    };
    if (url === undefined) {
      const none: ForwardAttempt = {
        ...base,
        status: null,
        error: 'no local app URL is configured for this agent',
        durationMs: 0,
        responseBody: null,
      };
      return () => Promise.resolve(none);
    }
    const body = o.body ?? this.o.log.body(o.id) ?? Buffer.alloc(0);
    const h = this.o.headersFor(o, body);
    return h instanceof Promise
      ? h.then((x) => this.sender(o.agentId, body, base, url, x))
      : this.sender(o.agentId, body, base, url, h);
  }

  private sender(lane: string, body: Buffer, base: AttemptBase, url: string, h: ForwardHeaders): Send {
    return async () => {
      const out = await postOnce(this.o.transport, this.o.clock, {
        url,
        headers: h.headers,
        body,
        timeoutMs: this.timeoutMs,
        stopper: this.stop,
        lane,
      });
      const attempt: ForwardAttempt = {
        kind: 'attempt',
        id: base.id,
        deliveryId: base.deliveryId,
        at: base.at,
        url: base.url,
        status: out.status,
        error: out.error,
        durationMs: out.durationMs,
        responseBody: out.responseBody,
      };
      if (h.resigned) attempt.resigned = true;
      return attempt;
    };
  }
}

type Send = () => Promise<ForwardAttempt>;
type AttemptBase = Pick<ForwardAttempt, 'kind' | 'id' | 'deliveryId' | 'at' | 'url'>;
