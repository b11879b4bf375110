// Webhook deliveries: signed POSTs, one queue per agent (in order), retried with backoff.
// ASSUMPTION A-RETRY: non-2xx or no answer in time → 4 more tries (1, 2, 4, 8 s), same body bytes,
// fresh signature timestamp. ASSUMPTION A-V1-SIG: signed with signDelivery().
import { randomBytes } from 'node:crypto';
import { Agent as Dispatcher, request } from 'undici';
import { signDelivery } from '../core/signature';
import { sleep, type Clock } from '../core/ports';
import { MAX_LOG } from './model';

interface DeliveryAttempt {
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryRecord {
  id: string;
  agentId: string;
  url: string;
  messageId: string;
  attempts: DeliveryAttempt[];
  delivered: boolean;
  /** Extra: pending → delivered | failed (all tries used) | cancelled (emulator reset/closed). */
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  /** The event as an object. */
  body: unknown;
  /** Extra: the exact bytes sent (and signed), as text. */
  rawBody: string;
}

export interface DeliveryConfig {
  clock: Clock;
  timeoutMs: number;
  backoffMs: number[];
  /** The agent's current signing secret (null: webhook gone → stop). */
  secretOf(agentId: string): string | null;
  /** Seconds added to the clock for the v1 timestamp. */
  skewSeconds(): number;
}

export class Deliveries {
  private readonly records: DeliveryRecord[] = [];
  private readonly byId = new Map<string, DeliveryRecord>();
  private readonly tails = new Map<string, Promise<void>>();
  private stop = new AbortController();
  private dispatcher = new Dispatcher({ connect: { timeout: 5_000 }, keepAliveTimeout: 1_000 });
  private closed = false;
  attemptsTotal = 0;

  constructor(private readonly cfg: DeliveryConfig) {}

  list(): DeliveryRecord[] {
    return this.records.map((r) => ({ ...r, attempts: r.attempts.map((a) => ({ ...a })) }));
  }

  get(id: string): DeliveryRecord | undefined {
    return this.byId.get(id);
  }

  enqueue(agentId: string, url: string, messageId: string, event: unknown): DeliveryRecord {
    const rawBody = JSON.stringify(event);
    const record: DeliveryRecord = {
      id: `dlv_${randomBytes(8).toString('hex')}`,
      agentId,
      url,
      messageId,
      attempts: [],
      delivered: false,
      status: 'pending',
      body: event,
      rawBody,
    };
    this.records.push(record);
    this.byId.set(record.id, record);
    if (this.records.length > MAX_LOG)
      for (const old of this.records.splice(0, this.records.length - MAX_LOG)) this.byId.delete(old.id);
    const signal = this.stop.signal;
    const prev = this.tails.get(agentId) ?? Promise.resolve();
    const next = prev.then(() => this.run(record, signal)).catch(() => undefined);
    this.tails.set(agentId, next);
    void next.then(() => {
      if (this.tails.get(agentId) === next) this.tails.delete(agentId);
    });
    return record;
  }

  /** Resolves when every queued delivery has finished (for tests and demos). */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }

  /** Cancels everything in flight and queued; new deliveries may follow (reset). */
  cancelAll(): void {
    this.stop.abort(new Error('cancelled'));
    this.stop = new AbortController();
    for (const r of this.records) if (r.status === 'pending') r.status = 'cancelled';
    this.records.length = 0;
    this.byId.clear();
    this.tails.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort(new Error('closed'));
    for (const r of this.records) if (r.status === 'pending') r.status = 'cancelled';
    this.tails.clear();
    await this.dispatcher.destroy().catch(() => undefined);
  }

  private async run(record: DeliveryRecord, signal: AbortSignal): Promise<void> {
    const tries = 1 + this.cfg.backoffMs.length;
    const body = Buffer.from(record.rawBody, 'utf8');
    for (let i = 0; i < tries; i++) {
      if (signal.aborted || this.closed) return this.cancel(record);
      if (i > 0) {
        try {
          await sleep(this.cfg.clock, this.cfg.backoffMs[i - 1]!, signal);
        } catch {
          return this.cancel(record);
        }
      }
      const secret = this.cfg.secretOf(record.agentId);
      if (secret === null) {
        record.status = 'cancelled';
        return;
      }
      const ok = await this.attempt(record, body, secret, i + 1, signal);
      if (signal.aborted) return this.cancel(record);
      if (ok) {
        record.delivered = true;
        record.status = 'delivered';
        return;
      }
    }
    record.status = 'failed';
  }

  private cancel(record: DeliveryRecord): void {
    if (record.status === 'pending') record.status = 'cancelled';
  }

  private async attempt(
    record: DeliveryRecord,
    body: Buffer,
    secret: string,
    n: number,
    stop: AbortSignal,
  ): Promise<boolean> {
    const clock = this.cfg.clock;
    const started = clock.now();
    const unix = Math.floor(started / 1000) + this.cfg.skewSeconds();
    const ac = new AbortController();
    const onStop = () => ac.abort(new Error('cancelled'));
    stop.addEventListener('abort', onStop, { once: true });
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      ac.abort(new Error('timeout'));
    }, this.cfg.timeoutMs);
    const entry: DeliveryAttempt = { at: new Date(started).toISOString(), status: null, error: null, durationMs: 0 };
    record.attempts.push(entry);
    this.attemptsTotal++;
    try {
      const res = await request(record.url, {
        method: 'POST',
        body,
        signal: ac.signal,
        dispatcher: this.dispatcher,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'channel-companion-emulator/1',
          'x-delivery-id': record.id,
          'x-delivery-attempt': String(n),
          ...signDelivery(secret, body, unix),
        },
      });
      entry.status = res.statusCode;
      await res.body.dump().catch(() => undefined);
      if (res.statusCode < 200 || res.statusCode > 299) entry.error = `HTTP ${res.statusCode}`;
      return res.statusCode >= 200 && res.statusCode <= 299;
    } catch (err) {
      entry.error = timedOut ? `no answer within ${this.cfg.timeoutMs} ms` : describe(err);
      return false;
    } finally {
      clock.clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      entry.durationMs = clock.now() - started;
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
