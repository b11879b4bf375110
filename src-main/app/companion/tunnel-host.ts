// Owns the Tunnel for the companion: opened at once (so the inspector can list past deliveries and
// simulate), listening only when asked or configured, rebuilt when its port changes, with every
// watched agent forwarded to the configured local app.
import type { Dispatcher } from 'undici';
import type { Clock, Logger } from '../../core/ports';
import { Tunnel } from '../../core/tunnel';
import type { ForwardAttempt, StoredDelivery } from '../../core/tunnel';

export interface TunnelHostOptions {
  dataDir: string;
  getSecrets(agentId: string): Promise<string[]>;
  clock: Clock;
  logger: Logger;
  dispatcher?: Dispatcher;
  onDelivery(d: StoredDelivery): void;
  onForward(a: ForwardAttempt): void;
}

export class TunnelHost {
  private tunnel: Tunnel;
  private unsubscribe: Array<() => void> = [];
  private listening: Promise<{ url: string; port: number }> | null = null;
  private port = 0;
  private forwardTo: string | null = null;
  private agentIds: string[] = [];
  private closed = false;

  constructor(private readonly o: TunnelHostOptions) {
    this.tunnel = this.build();
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

  async open(): Promise<void> {
    await this.tunnel.open();
  }

  /** Listens on the configured port (0 = any free one); idempotent while running. */
  start(): Promise<{ url: string; port: number }> {
    if (this.closed) return Promise.reject(new Error('the companion is closed'));
    if (!this.listening) {
      const p = this.tunnel.start({ port: this.port, host: '127.0.0.1' });
      this.listening = p;
      p.catch((err: unknown) => {
        if (this.listening === p) this.listening = null;
        this.o.logger.warn('tunnel: could not listen', { port: this.port, error: err instanceof Error ? err.message : String(err) });
      });
    }
    return this.listening;
  }

  /** A new port: a running receiver is rebuilt on it (the log is reopened; nothing is lost). */
  async setPort(port: number): Promise<void> {
    if (port === this.port) return;
    this.port = port;
    if (!this.listening) return;
    const wasRunning = await this.listening.then(() => true, () => false);
    await this.rebuild();
    if (wasRunning) await this.start();
  }

  /** Where deliveries of every watched agent go (null: nowhere, they are only logged). */
  setForwardTo(url: string | null, agentIds: string[]): void {
    this.forwardTo = url;
    this.agentIds = [...agentIds];
    this.applyTargets();
  }

  setAgents(agentIds: string[]): void {
    const gone = this.agentIds.filter((a) => !agentIds.includes(a));
    for (const a of gone) this.tunnel.setForwardTarget(a, undefined);
    this.agentIds = [...agentIds];
    this.applyTargets();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listening?.catch(() => undefined);
    await this.tunnel.stop();
  }

  private applyTargets(): void {
    for (const a of this.agentIds) this.tunnel.setForwardTarget(a, this.forwardTo ?? undefined);
  }

  private build(): Tunnel {
    const t = new Tunnel({ dataDir: this.o.dataDir, getSecrets: this.o.getSecrets, clock: this.o.clock, logger: this.o.logger, ...(this.o.dispatcher ? { dispatcher: this.o.dispatcher } : {}) });
    this.unsubscribe.push(
      t.on('delivery', (d) => this.o.onDelivery(d)),
      t.on('forward', (a) => this.o.onForward(a)),
    );
    return t;
  }

  private async rebuild(): Promise<void> {
    const old = this.tunnel;
    this.listening = null;
    await old.stop();
    for (const off of this.unsubscribe.splice(0)) off();
    this.tunnel = this.build();
    this.applyTargets();
    await this.tunnel.open();
  }
}
