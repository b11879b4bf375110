// receive → verify → store: one delivery becomes a durable log record, and the receiver learns what
// to answer. Nothing is answered 2xx before the record is on disk.
import type { Clock } from '../ports';
import type { EventLog } from './log';
import type { IdGenerator } from './ids';
import type { SeenIndex } from './seen';
import { verifyTunnelDelivery } from './verify';
import type { HeaderMap, StoredDelivery } from './types';

export type InvalidResponse = 'reject' | 'accept-all';

export interface IngestInput {
  agentId: string;
  method: string;
  path: string;
  headers: HeaderMap;
  body: Buffer;
  simulated?: boolean;
}

export interface IngestResult {
  delivery: StoredDelivery | null;
  status: number;
  response: Record<string, unknown>;
}

export interface IngestOptions {
  log: EventLog;
  seen: SeenIndex;
  clock: Clock;
  newId: IdGenerator;
  getSecrets(agentId: string): Promise<string[]>;
  toleranceSec?: number;
  /** 'reject' (default): 401 with a JSON reason; 'accept-all': 200 for debugging. */
  invalidResponse?: InvalidResponse;
  /** Forward deliveries whose verdict is not ok too (default false). */
  forwardInvalid?: boolean;
  hasTarget(agentId: string): boolean;
}

export class Ingest {
  constructor(private readonly o: IngestOptions) {}

  async receive(input: IngestInput): Promise<IngestResult> {
    let secrets: string[] = [];
    let secretError: string | null = null;
    try {
      secrets = (await this.o.getSecrets(input.agentId)).filter((s) => typeof s === 'string' && s.length > 0);
    } catch (err) {
      // The message of a secret-store failure names the store, never the secret.
      secretError = err instanceof Error ? err.name : 'error';
    }
    const receivedAt = this.o.clock.now();
    const { verdict, summary } = verifyTunnelDelivery({
      headers: input.headers,
      rawBody: input.body,
      secrets,
      now: Math.floor(receivedAt / 1000),
      toleranceSec: this.o.toleranceSec,
      // Check and claim in one look-up: only a verified JSON delivery gets here, and it is ok unless
      // its message.id was already claimed.
      isDuplicate: (mid) => !this.o.seen.claim(input.agentId, mid),
    });
    if (secretError !== null) verdict.steps.unshift(`the signing secrets could not be read (${secretError})`);
    const claimed = verdict.ok && summary.messageId !== null;
    const delivery: StoredDelivery = {
      kind: 'delivery',
      id: this.o.newId(),
      agentId: input.agentId,
      receivedAt,
      method: input.method,
      path: input.path,
      headers: input.headers,
      bodyBase64: input.body.toString('base64'),
      verdict,
      summary,
      forward: (verdict.ok || (this.o.forwardInvalid === true && verdict.reason !== 'duplicate')) && this.o.hasTarget(input.agentId),
      ...(input.simulated ? { simulated: true } : {}),
    };
    try {
      await this.o.log.appendDelivery(delivery);
    } catch {
      if (claimed) this.o.seen.release(input.agentId, summary.messageId!);
      return { delivery: null, status: 503, response: { ok: false, reason: 'storage-failed' } };
    }
    if (verdict.ok) return { delivery, status: 200, response: { ok: true, deliveryId: delivery.id } };
    // A repeat of a message already stored is acknowledged, so the service stops retrying it.
    if (verdict.reason === 'duplicate') return { delivery, status: 200, response: { ok: true, duplicate: true, deliveryId: delivery.id } };
    const status = this.o.invalidResponse === 'accept-all' ? 200 : 401;
    return { delivery, status, response: { ok: false, reason: verdict.reason, deliveryId: delivery.id } };
  }
}
