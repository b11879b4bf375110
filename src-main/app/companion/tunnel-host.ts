// Owns the Tunnel for the companion: opened at once (so the inspector can list past deliveries and
// simulate), listening only when asked or configured, rebuilt when its port changes, with every
// watched agent forwarded to the configured local app.
// The tunnel is its data folder's one writer. When another process writes it (`listen`, a second
// app), the host opens it read-only instead (the inspector still lists what is there), says why the
// receiver cannot start, and tries to become the writer again on the next start().
// Its port is fixed (the tunnelPort setting) so hook URLs outlive a restart. When something else holds
// it, start() fails with PortTakenError naming the holder and a free port to use instead; setting a
// new port then starts the receiver there.
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import type { Clock, Logger } from '../../core/ports';
import { REGISTERING_DIR, RegistrationsInFlight, Tunnel, TunnelError } from '../../core/tunnel';
import type { DeliveryCommit, ForwardAttempt, RefusedRequest, StoredDelivery } from '../../core/tunnel';
import { describeOwner, freePortNear, isPortTaken, portOwner } from '../../core/port-owner';
import { CompanionError } from '../../core/errors';

const HOST = '127.0.0.1';
/** A holder found this recently is not looked up again (the tunnel screen retries the start every few seconds). */
const OWNER_FRESH_MS = 10_000;

/** The receiver's port is held by another process. */
export interface PortTaken {
  port: number;
  /** Who holds it: "another Channel Companion (process 42)", "another program (python3, process 42)", "another program". */
  owner: string;
  /** A port free when this was found (offered instead), or null when none could be found. */
  alternative: number | null;
}

class PortTakenError extends CompanionError {
  constructor(readonly taken: PortTaken) {
    super(
      `port ${taken.port} is taken by ${taken.owner}, so the webhook receiver cannot listen on it: ${taken.alternative !== null ? `use port ${taken.alternative} instead (free now), ` : 'choose another tunnel port, '}or stop what holds it.`,
    );
    this.name = 'PortTakenError';
  }
}

export interface TunnelHostOptions {
  dataDir: string;
  getSecrets(agentId: string): Promise<string[]>;
  clock: Clock;
  logger: Logger;
  dispatcher?: Dispatcher;
  onDelivery(d: StoredDelivery): void;
  onForward(a: ForwardAttempt): void;
  onRefused(r: RefusedRequest): void;
  /** A durable store every accepted delivery is committed to before it is acknowledged (a team hub's); default none. */
  commit?: DeliveryCommit;
}

export class TunnelHost {
  /** Webhook registrations under way, kept across rebuilds of the tunnel (its receiver holds their deliveries). */
  readonly registrations: RegistrationsInFlight;
  private tunnel: Tunnel;
  private unsubscribe: Array<() => void> = [];
  private listening: Promise<{ url: string; port: number }> | null = null;
  private port = 0;
  private forwardTo: string | null = null;
  private agentIds: string[] = [];
  private allowLegacy = false;
  private closed = false;
  /** Why this host only reads the data folder (another writer holds it), or null. */
  private locked: string | null = null;
  /** The last start found the port held by another process (cleared by a start that listens, or a new port). */
  private taken: PortTaken | null = null;
  private takenAt = 0;

  constructor(private readonly o: TunnelHostOptions) {
    this.registrations = new RegistrationsInFlight(join(o.dataDir, REGISTERING_DIR));
    this.tunnel = this.make(false);
    this.adopt(this.tunnel);
  }

  get current(): Tunnel {
    return this.tunnel;
  }

  get url(): string | null {
    return this.tunnel.url;
  }

  get forwardTarget(): string | null {
    return this.forwardTo;
  }

  /** Why the receiver cannot run (another process writes the data folder), or null. */
  get lockedReason(): string | null {
    return this.locked;
  }

  /** The port is held by another process: who, and a free one to use instead; null otherwise. */
  get portTaken(): PortTaken | null {
    return this.taken;
  }

  /** Opens as the writer; when another process writes the folder, opens it read-only instead. */
  async open(): Promise<void> {
    try {
      await this.tunnel.open();
    } catch (err) {
      if (!(err instanceof TunnelError && err.code === 'locked')) throw err;
      this.o.logger.warn('tunnel: the data folder is written by another process; opened read-only', {
        error: err.message,
      });
      await this.replace(true);
      // Loaded before anyone is told it only reads: what it lists is the folder's from the first look.
      await this.tunnel.open().catch((e: unknown) =>
        this.o.logger.warn('tunnel: the data folder could not be read', {
          error: e instanceof Error ? e.message : String(e),
        }),
      );
      this.locked = err.message;
    }
  }

  /** Listens on the configured port (0 = any free one); idempotent while running. */
  start(): Promise<{ url: string; port: number }> {
    if (this.closed) return Promise.reject(new Error('the companion is closed'));
    if (!this.listening) {
      const p = this.startNow();
      this.listening = p;
      p.catch((err: unknown) => {
        if (this.listening === p) this.listening = null;
        this.o.logger.warn('tunnel: could not listen', {
          port: this.port,
          error: err instanceof Error ? err.message : String(err),
        });
      });
    }
    return this.listening;
  }

  private async startNow(): Promise<{ url: string; port: number }> {
    if (this.tunnel.readOnly) {
      // The other writer may be gone by now. A writer is tried beside the reader, which keeps
      // answering (with the folder's deliveries) until the writer is open and takes its place.
      const writer = this.make(false);
      try {
        await writer.open();
      } catch (err) {
        await writer.stop().catch(() => undefined);
        if (err instanceof TunnelError && err.code === 'locked') {
          await this.tunnel.open();
          this.locked = err.message;
        }
        throw err;
      }
      const reader = this.tunnel;
      this.adopt(writer);
      this.locked = null;
      await reader.stop();
    }
    const port = this.port;
    try {
      const started = await this.tunnel.start({ port, host: HOST });
      this.taken = null;
      return started;
    } catch (err) {
      if (!isPortTaken(err) || port === 0) throw err;
      const now = this.o.clock.now();
      if (this.taken?.port !== port || now - this.takenAt >= OWNER_FRESH_MS) {
        const owner = describeOwner(await portOwner(port));
        const alternative = await freePortNear(port, HOST).catch(() => null);
        this.taken = { port, owner, alternative };
        this.takenAt = now;
      }
      throw new PortTakenError(this.taken);
    }
  }

  /**
   * A new port: a running receiver is rebuilt on it (the log is reopened; nothing is lost), and one
   * that could not start because its port was taken is started on it.
   */
  async setPort(port: number): Promise<void> {
    if (port === this.port) return;
    this.port = port;
    const retry = this.taken !== null;
    this.taken = null;
    if (!this.listening && !retry) return;
    const wasRunning = this.listening
      ? await this.listening.then(
          () => true,
          () => false,
        )
      : false;
    this.listening = null;
    await this.replace(this.tunnel.readOnly);
    await this.tunnel.open();
    if (wasRunning) await this.start();
    else await this.start().catch(() => undefined); // a new failure is in portTaken, and logged
  }

  /** Where deliveries of every watched agent go (null: nowhere, they are only logged). */
  setForwardTo(url: string | null, agentIds: string[]): void {
    this.forwardTo = url;
    this.agentIds = [...agentIds];
    this.applyTargets();
  }

  /** The watched agents: the receiver takes deliveries for these only, forwarded to the local app. */
  setAgents(agentIds: string[]): void {
    const gone = this.agentIds.filter((a) => !agentIds.includes(a));
    for (const a of gone) this.tunnel.setForwardTarget(a, undefined);
    this.agentIds = [...agentIds];
    this.applyTargets();
  }

  /** An agent's signing secrets were stored or removed here: the receiver reads them again now. */
  secretsChanged(agentId: string): Promise<void> {
    return this.tunnel.secretsChanged(agentId);
  }

  /** Accept deliveries signed only with the legacy header (the tunnel setting). */
  setAllowLegacySignature(allow: boolean): void {
    this.allowLegacy = allow;
    this.tunnel.setAllowLegacySignature(allow);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listening?.catch(() => undefined);
    await this.tunnel.stop();
  }

  private applyTargets(t: Tunnel = this.tunnel): void {
    t.setAgents(this.agentIds);
    for (const a of this.agentIds) t.setForwardTarget(a, this.forwardTo ?? undefined);
  }

  /** A tunnel with this host's settings (not opened yet, not yet this host's). */
  private make(readOnly: boolean): Tunnel {
    const t = new Tunnel({
      dataDir: this.o.dataDir,
      getSecrets: this.o.getSecrets,
      registrations: this.registrations,
      clock: this.o.clock,
      logger: this.o.logger,
      allowLegacySignature: this.allowLegacy,
      readOnly,
      ...(this.o.dispatcher ? { dispatcher: this.o.dispatcher } : {}),
      ...(this.o.commit ? { commit: this.o.commit } : {}),
    });
    this.applyTargets(t);
    return t;
  }

  /** Makes `t` this host's tunnel: its events are passed on from now. */
  private adopt(t: Tunnel): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.tunnel = t;
    this.unsubscribe.push(
      t.on('delivery', (d) => this.o.onDelivery(d)),
      t.on('forward', (a) => this.o.onForward(a)),
      t.on('refused', (r) => this.o.onRefused(r)),
    );
  }

  /** Stops the current tunnel and puts a new one (not opened yet) with the same settings in its place. */
  private async replace(readOnly: boolean): Promise<void> {
    await this.tunnel.stop();
    this.adopt(this.make(readOnly));
  }
}
