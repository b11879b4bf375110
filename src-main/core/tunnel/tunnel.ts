// The tunnel: receiver → verify → durable log → forwarder, plus replay, simulate and export.
// Refused requests go to their own bounded store (refused.ts), with a per-source budget
// (ratelimit.ts). One writer per data dir (lock.ts): a tunnel opened `readOnly` (or one whose data
// dir is locked by another writer, see TunnelError 'locked') only reads.
// Events for the live inspector: 'delivery' (stored, with verdict), 'forward' (each attempt,
// replays included), 'status' (per-agent forwarding status), 'refused' (a refused request).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { isLoopbackHost } from '../url';
import type { Dispatcher } from 'undici';
import { Emitter, type Unsubscribe } from '../events';
import { DEFAULT_TOLERANCE_SEC, signDelivery } from '../signature';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { toCurl, toFixture, type CurlOptions, type DeliveryFixture } from './export';
import type { BackoffPolicy } from '../backoff';
import {
  DEFAULT_FORWARD_TIMEOUT_MS,
  Forwarder,
  type AgentForwardStatus,
  type ForwardHeaders,
  type Outgoing,
} from './forwarder';
import { DEFAULT_TUNNEL_NAME, DELIVERY_HEADER, redactHeaders, RESIGNED_HEADER, TUNNEL_HEADER } from './headers';
import { createIdGenerator, type IdGenerator } from './ids';
import { REGISTERING_DIR, RegistrationsInFlight } from './in-flight';
import { Ingest, type DeliveryCommit, type InvalidResponse } from './ingest';
import { acquireWriterLock, LockedError, type WriterLock } from './lock';
import { privateFiles } from './private-files';
import { EventLog, type DeliveryQuery, type LogBounds, type LogIO } from './log';
import { RefusalLimiter, type RefusalRate } from './ratelimit';
import { createReceiver, type Answer, type Receiver, type RefusalInput } from './receiver';
import { cappedHeaders, RefusedStore, type RefusedQuery } from './refused';
import { replayDelivery, type ReplayOptions } from './replay';
import { SecretCache } from './secret-cache';
import { DEFAULT_DUPLICATE_WINDOW_MS, minDuplicateWindowMs, SeenFile, SeenIndex } from './seen';
import { composeInboundEvent, signedRequest, type SimulateInput } from './simulate';
import { createUndiciTransport, type Transport } from './transport';
import type { DeliveryDetail, DeliveryListItem, ForwardAttempt, RefusedRequest, StoredDelivery } from './types';
import { CompanionError } from '../errors';

export interface ForwardConfig {
  /** The local app for agents without their own URL. */
  defaultUrl?: string;
  perAgent?: Record<string, string>;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Default FORWARD_BACKOFF: 0.5 s doubling to 30 s. */
  backoff?: BackoffPolicy;
  /**
   * Re-sign a queued delivery with the current secret when its own v1 timestamp has aged past half
   * the tolerance (the local app would otherwise reject it as stale). Default true; the attempt is
   * marked `resigned` and carries `x-channel-companion-resigned: 1`.
   */
  resignStale?: boolean;
  /**
   * Deliveries of one agent in flight at once, in order on one keep-alive connection, while the
   * local app answers well (default 8; 1: strictly one at a time). After a failure the agent goes
   * back to one at a time until a delivery succeeds. See forwarder.ts for the one edge it leaves:
   * deliveries already sent behind one that fails may reach the app before its retry.
   */
  pipelining?: number;
}

export interface TunnelOptions {
  dataDir: string;
  /**
   * Webhook registrations under way (registerAgentWebhook begins and ends them): a delivery that
   * fails verification meanwhile is held until the new secret is stored. Shared across rebuilds.
   */
  registrations?: RegistrationsInFlight;
  /** How long such a delivery is held at most (ms) before a 503 with Retry-After. */
  registrationHoldMs?: number;
  /** The agent's signing secrets, newest first (the app: keychain; the CLI: --secret). */
  getSecrets(agentId: string): Promise<string[]>;
  clock?: Clock;
  logger?: Logger;
  /** Sent as x-channel-companion-tunnel. */
  name?: string;
  toleranceSec?: number;
  bodyLimitBytes?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** 'reject' (401 + JSON reason, default) or 'accept-all' (2xx; for debugging). */
  invalidResponse?: InvalidResponse;
  /** Accept deliveries signed only with the legacy header (no timestamp: replayable). Default false. */
  allowLegacySignature?: boolean;
  /** How long a delivery's key is kept for the duplicate verdict (at least 2 × tolerance + retries). */
  duplicateWindowMs?: number;
  /** Per-source budget of refused requests (then 429, before any other work on a request). */
  refusalRate?: RefusalRate;
  /** Connections the receiver keeps open at once (default 256; see receiver.ts). */
  maxConnections?: number;
  /** Bytes of bodies the receiver reads or handles at once (default 64 MiB; then 503 with Retry-After). */
  maxBytesInFlight?: number;
  /** Refused requests kept (metadata only). */
  maxRefused?: number;
  /** Only read the data dir: no lock, no receiver, no forwarding, no appends. */
  readOnly?: boolean;
  /** The agent `/hooks` belongs to (default "default"). */
  defaultAgentId?: string;
  /**
   * The agents this receiver takes deliveries for: `/hooks/<id>` of any other is not a hook (404).
   * Default: any agent (each is verified with its own secrets). Give it where one secret serves
   * every agent, or one delivery could be replayed once per made-up agent id. setAgents changes it.
   * Their secrets are read when the receiver starts (and when an agent is added), not per delivery.
   */
  agents?: readonly string[];
  forward?: ForwardConfig;
  logBounds?: LogBounds;
  /** The log's file operations (tests inject failing ones). */
  logIO?: Partial<LogIO>;
  /** Injected transport (tests) or dispatcher for the local app. */
  transport?: Transport;
  dispatcher?: Dispatcher;
  newId?: IdGenerator;
  /** A durable store accepted deliveries are committed to before they are acknowledged (ingest.ts); default none. */
  commit?: DeliveryCommit;
}

export interface StartOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. Anything but loopback needs allowNonLoopback and logs a warning. */
  host?: string;
  allowNonLoopback?: boolean;
}

export interface TriggerOptions extends SimulateInput {
  agentId: string;
  /** Sign with this secret instead of the agent's current one. */
  secret?: string;
  serviceBaseUrl?: string;
}

export interface TriggerResult {
  delivery: StoredDelivery;
  event: Record<string, unknown>;
  /** The first forward attempt, or null when the delivery is not forwarded. */
  forwarded: Promise<ForwardAttempt | null>;
}

export interface TunnelEvents {
  delivery: StoredDelivery;
  forward: ForwardAttempt;
  status: AgentForwardStatus;
  refused: RefusedRequest;
}

export class TunnelError extends CompanionError {
  constructor(
    /** locked: another writer holds the data dir; read-only: this tunnel only reads. */
    readonly code: 'not-loopback' | 'not-open' | 'no-secret' | 'storage-failed' | 'not-found' | 'locked' | 'read-only',
    message: string,
  ) {
    super(message);
    this.name = 'TunnelError';
  }
}

/** A data folder the writer cannot set up, said plainly: where, why, and what to do. */
function storageError(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const why: Record<string, string> = {
    ENOSPC: 'the disk is full: free some space',
    EDQUOT: 'the disk quota is used up: free some space',
    EACCES: 'permission denied: make it writable',
    EPERM: 'permission denied: make it writable',
    EROFS: 'the file system is read-only',
    EIO: 'the disk reported an input/output error',
  };
  if (code === undefined || !(code in why)) return err;
  return new TunnelError(
    'storage-failed',
    `the tunnel's data folder ${dir} cannot be written (${why[code]}, or choose another data folder)`,
  );
}

export class Tunnel {
  readonly log: EventLog;
  readonly refusedStore: RefusedStore;
  /** Webhook registrations under way (see TunnelOptions.registrations). */
  readonly registrations: RegistrationsInFlight;
  readonly readOnly: boolean;
  /** The agents' signing secrets, read from getSecrets when first needed or changed (secret-cache.ts). */
  private readonly secrets: SecretCache;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly name: string;
  private readonly newId: IdGenerator;
  private readonly transport: Transport;
  private readonly closeTransport: () => Promise<void>;
  private readonly forward: ForwardConfig;
  private readonly toleranceSec: number;
  private readonly duplicateWindowMs: number;
  private readonly limiter: RefusalLimiter;
  /** The agents the receiver takes deliveries for, or null: any. */
  private agents: ReadonlySet<string> | null;
  private allowLegacy: boolean;
  private lock: WriterLock | null = null;
  private opening: Promise<void> | null = null;
  private seen = new SeenIndex();
  private readonly seenFile: SeenFile;
  private forwarder: Forwarder | null = null;
  private ingest: Ingest | null = null;
  private receiver: Receiver | null = null;
  private baseUrl: string | null = null;
  private readonly waiters = new Map<string, Array<(a: ForwardAttempt) => void>>();
  private readonly events: Emitter<TunnelEvents>;

  constructor(private readonly o: TunnelOptions) {
    this.clock = o.clock ?? systemClock;
    this.logger = o.logger ?? silentLogger;
    this.events = new Emitter<TunnelEvents>((err) =>
      this.logger.warn('tunnel: listener failed', { error: err instanceof Error ? err.message : String(err) }),
    );
    this.name = o.name ?? DEFAULT_TUNNEL_NAME;
    this.newId = o.newId ?? createIdGenerator(this.clock);
    this.forward = { ...(o.forward ?? {}), perAgent: { ...(o.forward?.perAgent ?? {}) } };
    this.toleranceSec = o.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
    this.duplicateWindowMs = Math.max(
      o.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS,
      minDuplicateWindowMs(this.toleranceSec),
    );
    this.limiter = new RefusalLimiter(o.refusalRate);
    this.agents = o.agents ? new Set(o.agents) : null;
    this.allowLegacy = o.allowLegacySignature === true;
    this.readOnly = o.readOnly === true;
    this.registrations = o.registrations ?? new RegistrationsInFlight(join(o.dataDir, REGISTERING_DIR));
    this.secrets = new SecretCache(o.getSecrets, this.clock);
    if (o.transport) {
      this.transport = o.transport;
      this.closeTransport = async () => undefined;
    } else {
      const t = createUndiciTransport(o.dispatcher, { pipelining: this.forward.pipelining });
      this.transport = t.transport;
      this.closeTransport = t.close;
    }
    this.seenFile = new SeenFile(o.dataDir, this.duplicateWindowMs);
    this.log = new EventLog({
      dataDir: o.dataDir,
      clock: this.clock,
      bounds: o.logBounds,
      logger: this.logger,
      readOnly: this.readOnly,
      // The duplicate keys of deliveries leaving the log are kept for the duplicate window first.
      beforeDrop: (leaving) => this.seenFile.keep(leaving, this.clock.now()),
      ...(o.logIO ? { io: o.logIO } : {}),
    });
    this.refusedStore = new RefusedStore({
      dataDir: o.dataDir,
      readOnly: this.readOnly,
      ...(o.maxRefused !== undefined ? { maxEntries: o.maxRefused } : {}),
      logger: this.logger,
    });
  }

  /** Hears 'delivery', 'forward', 'status' or 'refused'; returns the unsubscribe. */
  on<K extends keyof TunnelEvents>(event: K, fn: (payload: TunnelEvents[K]) => void): Unsubscribe {
    return this.events.on(event, fn);
  }

  /**
   * Takes the data dir's writer lock (TunnelError 'locked' when another writer holds it), loads the
   * log, rebuilds the duplicate index and resumes pending forwards. A read-only tunnel only loads.
   * Idempotent.
   */
  open(): Promise<void> {
    this.opening ??= this.doOpen().catch((err: unknown) => {
      this.opening = null;
      throw err;
    });
    return this.opening;
  }

  private async doOpen(): Promise<void> {
    if (this.readOnly) {
      await this.log.open();
      await this.refusedStore.open();
      return;
    }
    try {
      this.lock = await acquireWriterLock(this.o.dataDir);
    } catch (err) {
      if (err instanceof LockedError) throw new TunnelError('locked', err.message);
      throw storageError(this.o.dataDir, err);
    }
    try {
      // Files an older version (or someone else) left in the folder are made private too.
      await privateFiles(this.o.dataDir);
      await this.seenFile.open(this.clock.now());
      await this.log.open();
      await this.refusedStore.open();
    } catch (err) {
      await this.log.close().catch(() => undefined);
      await this.lock.release();
      this.lock = null;
      throw storageError(this.o.dataDir, err);
    }
    // After the log's open: the keys of the segments it dropped meanwhile are in the seen file now.
    this.seen = SeenIndex.rebuild(this.duplicateWindowMs, this.clock.now(), this.log.seenKeys(), this.seenFile.keys());
    this.ingest = new Ingest({
      log: this.log,
      seen: this.seen,
      clock: this.clock,
      newId: this.newId,
      secrets: this.secrets,
      toleranceSec: this.toleranceSec,
      allowLegacy: () => this.allowLegacy,
      invalidResponse: this.o.invalidResponse,
      hasTarget: (a) => this.targetOf(a) !== undefined,
      refuse: (r, response) => this.refuse(r, response),
      registrations: this.registrations,
      ...(this.o.registrationHoldMs !== undefined ? { holdMs: this.o.registrationHoldMs } : {}),
      ...(this.o.commit !== undefined ? { commit: this.o.commit } : {}),
    });
    this.forwarder = new Forwarder({
      log: this.log,
      clock: this.clock,
      transport: this.transport,
      newId: this.newId,
      logger: this.logger,
      timeoutMs: this.forward.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
      ...(this.forward.backoff !== undefined ? { backoff: this.forward.backoff } : {}),
      ...(this.forward.pipelining !== undefined ? { pipelining: this.forward.pipelining } : {}),
      targetOf: (a) => this.targetOf(a),
      headersFor: (o, body) => this.headersFor(o, body),
      onAttempt: (a) => this.onAttempt(a),
      onStatus: (s) => this.events.emit('status', s),
      statusWanted: () => this.events.listenerCount('status') > 0,
    });
    this.forwarder.resume();
  }

  /** Opens (if needed) and listens. */
  async start(opts: StartOptions = {}): Promise<{ url: string; port: number }> {
    if (this.readOnly) throw new TunnelError('read-only', 'this tunnel only reads its data folder; it cannot receive');
    const host = opts.host ?? '127.0.0.1';
    if (!isLoopbackHost(host)) {
      if (!opts.allowNonLoopback) {
        throw new TunnelError(
          'not-loopback',
          `refusing to listen on ${host}: pass allowNonLoopback to expose the receiver beyond this machine`,
        );
      }
      this.logger.warn(
        'tunnel: the receiver listens beyond loopback; anyone who can reach this port can post deliveries',
        { host },
      );
    }
    await this.open();
    this.receiver = createReceiver({
      handle: async (req) => {
        const r = await this.ingest!.receive(req);
        if (r.delivery) this.afterStore(r.delivery, req.body);
        return r;
      },
      refuse: (r, response) => this.refuse(r, response),
      isLimited: (from, via) => this.limiter.retryAfter(from, this.clock.now(), via),
      bodyLimitBytes: this.o.bodyLimitBytes,
      headersTimeoutMs: this.o.headersTimeoutMs,
      requestTimeoutMs: this.o.requestTimeoutMs,
      defaultAgentId: this.o.defaultAgentId,
      agents: () => this.agents,
      ...(this.o.maxConnections !== undefined ? { maxConnections: this.o.maxConnections } : {}),
      ...(this.o.maxBytesInFlight !== undefined ? { maxBytesInFlight: this.o.maxBytesInFlight } : {}),
      logger: this.logger,
    });
    // The known agents' secrets are read now, not at their first delivery.
    for (const a of this.agents ?? []) this.secrets.load(a);
    const { port } = await this.receiver.listen(opts.port ?? 0, host);
    const h = host.includes(':') ? `[${host}]` : host;
    this.baseUrl = `http://${h}:${port}`;
    return { url: this.baseUrl, port };
  }

  /**
   * Hands a request another HTTP server took to the receiver (a team hub serves `/hooks/<agentId>` on its
   * own port); false, answering nothing, while the receiver is not started.
   */
  serveHook(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.receiver === null) return false;
    this.receiver.serve(req, res);
    return true;
  }

  /**
   * A connection error of the server that handed over a hook request (serveHook): true when a hook request was
   * still arriving on it (cut at that server's request timeout: kept as a refusal and answered 408), false when
   * none was (that server answers the error).
   */
  serveHookError(err: Error, socket: Socket): boolean {
    return this.receiver?.serveError(err, socket) ?? false;
  }

  /** The receiver's base URL once started. */
  get url(): string | null {
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    await this.receiver?.close();
    this.receiver = null;
    await this.forwarder?.close();
    this.forwarder = null;
    await this.log.close();
    this.refusedStore.close();
    await this.closeTransport();
    await this.lock?.release();
    this.lock = null;
  }

  /**
   * The agents the receiver takes deliveries for from now on (null: any); the hook of any other is
   * answered 404 `unknown-agent`. The secrets of an agent added are read in the background.
   */
  setAgents(agentIds: readonly string[] | null): void {
    this.agents = agentIds === null ? null : new Set(agentIds);
    if (this.receiver) for (const a of agentIds ?? []) this.secrets.load(a);
  }

  /**
   * The agent's signing secrets changed (stored or removed by this process): they are read again now,
   * off the way of any delivery. Resolves once read (a failed read is logged, never thrown).
   */
  async secretsChanged(agentId: string): Promise<void> {
    await this.secrets.reload(agentId).catch((err: unknown) =>
      this.logger.warn('tunnel: the signing secrets could not be read again', {
        agentId,
        error: err instanceof Error ? err.name : 'error',
      }),
    );
  }

  /** Whether deliveries signed only with the legacy header are accepted (from the next one on). */
  setAllowLegacySignature(allow: boolean): void {
    this.allowLegacy = allow;
  }

  get allowsLegacySignature(): boolean {
    return this.allowLegacy;
  }

  /** Refused requests and requests to paths that are not hooks, newest first. */
  refused(q?: RefusedQuery): RefusedRequest[] {
    return this.refusedStore.list(q);
  }

  /**
   * Keeps a refused request (metadata only) and says what to answer. A source over its budget of
   * refusals gets 429 with Retry-After, and only its first such request per spell is kept. A 503
   * while storage fails or the receiver is busy is not the sender's fault: it never counts against
   * the budget. Credential headers are kept redacted (cappedHeaders).
   */
  private refuse(r: RefusalInput, response: Record<string, unknown>): Answer {
    const now = this.clock.now();
    if (r.reason === 'rate-limited') return { status: r.status, response };
    let reason: RefusedRequest['reason'] = r.reason;
    let status = r.status;
    let detail = r.detail;
    let answer = response;
    let headers: Record<string, string> | undefined;
    if (r.reason !== 'storage-unavailable' && r.reason !== 'busy') {
      const take = this.limiter.take(r.from, now, r.via);
      if (take.limited) {
        headers = { 'retry-after': String(take.retryAfterSec) };
        answer = { ok: false, reason: 'rate-limited', retryAfterSec: take.retryAfterSec };
        if (!take.first) return { status: 429, response: answer, headers };
        detail = `${r.reason}: ${r.detail}\nthis source is over its budget of refused requests: it is answered 429 (Retry-After ${take.retryAfterSec} s) and its further refused requests are not kept until then`;
        reason = 'rate-limited';
        status = 429;
      }
    }
    const kept = this.refusedStore.add({
      id: this.newId(),
      at: now,
      method: r.method,
      path: r.path,
      agentId: r.agentId,
      from: r.from,
      reason,
      detail,
      status,
      size: r.size,
      sha256: r.sha256,
      prefix: r.prefix,
      headers: cappedHeaders(r.headers),
    });
    if (this.events.listenerCount('refused') > 0) this.events.emit('refused', kept);
    return headers ? { status, response: answer, headers } : { status, response: answer };
  }

  targetOf(agentId: string): string | undefined {
    return this.forward.perAgent?.[agentId] ?? this.forward.defaultUrl;
  }

  /** Changes where an agent's deliveries go (undefined: back to the default). */
  setForwardTarget(agentId: string, url: string | undefined): void {
    if (url === undefined) delete this.forward.perAgent![agentId];
    else this.forward.perAgent![agentId] = url;
  }

  status(): AgentForwardStatus[] {
    return this.forwarder?.status() ?? [];
  }

  /** One agent's forward queue: how many wait, and when it tries next. */
  forwardStatusOf(agentId: string): AgentForwardStatus {
    return (
      this.forwarder?.statusOf(agentId) ?? {
        agentId,
        localAppDownSince: null,
        pending: 0,
        lastError: null,
        nextRetryAt: null,
      }
    );
  }

  retryNow(agentId?: string): void {
    this.forwarder?.retryNow(agentId);
  }

  /** Resolves when nothing is being forwarded right now (queues waiting on a retry count as idle). */
  async idle(): Promise<void> {
    await this.forwarder?.idle();
  }

  list(q?: DeliveryQuery): DeliveryListItem[] {
    return this.log.list(q);
  }

  /** A delivery (one stored before credential headers were redacted is shown redacted all the same). */
  get(id: string): DeliveryDetail | undefined {
    const d = this.log.get(id);
    if (d === undefined) return undefined;
    const headers = redactHeaders(d.headers);
    return headers === d.headers ? d : { ...d, headers };
  }

  async replay(id: string, opts: ReplayOptions): Promise<ForwardAttempt> {
    await this.open();
    const attempt = await replayDelivery(
      {
        log: this.log,
        clock: this.clock,
        transport: this.transport,
        newId: this.newId,
        tunnelName: this.name,
        getSecrets: (agentId) => this.secrets.reload(agentId),
        targetOf: (a) => this.targetOf(a),
        defaultTimeoutMs: this.forward.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
      },
      id,
      opts,
    );
    const d = this.log.get(id);
    if (d) this.events.emit('forward', attempt);
    return attempt;
  }

  /** Composes, signs, stores (marked simulated) and forwards a message.received event. */
  async trigger(opts: TriggerOptions): Promise<TriggerResult> {
    await this.open();
    const { agentId, secret: given, serviceBaseUrl, ...input } = opts;
    const secret = given ?? (await this.secrets.reload(agentId)).find((s) => s.length > 0);
    if (secret === undefined)
      throw new TunnelError('no-secret', `no signing secret is configured for agent ${agentId}`);
    const now = this.clock.now();
    const event = composeInboundEvent(input, { agentId, nowMs: now, serviceBaseUrl });
    const req = signedRequest(event, secret, now);
    if (!this.ingest)
      throw new TunnelError(
        'read-only',
        'this tunnel only reads its data folder; it cannot store a simulated delivery',
      );
    const r = await this.ingest.receive({
      agentId,
      method: 'POST',
      path: '(simulated)',
      headers: req.headers,
      body: req.body,
      from: '(simulated)',
      simulated: true,
    });
    const delivery = r.delivery;
    if (!delivery) throw new TunnelError('storage-failed', 'the simulated delivery could not be stored');
    // The waiter is in place before the delivery is queued, so the first attempt cannot be missed.
    const forwarded = delivery.forward
      ? new Promise<ForwardAttempt | null>((resolve) =>
          this.waiters.set(delivery.id, [...(this.waiters.get(delivery.id) ?? []), resolve]),
        )
      : Promise.resolve(null);
    this.afterStore(delivery, req.body);
    return { delivery, event, forwarded };
  }

  exportCurl(id: string, opts: Partial<CurlOptions> = {}): string {
    const d = this.mustGet(id);
    // The agent's forward address, else the placeholder toCurl puts in.
    const url = opts.url ?? this.targetOf(d.agentId);
    return toCurl(d, { ...(url !== undefined ? { url } : {}), tunnelName: this.name, ...opts });
  }

  exportFixture(id: string): DeliveryFixture {
    return toFixture(this.mustGet(id));
  }

  private mustGet(id: string): DeliveryDetail {
    const d = this.log.get(id);
    if (!d) throw new TunnelError('not-found', `no delivery ${id}`);
    return d;
  }

  /** `body`: the raw bytes the delivery was stored from (kept for its forward). */
  private afterStore(d: StoredDelivery, body: Buffer): void {
    if (this.events.listenerCount('delivery') > 0) this.events.emit('delivery', d);
    this.forwarder?.enqueue(d, body);
  }

  private onAttempt(a: ForwardAttempt): void {
    const w = this.waiters.get(a.deliveryId);
    if (w) {
      this.waiters.delete(a.deliveryId);
      for (const fn of w) fn(a);
    }
    this.events.emit('forward', a);
  }

  private headersFor(o: Outgoing, body: Buffer): ForwardHeaders | Promise<ForwardHeaders> {
    // The forwarder's own copy of the delivery's headers: the tunnel's markers go into it (the same
    // values on every attempt), so a forward copies nothing.
    const headers = o.headers;
    headers[TUNNEL_HEADER] = this.name;
    headers[DELIVERY_HEADER] = o.id;
    const t = o.signedAt;
    const stale = t !== undefined && this.clock.now() / 1000 - t > this.toleranceSec / 2;
    if (!stale || this.forward.resignStale === false) return { headers, resigned: false };
    return this.resign(o.agentId, body, headers);
  }

  private async resign(agentId: string, body: Buffer, headers: Record<string, string>): Promise<ForwardHeaders> {
    const secret = (await this.secrets.get(agentId).catch(() => [] as string[])).find((s) => s.length > 0);
    if (secret === undefined) return { headers, resigned: false };
    return {
      headers: {
        ...headers,
        ...signDelivery(secret, body, Math.floor(this.clock.now() / 1000)),
        [RESIGNED_HEADER]: '1',
      },
      resigned: true,
    };
  }
}
