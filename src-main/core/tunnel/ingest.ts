// receive → verify → store: an accepted delivery becomes a durable log record, and the receiver
// learns what to answer. Nothing is answered 2xx before the record is on disk; while storage fails
// the answer is 503 (the service retries). A delivery the verification refuses is kept as metadata
// only (refuse(): the refused store), never in the log, so it can neither evict a delivery nor fill
// the disk. A repeat of an accepted delivery is acknowledged (so the service stops retrying) and kept
// with the `duplicate` verdict, up to MAX_KEPT_REPEATS per delivery; further repeats (a replay flood
// inside the signature's validity) are acknowledged without being kept. A repeat that arrives while
// the delivery it repeats is still being stored waits for it: when that fails (answered 503), the
// repeat is answered 503 too, never acknowledged as a duplicate of a delivery that is not kept.
// A delivery that fails verification while a registration of its agent is in flight (the service
// may post with the new secret before the reply to its PUT reaches us) is held until the new secret
// is stored, then verified again; if the registration does not end within holdMs, it is answered
// 503 with Retry-After so the service tries again.
import { ChurnMap } from '../churn';
import type { Clock } from '../ports';
import type { EventLog } from './log';
import type { IdGenerator } from './ids';
import type { RegistrationsInFlight } from './in-flight';
import { digestOf, type Answer, type RefusalInput } from './receiver';
import type { SecretCache } from './secret-cache';
import type { SeenIndex } from './seen';
import { verifyTunnelDelivery } from './verify';
import type { HeaderMap, RefusedReason, StoredDelivery, TunnelReason } from './types';

export type InvalidResponse = 'reject' | 'accept-all';

/** Repeats of one delivery kept in the log (the service retries 4 times at most, A-RETRY). */
const MAX_KEPT_REPEATS = 4;

export interface IngestInput {
  agentId: string;
  method: string;
  path: string;
  headers: HeaderMap;
  body: Buffer;
  from: string;
  /** The local peer that relayed it, when `from` was read from X-Forwarded-For. */
  via?: string;
  simulated?: boolean;
}

export interface IngestResult extends Answer {
  /** The stored delivery, or null (refused, not kept, or storage failed). */
  delivery: StoredDelivery | null;
}

export interface IngestOptions {
  log: EventLog;
  seen: SeenIndex;
  clock: Clock;
  newId: IdGenerator;
  /** The agents' signing secrets (read from their keeper at most once a second; see secret-cache.ts). */
  secrets: SecretCache;
  toleranceSec?: number;
  /** Accept deliveries signed only with the legacy header (default false). */
  allowLegacy(): boolean;
  /** 'reject' (default): 401 with a JSON reason; 'accept-all': 200 for debugging. */
  invalidResponse?: InvalidResponse;
  hasTarget(agentId: string): boolean;
  refuse(r: RefusalInput, response: Record<string, unknown>): Answer;
  /** Registrations under way: a delivery of such an agent that fails verification is held (see above). */
  registrations?: RegistrationsInFlight;
  /** How long such a delivery is held at most (default HOLD_MS). */
  holdMs?: number;
}

type Checked = ReturnType<typeof verifyTunnelDelivery> & { receivedAt: number };

/** A verdict that refuses a delivery; its reason is the refused store's word as it is. */
type RefusingReason = Exclude<TunnelReason, 'verified' | 'verified-legacy-only' | 'duplicate'>;

/** How long a delivery is held while its agent's registration is in flight. */
const HOLD_MS = 5_000;

/** Seconds the service is asked to wait when a registration outlasted the hold. */
const HOLD_RETRY_AFTER_SEC = 2;

/** Verdicts a new signing secret can turn into a pass. */
const SECRET_REASONS: ReadonlySet<TunnelReason> = new Set<TunnelReason>(['signature-mismatch', 'no-secret']);

export class Ingest {
  /** The appends of accepted deliveries still in flight, by agent, then key. */
  private readonly storing = new Map<string, ChurnMap<string, Promise<void>>>();
  /** The agent and time the next claim is made for (set just before the synchronous verification). */
  private claimAgent = '';
  private claimAt = 0;
  /** Claims a key for claimAgent at claimAt: made once, not a closure per delivery. */
  private readonly claim = (key: string): boolean => this.o.seen.claim(this.claimAgent, key, this.claimAt);

  constructor(private readonly o: IngestOptions) {}

  async receive(input: IngestInput): Promise<IngestResult> {
    // Secrets read a moment ago (or by a read under way) verify at once; a delivery they refuse is
    // verified again with the secrets read afresh for it (one stored meanwhile counts).
    const kept = this.o.secrets.peek(input.agentId);
    const earlier = kept !== undefined || this.o.secrets.reading(input.agentId);
    let checked = kept !== undefined ? this.check(input, kept, null) : await this.verify(input, false);
    if (earlier && !checked.verdict.ok && SECRET_REASONS.has(checked.verdict.reason))
      checked = await this.verify(input, true);
    const inFlight = this.o.registrations;
    if (
      !checked.verdict.ok &&
      SECRET_REASONS.has(checked.verdict.reason) &&
      inFlight?.inFlight(input.agentId) &&
      !input.simulated
    ) {
      const holdMs = this.o.holdMs ?? HOLD_MS;
      if (!(await inFlight.settled(input.agentId, holdMs, this.o.clock))) {
        const detail = [
          ...checked.verdict.steps,
          `a webhook registration of ${input.agentId} was still under way after ${Math.round(holdMs / 1000)} s (its new signing secret not stored yet); answered 503 so the service retries`,
        ].join('\n');
        const r = this.o.refuse(
          { ...this.meta(input), ...digestOf(input.body), reason: 'registering', status: 503, detail },
          { ok: false, reason: 'registration-in-flight' },
        );
        return { ...r, headers: { ...(r.headers ?? {}), 'retry-after': String(HOLD_RETRY_AFTER_SEC) }, delivery: null };
      }
      checked = await this.verify(input, true);
      checked.verdict.steps.unshift(
        `held while a webhook registration of ${input.agentId} was under way, then verified with the secrets stored by then`,
      );
    }
    const { verdict, summary, key, receivedAt } = checked;
    const duplicate = verdict.reason === 'duplicate';
    if (!verdict.ok && !duplicate) {
      const status = this.o.invalidResponse === 'accept-all' ? 200 : 401;
      const reason: RefusedReason = verdict.reason as RefusingReason;
      const r = this.o.refuse(
        { ...this.meta(input), ...digestOf(input.body), reason, status, detail: verdict.steps.join('\n') },
        { ok: false, reason: verdict.reason },
      );
      return { ...r, delivery: null };
    }
    if (duplicate) {
      const original = this.storing.get(input.agentId)?.get(key!);
      if (
        original &&
        !(await original.then(
          () => true,
          () => false,
        ))
      ) {
        return this.storageUnavailable(
          input,
          'a delivery with the same key was being stored when this repeat arrived, and storing it failed; answered 503 so the service retries',
        );
      }
    }
    if (duplicate && this.o.seen.repeats(input.agentId, key!) > MAX_KEPT_REPEATS) {
      return { delivery: null, status: 200, response: { ok: true, duplicate: true } };
    }
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
      forward: verdict.ok && this.o.hasTarget(input.agentId),
    };
    if (input.simulated) delivery.simulated = true;
    const appended = this.o.log.appendDelivery(delivery, verdict.ok ? key : null);
    let storing: ChurnMap<string, Promise<void>> | undefined;
    if (verdict.ok) {
      storing = this.storing.get(input.agentId);
      if (storing === undefined) this.storing.set(input.agentId, (storing = new ChurnMap()));
      storing.set(key!, appended);
    }
    try {
      await appended;
    } catch (err) {
      if (verdict.ok) this.o.seen.release(input.agentId, key!);
      return this.storageUnavailable(
        input,
        `the delivery verified but could not be stored (${err instanceof Error ? err.message : String(err)}); answered 503 so the service retries`,
      );
    } finally {
      if (storing !== undefined && storing.get(key!) === appended) storing.delete(key!);
    }
    // A repeat of a delivery already stored is acknowledged, so the service stops retrying it.
    if (duplicate) return { delivery, status: 200, response: { ok: true, duplicate: true, deliveryId: delivery.id } };
    return { delivery, status: 200, response: { ok: true, deliveryId: delivery.id } };
  }

  private storageUnavailable(input: IngestInput, detail: string): IngestResult {
    const r = this.o.refuse(
      { ...this.meta(input), ...digestOf(input.body), reason: 'storage-unavailable', status: 503, detail },
      { ok: false, reason: 'storage-unavailable' },
    );
    return { ...r, headers: { ...(r.headers ?? {}), 'retry-after': '5' }, delivery: null };
  }

  /**
   * Verifies with the agent's secrets, read for it now when `fresh`, else as the cache has them
   * (claiming the delivery's key when it passes).
   */
  private async verify(input: IngestInput, fresh: boolean): Promise<Checked> {
    let secrets: string[] = [];
    let secretError: string | null = null;
    try {
      secrets = await this.o.secrets.get(input.agentId, fresh);
    } catch (err) {
      // The message of a secret-store failure names the store, never the secret.
      secretError = err instanceof Error ? err.name : 'error';
    }
    return this.check(input, secrets, secretError);
  }

  /** Verifies with these secrets (claiming the delivery's key when it passes). */
  private check(input: IngestInput, secrets: string[], secretError: string | null): Checked {
    const receivedAt = this.o.clock.now();
    this.claimAgent = input.agentId;
    this.claimAt = receivedAt;
    const checked = verifyTunnelDelivery({
      headers: input.headers,
      rawBody: input.body,
      secrets,
      now: Math.floor(receivedAt / 1000),
      toleranceSec: this.o.toleranceSec,
      allowLegacy: this.o.allowLegacy(),
      // Check and claim in one look-up: only an accepted delivery gets here.
      claim: this.claim,
    });
    if (secretError !== null) checked.verdict.steps.unshift(`the signing secrets could not be read (${secretError})`);
    return { ...checked, receivedAt };
  }

  private meta(input: IngestInput): Omit<RefusalInput, 'reason' | 'status' | 'detail' | 'size' | 'sha256' | 'prefix'> {
    return {
      method: input.method,
      path: input.path,
      agentId: input.agentId,
      from: input.from,
      ...(input.via !== undefined ? { via: input.via } : {}),
      headers: input.headers,
    };
  }
}
