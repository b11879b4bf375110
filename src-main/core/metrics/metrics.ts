// The companion's Prometheus metrics, as OpenMetrics text (prom-client). Labels: `team` (the team's
// label), `agent` (the agent id). Cheap on the poll path: a poll observes the team's latency
// histogram (its child made once per team), stores its time, and touches the needs_scan /
// connected / linked gauges only when they change; the health one-hot moves on health changes
// only and is rendered from each agent's health when scraped; the last-success timestamps and send
// budgets are written when scraped.
import { Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue, type OpenMetricsContentType } from 'prom-client';
import { errorToDTO } from '../monitor/health';
import { HEALTHS, type AgentSnapshot, type Alert, type Health, type HealthEvent, type Monitor, type PollResult } from '../monitor';
import type { Unsubscribe } from '../events';

const P = 'channel_companion_';

export interface MetricsSources {
  teamLabel(teamId: string): string;
  /** The client-side send budget of each team whose client is open. */
  sendBudgets?(): Array<{ teamId: string; used: number; limit: number }>;
}

interface Observer {
  observe(value: number): void;
}

/** What the metrics keep per watched agent. */
interface AgentSeries {
  teamId: string;
  labels: { team: string; agent: string };
  health: Health | null;
  /** needs_scan, connected, linked as last written (-1: not yet). */
  flags: [number, number, number];
  lastSuccessAt: number | null;
}

type MonitorLike = Pick<Monitor, 'on' | 'snapshot'>;

export class CompanionMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();
  private readonly health: HealthGauge;
  private readonly flagGauges: [Gauge<'team' | 'agent'>, Gauge<'team' | 'agent'>, Gauge<'team' | 'agent'>];
  private readonly lastSuccess: Gauge<'team' | 'agent'>;
  private readonly pollSeconds: Histogram<'team'>;
  private readonly pollErrors: Counter<'team' | 'agent' | 'kind'>;
  private readonly alerts: Counter<'team' | 'kind' | 'severity'>;
  private readonly deliveries: Counter<'agent' | 'verdict'>;
  private readonly budgetUsed: Gauge<'team'>;
  private readonly budgetLimit: Gauge<'team'>;
  private readonly latencyByTeam = new Map<string, Observer>();
  private readonly agents = new Map<string, AgentSeries>();

  constructor(private readonly sources: MetricsSources) {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.registry];
    const agent = ['team', 'agent'] as const;
    this.health = new HealthGauge(() => this.agents.values(), { name: `${P}agent_health`, help: 'One-hot health of the agent: 1 for its current health word, 0 for the others.', labelNames: [...agent, 'health'], registers });
    this.flagGauges = [
      new Gauge({ name: `${P}agent_needs_scan`, help: "The service's needsScan from the last successful poll (1 = a QR scan is needed).", labelNames: agent, registers }),
      new Gauge({ name: `${P}agent_connected`, help: "The service's connected from the last successful poll.", labelNames: agent, registers }),
      new Gauge({ name: `${P}agent_linked`, help: "The service's linked from the last successful poll.", labelNames: agent, registers }),
    ];
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

  /** The exposition text, with the last-success timestamps, team labels and send budgets read now. */
  async metrics(): Promise<string> {
    const labels = new Map<string, string>();
    for (const a of this.agents.values()) {
      let team = labels.get(a.teamId);
      if (team === undefined) {
        team = this.sources.teamLabel(a.teamId);
        labels.set(a.teamId, team);
      }
      if (team !== a.labels.team) this.relabel(a, team);
      if (a.lastSuccessAt !== null) this.lastSuccess.set(a.labels, a.lastSuccessAt / 1000);
    }
    this.readBudgets();
    return this.registry.metrics();
  }

  /** Follows a monitor: what it knows now, then its polls, health changes, alerts and removals. */
  attach(monitor: MonitorLike): Unsubscribe {
    for (const s of monitor.snapshot()) this.seed(s);
    const offs = [
      monitor.on('poll', (r) => this.observePoll(r)),
      monitor.on('health', (e) => this.observeHealth(e)),
      monitor.on('alert', (a) => this.countAlert(a)),
      monitor.on('removed', (t) => this.forget(t.teamId, t.agentId)),
    ];
    return () => offs.forEach((off) => off());
  }

  /** One settled poll: its latency and time; its flags when answered; its error when it failed. */
  observePoll(r: PollResult): void {
    let h = this.latencyByTeam.get(r.teamId);
    if (!h) {
      h = this.pollSeconds.labels(this.sources.teamLabel(r.teamId));
      this.latencyByTeam.set(r.teamId, h);
    }
    h.observe((r.at - r.startedAt) / 1000);
    const a = this.series(r.teamId, r.agentId);
    if (a.health === null) this.observeHealth({ teamId: r.teamId, agentId: r.agentId, health: 'unknown' });
    const s = r.status;
    if (s) {
      a.lastSuccessAt = r.at;
      this.setFlags(a, s.needsScan, s.connected, s.linked);
    } else if (r.error !== undefined) {
      this.pollErrors.inc({ ...a.labels, kind: errorToDTO(r.error).kind });
    }
  }

  observeHealth(e: Pick<HealthEvent, 'teamId' | 'agentId' | 'health'>): void {
    this.series(e.teamId, e.agentId).health = e.health;
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

  /** An agent no longer watched: its series go. */
  forget(teamId: string, agentId: string): void {
    const k = `${teamId}\u0000${agentId}`;
    const a = this.agents.get(k);
    if (!a) return;
    this.agents.delete(k);
    this.removeSeries(a);
  }

  private seed(s: AgentSnapshot): void {
    const a = this.series(s.teamId, s.agentId);
    a.lastSuccessAt = s.lastSuccessAt;
    if (s.lastSuccessAt !== null) this.setFlags(a, s.needsScan, s.connected, s.linked);
    this.observeHealth(s);
  }

  private series(teamId: string, agentId: string): AgentSeries {
    const k = `${teamId}\u0000${agentId}`;
    let a = this.agents.get(k);
    if (!a) {
      a = { teamId, labels: { team: this.sources.teamLabel(teamId), agent: agentId }, health: null, flags: [-1, -1, -1], lastSuccessAt: null };
      this.agents.set(k, a);
    }
    return a;
  }

  private setFlags(a: AgentSeries, ...values: [boolean, boolean, boolean]): void {
    for (let i = 0; i < 3; i++) {
      const v = values[i] ? 1 : 0;
      if (a.flags[i] !== v) {
        a.flags[i] = v;
        this.flagGauges[i]!.set(a.labels, v);
      }
    }
  }

  /** The team was renamed: its agents' series move to the new label. */
  private relabel(a: AgentSeries, team: string): void {
    this.removeSeries(a);
    a.labels = { team, agent: a.labels.agent };
    const [needsScan, connected, linked] = a.flags;
    a.flags = [-1, -1, -1];
    if (needsScan !== -1) this.setFlags(a, needsScan === 1, connected === 1, linked === 1);
    this.latencyByTeam.delete(a.teamId);
  }

  private removeSeries(a: AgentSeries): void {
    for (const g of [...this.flagGauges, this.lastSuccess]) g.remove(a.labels);
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

/**
 * The health one-hot (one series per agent and health word), rendered when scraped from each agent's
 * current health: a change costs one assignment instead of prom-client label bookkeeping per series.
 */
class HealthGauge extends Gauge<'team' | 'agent' | 'health'> {
  constructor(
    private readonly agents: () => Iterable<AgentSeries>,
    config: ConstructorParameters<typeof Gauge<'team' | 'agent' | 'health'>>[0],
  ) {
    super(config);
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<'team' | 'agent' | 'health'>>> {
    const base = await super.get(); // its name, help, type and aggregator (it keeps no series itself)
    const values: Array<MetricValue<'team' | 'agent' | 'health'>> = [];
    for (const a of this.agents()) {
      if (a.health === null) continue;
      for (const h of HEALTHS) values.push({ labels: { team: a.labels.team, agent: a.labels.agent, health: h }, value: h === a.health ? 1 : 0 });
    }
    return { ...base, values };
  }
}
