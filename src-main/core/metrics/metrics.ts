// The companion's Prometheus metrics, as OpenMetrics text (prom-client). Labels: `team` (the team's
// label), `agent` (the agent id). Cheap on the poll path: the per-agent gauges are filled from the
// monitor's snapshot when scraped (nothing per poll); per poll only the team's latency histogram
// (its child made once per team) and, when a poll fails, the error counter move.
import { Counter, Gauge, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';
import { errorToDTO } from '../monitor/health';
import { HEALTHS, type AgentSnapshot, type Alert, type Monitor, type PollResult } from '../monitor';
import type { Unsubscribe } from '../events';

const P = 'channel_companion_';

export interface MetricsSources {
  /** The watched agents now (Monitor.snapshot). */
  agents(): AgentSnapshot[];
  teamLabel(teamId: string): string;
  /** The client-side send budget of each team whose client is open. */
  sendBudgets?(): Array<{ teamId: string; used: number; limit: number }>;
}

interface Observer {
  observe(value: number): void;
}

export class CompanionMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();
  private readonly health: Gauge<'team' | 'agent' | 'health'>;
  private readonly needsScan: Gauge<'team' | 'agent'>;
  private readonly connected: Gauge<'team' | 'agent'>;
  private readonly linked: Gauge<'team' | 'agent'>;
  private readonly lastSuccess: Gauge<'team' | 'agent'>;
  private readonly pollSeconds: Histogram<'team'>;
  private readonly pollErrors: Counter<'team' | 'agent' | 'kind'>;
  private readonly alerts: Counter<'team' | 'kind' | 'severity'>;
  private readonly deliveries: Counter<'agent' | 'verdict'>;
  private readonly budgetUsed: Gauge<'team'>;
  private readonly budgetLimit: Gauge<'team'>;
  private readonly latencyByTeam = new Map<string, Observer>();

  constructor(private readonly sources: MetricsSources) {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.registry];
    const agent = ['team', 'agent'] as const;
    this.health = new Gauge({ name: `${P}agent_health`, help: 'One-hot health of the agent: 1 for its current health word, 0 for the others.', labelNames: [...agent, 'health'], registers });
    this.needsScan = new Gauge({ name: `${P}agent_needs_scan`, help: "The service's needsScan from the last successful poll (1 = a QR scan is needed).", labelNames: agent, registers });
    this.connected = new Gauge({ name: `${P}agent_connected`, help: "The service's connected from the last successful poll.", labelNames: agent, registers });
    this.linked = new Gauge({ name: `${P}agent_linked`, help: "The service's linked from the last successful poll.", labelNames: agent, registers });
    this.lastSuccess = new Gauge({ name: `${P}agent_last_success_timestamp_seconds`, help: 'Unix time of the last poll the service answered with a session status.', labelNames: agent, registers });
    this.pollSeconds = new Histogram({
      name: `${P}poll_duration_seconds`,
      help: 'Time a session poll took, answered or failed (per team: one histogram per agent would multiply the series by the agents).',
      labelNames: ['team'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.pollErrors = new Counter({ name: `${P}poll_errors`, help: 'Failed session polls, by error kind (server-error, rate-limited, network-error, timeout, unauthorized…).', labelNames: [...agent, 'kind'], registers });
    this.alerts = new Counter({ name: `${P}alerts`, help: 'Alerts raised by the alert policy, by kind (the parts of a grouped alert each count).', labelNames: ['team', 'kind', 'severity'], registers });
    this.deliveries = new Counter({ name: `${P}tunnel_deliveries`, help: "Deliveries the tunnel received, by the receiver's verdict.", labelNames: ['agent', 'verdict'], registers });
    this.budgetUsed = new Gauge({ name: `${P}send_budget_used`, help: 'Sends counted in the client-side send budget window now.', labelNames: ['team'], registers });
    this.budgetLimit = new Gauge({ name: `${P}send_budget_limit`, help: 'Sends the client-side send budget allows per window.', labelNames: ['team'], registers });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text, with the agent gauges and send budgets read now. */
  async metrics(): Promise<string> {
    this.readAgents();
    this.readBudgets();
    return this.registry.metrics();
  }

  /** One settled poll: its latency, and its error when it failed. */
  observePoll(r: PollResult): void {
    let h = this.latencyByTeam.get(r.teamId);
    if (!h) {
      h = this.pollSeconds.labels(this.sources.teamLabel(r.teamId));
      this.latencyByTeam.set(r.teamId, h);
    }
    h.observe((r.at - r.startedAt) / 1000);
    if (r.error !== undefined) this.pollErrors.inc({ team: this.sources.teamLabel(r.teamId), agent: r.agentId, kind: errorToDTO(r.error).kind });
  }

  countAlert(a: Alert): void {
    for (const p of a.kind === 'grouped' && a.parts ? a.parts : [a]) {
      this.alerts.inc({ team: this.sources.teamLabel(p.teamId), kind: p.kind, severity: p.urgent ? 'urgent' : 'notice' });
    }
  }

  /** A delivery the tunnel received; `verdict` as the tunnel words it. */
  countDelivery(agentId: string, verdict: string): void {
    this.deliveries.inc({ agent: agentId, verdict });
  }

  /** Follows a monitor: its polls and alerts. */
  attach(monitor: Pick<Monitor, 'on'>): Unsubscribe {
    const offs = [monitor.on('poll', (r) => this.observePoll(r)), monitor.on('alert', (a) => this.countAlert(a))];
    return () => offs.forEach((off) => off());
  }

  private readAgents(): void {
    for (const g of [this.health, this.needsScan, this.connected, this.linked, this.lastSuccess]) g.reset();
    for (const s of this.sources.agents()) {
      const labels = { team: this.sources.teamLabel(s.teamId), agent: s.agentId };
      for (const h of HEALTHS) this.health.set({ ...labels, health: h }, h === s.health ? 1 : 0);
      this.needsScan.set(labels, s.needsScan ? 1 : 0);
      this.connected.set(labels, s.connected ? 1 : 0);
      this.linked.set(labels, s.linked ? 1 : 0);
      if (s.lastSuccessAt !== null) this.lastSuccess.set(labels, s.lastSuccessAt / 1000);
    }
  }

  private readBudgets(): void {
    this.budgetUsed.reset();
    this.budgetLimit.reset();
    let budgets: ReturnType<NonNullable<MetricsSources['sendBudgets']>> = [];
    try {
      budgets = this.sources.sendBudgets?.() ?? [];
    } catch {
      return; // no budget figures this time; the rest of the scrape stands
    }
    for (const b of budgets) {
      const team = this.sources.teamLabel(b.teamId);
      this.budgetUsed.set({ team }, b.used);
      this.budgetLimit.set({ team }, b.limit);
    }
  }
}
