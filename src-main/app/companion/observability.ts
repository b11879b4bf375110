// What the companion tells the engines on-call already runs: Prometheus metrics (counted from the
// start; served at /metrics on loopback when a port is set) and Alertmanager (raised incidents,
// firing then resolved). Both follow the one monitor; their settings apply in place.
import type { Dispatcher } from 'undici';
import { CompanionMetrics, startMetricsServer, type MetricsServer, type MetricsSources } from '../../core/metrics';
import { AlertmanagerSink, type Incident, type Monitor } from '../../core/monitor';
import type { Clock, Logger } from '../../core/ports';
import type { RefusedRequest, StoredDelivery } from '../../core/tunnel';

export interface ObservabilityOptions {
  monitor: Monitor;
  teamLabel(teamId: string): string;
  sendBudgets: NonNullable<MetricsSources['sendBudgets']>;
  clock: Clock;
  logger: Logger;
  dispatcher?: Dispatcher;
  /** Whether this app posts the alerts (one app per data folder does: alert-sender.ts). */
  postsAlerts: () => boolean;
}

export interface MetricsListen {
  port: number;
  host: string;
}

export class Observability {
  readonly metrics: CompanionMetrics;
  private server: { listen: MetricsListen; running: Promise<MetricsServer | null> } | null = null;
  private alertmanager: { url: string; sink: AlertmanagerSink; off: () => void } | null = null;

  constructor(private readonly o: ObservabilityOptions) {
    this.metrics = new CompanionMetrics({ teamLabel: o.teamLabel, sendBudgets: o.sendBudgets });
    this.metrics.attach(o.monitor);
  }

  /** A delivery the tunnel received (simulated ones are not counted). */
  countDelivery(d: StoredDelivery): void {
    if (!d.simulated) this.metrics.countDelivery(d.agentId, d.verdict.reason);
  }

  /** A request the tunnel refused and kept. */
  countRefused(r: RefusedRequest): void {
    this.metrics.countRefused(r.reason, r.status);
  }

  /** Serves /metrics there (null: not at all); a port in use is logged, and the app goes on. */
  async setMetricsServer(listen: MetricsListen | null): Promise<void> {
    if (this.server && listen && this.server.listen.port === listen.port && this.server.listen.host === listen.host)
      return;
    const old = this.server;
    this.server = null;
    await (await old?.running)?.close();
    if (!listen) return;
    const running = startMetricsServer(this.metrics, {
      ...listen,
      onError: (e) => this.o.logger.warn('metrics: a scrape failed', { error: String(e) }),
    }).catch((e: unknown) => {
      this.o.logger.warn(`metrics: cannot listen on ${listen.host}:${listen.port}`, {
        error: e instanceof Error ? e.message : String(e),
      });
      return null;
    });
    this.server = { listen, running };
    await running;
  }

  /** The /metrics URL now, or null. */
  async metricsUrl(): Promise<string | null> {
    return (await this.server?.running)?.url ?? null;
  }

  /** Posts raised incidents to this Alertmanager (null: none); replaced in place. */
  setAlertmanager(url: string | null): void {
    if (this.alertmanager?.url === url) return;
    this.alertmanager?.off();
    this.alertmanager = null;
    if (!url) return;
    const sink = new AlertmanagerSink(url, {
      clock: this.o.clock,
      logger: this.o.logger,
      teamLabel: this.o.teamLabel,
      active: this.o.postsAlerts,
      ...(this.o.dispatcher ? { dispatcher: this.o.dispatcher } : {}),
    });
    this.alertmanager = { url, sink, off: sink.attach(this.o.monitor) };
  }

  /** This app took over posting the alerts: Alertmanager hears what fires here now (AlertmanagerSink.takeOver). */
  takeOverAlerts(recovered: Incident[]): void {
    this.alertmanager?.sink.takeOver(recovered);
  }

  async close(): Promise<void> {
    const am = this.alertmanager;
    this.alertmanager = null;
    am?.off();
    await am?.sink.flush();
    await this.setMetricsServer(null);
  }
}
