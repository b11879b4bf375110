// receive → verify → store: an accepted delivery becomes a durable log record, and the receiver
// learns what to answer. Nothing is answered 2xx before the record is on disk; while storage fails
// the answer is 503 (the service retries). A delivery the verification refuses is kept as metadata
// only (refuse(): the refused store), never in the log, so it can neither evict a delivery nor fill
// the disk. A repeat of an accepted delivery is acknowledged (so the service stops retrying) and kept
// with the `duplicate` verdict, up to MAX_KEPT_REPEATS per delivery (counted as the repeats arrive,
// however many arrive at once); further repeats (a replay flood inside the signature's validity) are
// acknowledged without being kept. A repeat that arrives while the delivery it repeats is still being
// stored waits for it: when that fails (answered 503), the repeat is answered 503 too, never
// acknowledged as a duplicate of a delivery that is not kept.
// Deliveries are verified with the secrets the cache holds (secret-cache.ts): none waits for a
// re-read; one they refuse makes the cache read them again in the background, at most once per
// agent every few seconds, so the service's retry finds a secret stored meanwhile elsewhere.
// A delivery that fails verification while a registration of its agent is in flight (the service
// may post with the new secret before the reply to its PUT reaches us) is held until the new secret
// is stored, then verified again with the secrets read once the registration ended (one read shared
// by the deliveries held together); if the registration does not end within holdMs, it is answered
// 503 with Retry-After so the service tries again. At most MAX_HELD deliveries and MAX_HELD_BYTES of
// their bodies are held at once: beyond that, 503 with Retry-After at once.
// Credential headers a delivery carries (Authorization, Cookie, …) are stored redacted (headers.ts).
// A delivery carrying the tunnel's replay header (a replay of a stored delivery that reached a
// receiver) is stored marked simulated, like one simulated here.
// Given a durable commit (commit: a team hub's database), an accepted delivery is committed there
// after verification and before the log's append and the answer: 'duplicate' (another receiver on
// the same store took the same key first) stores and answers it as a repeat; a commit that fails is
// answered 503 with Retry-After, nothing acknowledged. The log then only caches what the store holds:
// its append is answered once written, not waiting for an fdatasync. Without one the log is the
// durable store.
import { ChurnMap } from '../churn';
import type { Clock } from '../ports';
import type { EventLog } from './log';
import type { IdGenerator } from './ids';
import type { RegistrationsInFlight } from './in-flight';
import { headerOf, redactHeaders, REPLAY_HEADER } from './headers';
import { digestOf, type Answer, type RefusalInput } from './receiver';
import type { SecretCache } from './secret-cache';
import type { SeenIndex } from './seen';
import { verifyTunnelDelivery } from './verify';
import type { HeaderMap, RefusedReason, StoredDelivery, TunnelReason } from './types';

export type InvalidResponse = 'reject' | 'accept-all';

/**
 * Commits an accepted delivery (with its duplicate key) to a durable store shared with other receivers:
 * 'stored' when it is new there, 'duplicate' when that store holds the key already. Throws when the
 * store cannot be reached (the delivery is then answered 503, nothing acknowledged). `json` is the
 * delivery's JSON.stringify, the very record the log then writes for a stored one (built once for both).
 */
export type DeliveryCommit = (delivery: StoredDelivery, key: string, json: string) => Promise<'stored' | 'duplicate'>;

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
  /** The agents' signing secrets (read when needed first or changed; see secret-cache.ts). */
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
  /** A durable store an accepted delivery is committed to before it is acknowledged (see above); default none. */
  commit?: DeliveryCommit;
}

type Checked = ReturnType<typeof verifyTunnelDelivery> & {
  receivedAt: number;
  /** For a duplicate: the how-manieth repeat of its delivery it is (counted when it was checked). */
  repeat: number;
};

/** A verdict that refuses a delivery; its reason is the refused store's word as it is. */
type RefusingReason = Exclude<TunnelReason, 'verified' | 'verified-legacy-only' | 'duplicate'>;

/** How long a delivery is held while its agent's registration is in flight. */
const HOLD_MS = 5_000;

/** Seconds the service is asked to wait when a registration outlasted the hold (or the hold is full). */
const HOLD_RETRY_AFTER_SEC = 2;

/** Deliveries held at once while registrations are in flight, and the bytes of their bodies. */
const MAX_HELD = 64;
const MAX_HELD_BYTES = 8 * 1024 * 1024;

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

  /** Deliveries held now (see MAX_HELD), and the bytes of their bodies. */
  private held = 0;
  private heldBytes = 0;

  constructor(private readonly o: IngestOptions) {}

  async receive(input: IngestInput): Promise<IngestResult> {
    // The secrets held verify at once; only an agent's first delivery waits for them to be read.
    const kept = this.o.secrets.peek(input.agentId);
    let checked = kept !== undefined ? this.check(input, kept, null) : await this.verify(input);
    const inFlight = this.o.registrations;
    if (!checked.verdict.ok && SECRET_REASONS.has(checked.verdict.reason) && !input.simulated) {
      if (!inFlight?.inFlight(input.agentId)) {
        this.o.secrets.refused(input.agentId);
      } else {
        const holdMs = this.o.holdMs ?? HOLD_MS;
        const size = input.body.length;
        if (this.held >= MAX_HELD || this.heldBytes + size > MAX_HELD_BYTES) {
          return this.registering(
            input,
            checked,
            `a webhook registration of ${input.agentId} was under way and ${this.held} deliveries (${this.heldBytes} bytes) were held already, the most this receiver holds; answered 503 so the service retries`,
          );
        }
        this.held++;
        this.heldBytes += size;
        let settled: boolean;
        try {
          settled = await inFlight.settled(input.agentId, holdMs, this.o.clock);
        } finally {
          this.held--;
          this.heldBytes -= size;
        }
        if (!settled) {
          return this.registering(
            input,
            checked,
            `a webhook registration of ${input.agentId} was still under way after ${Math.round(holdMs / 1000)} s (its new signing secret not stored yet); answered 503 so the service retries`,
          );
        }
        checked = await this.verify(input, this.o.clock.now());
        checked.verdict.steps.unshift(
          `held while a webhook registration of ${input.agentId} was under way, then verified with the secrets stored by then`,
        );
      }
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
    if (duplicate && checked.repeat > MAX_KEPT_REPEATS) {
      return { delivery: null, status: 200, response: { ok: true, duplicate: true } };
    }
    const delivery: StoredDelivery = {
      kind: 'delivery',
      id: this.o.newId(),
      agentId: input.agentId,
      receivedAt,
      method: input.method,
      path: input.path,
      headers: redactHeaders(input.headers),
      bodyBase64: input.body.toString('base64'),
      verdict,
      summary,
      forward: verdict.ok && this.o.hasTarget(input.agentId),
    };
    // Made up here, or a replay of a stored delivery (a tunnel's replay sent it, its header says
    // so): never from the service, so never a conversation to reply to.
    if (input.simulated || headerOf(input.headers, REPLAY_HEADER) !== undefined) delivery.simulated = true;
    const appended =
      verdict.ok && this.o.commit !== undefined
        ? this.commitThenAppend(this.o.commit, delivery, key!)
        : this.o.log.appendDelivery(delivery, verdict.ok ? key : null);
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
    if (delivery.verdict.reason === 'duplicate')
      return { delivery, status: 200, response: { ok: true, duplicate: true, deliveryId: delivery.id } };
    return { delivery, status: 200, response: { ok: true, deliveryId: delivery.id } };
  }

  /**
   * Commits first; the log keeps the delivery as the commit found it (new, or a repeat of one another
   * receiver of the store took first, which is then neither forwarded nor kept under its key).
   */
  private async commitThenAppend(commit: DeliveryCommit, delivery: StoredDelivery, key: string): Promise<void> {
    const json = JSON.stringify(delivery);
    if ((await commit(delivery, key, json)) === 'stored') return this.o.log.appendDelivery(delivery, key, false, json);
    delivery.verdict = {
      ...delivery.verdict,
      ok: false,
      reason: 'duplicate',
      steps: [
        ...delivery.verdict.steps,
        delivery.summary.messageId !== null
          ? `message ${delivery.summary.messageId} was already received for this agent (the shared store holds it)`
          : 'this exact signed delivery was already received for this agent (the shared store holds it)',
      ],
    };
    delivery.forward = false;
    return this.o.log.appendDelivery(delivery, null, false);
  }

  private storageUnavailable(input: IngestInput, detail: string): IngestResult {
    const r = this.o.refuse(
      { ...this.meta(input), ...digestOf(input.body), reason: 'storage-unavailable', status: 503, detail },
      { ok: false, reason: 'storage-unavailable' },
    );
    return { ...r, headers: { ...(r.headers ?? {}), 'retry-after': '5' }, delivery: null };
  }

  private registering(input: IngestInput, checked: Checked, why: string): IngestResult {
    const r = this.o.refuse(
      {
        ...this.meta(input),
        ...digestOf(input.body),
        reason: 'registering',
        status: 503,
        detail: [...checked.verdict.steps, why].join('\n'),
      },
      { ok: false, reason: 'registration-in-flight' },
    );
    return { ...r, headers: { ...(r.headers ?? {}), 'retry-after': String(HOLD_RETRY_AFTER_SEC) }, delivery: null };
  }

  /**
   * Verifies with the agent's secrets as the cache has them (read now for its first delivery), or,
   * given `since`, as read by a read begun then or later (claiming the delivery's key when it passes).
   */
  private async verify(input: IngestInput, since?: number): Promise<Checked> {
    let secrets: string[] = [];
    let secretError: string | null = null;
    try {
      secrets = await (since === undefined
        ? this.o.secrets.get(input.agentId)
        : this.o.secrets.reload(input.agentId, since));
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
    const repeat = checked.verdict.reason === 'duplicate' ? this.o.seen.repeats(input.agentId, checked.key!) : 0;
    return { ...checked, receivedAt, repeat };
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
