// The companion's Prometheus metrics, as OpenMetrics text. Labels: `team` (the team's label),
// `agent` (the agent id). Counters, the latency histogram and the send budgets are prom-client's;
// the per-agent state gauges (health one-hot, needs_scan, connected, linked, last success) are
// written here, from what each agent holds, when scraped: with 1,000 agents they are ~11,000
// series, which prom-client would re-hash and re-format from label objects on every scrape. A poll
// costs a histogram observation and a few assignments.
import { Counter, Gauge, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';
import { errorToDTO } from '../monitor/health';
import {
  HEALTHS,
  type AgentSnapshot,
  type Alert,
  type Health,
  type HealthEvent,
  type Monitor,
  type PollResult,
} from '../monitor';
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
  /** `team="…",agent="…"` escaped, as the exposition text writes it. */
  labelText: string;
  health: Health | null;
  /** needs_scan, connected, linked from the last successful poll (-1: none yet). */
  flags: [number, number, number];
  lastSuccessAt: number | null;
}

/** A label value in the exposition text: backslash, double quote and line feed escaped. */
function labelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

function labelTextOf(labels: { team: string; agent: string }): string {
  return `team="${labelValue(labels.team)}",agent="${labelValue(labels.agent)}"`;
}

const AGENT_GAUGES = {
  health: {
    name: `${P}agent_health`,
    help: 'One-hot health of the agent: 1 for its current health word, 0 for the others.',
  },
  needsScan: {
    name: `${P}agent_needs_scan`,
    help: "The service's needsScan from the last successful poll (1 = a QR scan is needed).",
  },
  connected: { name: `${P}agent_connected`, help: "The service's connected from the last successful poll." },
  linked: { name: `${P}agent_linked`, help: "The service's linked from the last successful poll." },
  lastSuccess: {
    name: `${P}agent_last_success_timestamp_seconds`,
    help: 'Unix time of the last poll the service answered with a session status.',
  },
} as const;

/** The HELP text escaped as the exposition format wants it (backslash and line feed). */
function header(g: { name: string; help: string }): string {
  return `# HELP ${g.name} ${g.help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'))}\n# TYPE ${g.name} gauge\n`;
}

/** The per-agent gauges as exposition text, read from each agent now. */
function agentGaugesText(agents: Iterable<AgentSeries>): string {
  const list = [...agents];
  let out = header(AGENT_GAUGES.health);
  for (const a of list) {
    if (a.health === null) continue;
    for (const h of HEALTHS)
      out += `${AGENT_GAUGES.health.name}{${a.labelText},health="${h}"} ${h === a.health ? 1 : 0}\n`;
  }
  const flags = [AGENT_GAUGES.needsScan, AGENT_GAUGES.connected, AGENT_GAUGES.linked];
  for (let i = 0; i < 3; i++) {
    const g = flags[i]!;
    out += header(g);
    for (const a of list) if (a.flags[i] !== -1) out += `${g.name}{${a.labelText}} ${a.flags[i]}\n`;
  }
  out += header(AGENT_GAUGES.lastSuccess);
  for (const a of list)
    if (a.lastSuccessAt !== null) out += `${AGENT_GAUGES.lastSuccess.name}{${a.labelText}} ${a.lastSuccessAt / 1000}\n`;
  return out;
}

type MonitorLike = Pick<Monitor, 'on' | 'snapshot'>;

export class CompanionMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();
  private readonly pollSeconds: Histogram<'team'>;
  private readonly pollErrors: Counter<'team' | 'agent' | 'kind'>;
  private readonly alerts: Counter<'team' | 'kind' | 'severity'>;
  private readonly deliveries: Counter<'agent' | 'verdict'>;
  private readonly refused: Counter<'reason' | 'status'>;
  private readonly budgetUsed: Gauge<'team'>;
  private readonly budgetLimit: Gauge<'team'>;
  private readonly latencyByTeam = new Map<string, Observer>();
  private readonly agents = new Map<string, AgentSeries>();

  constructor(private readonly sources: MetricsSources) {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.registry];
    const agent = ['team', 'agent'] as const;
    this.pollSeconds = new Histogram({
      name: `${P}poll_duration_seconds`,
      help: 'Time a session poll took, answered or failed (per team: one histogram per agent would multiply the series by the agents).',
      labelNames: ['team'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.pollErrors = new Counter({
      name: `${P}poll_errors`,
      help: 'Failed session polls, by error kind (server-error, rate-limited, network-error, timeout, key-rejected…).',
      labelNames: [...agent, 'kind'],
      registers,
    });
    this.alerts = new Counter({
      name: `${P}alerts`,
      help: 'Alerts raised by the alert policy, by kind (the parts of a grouped alert each count).',
      labelNames: ['team', 'kind', 'severity'],
      registers,
    });
    this.deliveries = new Counter({
      name: `${P}tunnel_deliveries`,
      help: "Deliveries the tunnel received, by the receiver's verdict.",
      labelNames: ['agent', 'verdict'],
      registers,
    });
    // By reason and status only: a refused request's agent is whatever the sender wrote in the path.
    this.refused = new Counter({
      name: `${P}tunnel_refused`,
      help: 'Requests the tunnel refused and kept (bad signature, too large, cut at the request timeout, unknown agent…), by reason and answer.',
      labelNames: ['reason', 'status'],
      registers,
    });
    this.budgetUsed = new Gauge({
      name: `${P}send_budget_used`,
      help: 'Sends counted in the client-side send budget window now.',
      labelNames: ['team'],
      registers,
    });
    this.budgetLimit = new Gauge({
      name: `${P}send_budget_limit`,
      help: 'Sends the client-side send budget allows per window.',
      labelNames: ['team'],
      registers,
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text, with the agents' state, team labels and send budgets read now. */
  async metrics(): Promise<string> {
    const labels = new Map<string, string>();
    for (const a of this.agents.values()) {
      let team = labels.get(a.teamId);
      if (team === undefined) {
        team = this.sources.teamLabel(a.teamId);
        labels.set(a.teamId, team);
      }
      if (team !== a.labels.team) this.relabel(a, team);
    }
    this.readBudgets();
    const rest = await this.registry.metrics();
    // OpenMetrics ends with '# EOF': the agent gauges go before it.
    const eof = rest.lastIndexOf('# EOF');
    return `${agentGaugesText(this.agents.values())}${eof >= 0 ? rest.slice(0, eof) : rest}# EOF\n`;
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
      this.alerts.inc({
        team: this.sources.teamLabel(p.teamId),
        kind: p.kind,
        severity: p.urgent ? 'urgent' : 'notice',
      });
    }
  }

  /** A delivery the tunnel received; `verdict` as the tunnel words it. */
  countDelivery(agentId: string, verdict: string): void {
    this.deliveries.inc({ agent: agentId, verdict });
  }

  /** A request the tunnel refused and kept; `reason` as the tunnel words it, `status` what it answered. */
  countRefused(reason: string, status: number): void {
    this.refused.inc({ reason, status: String(status) });
  }

  /** An agent no longer watched: its series go. */
  forget(teamId: string, agentId: string): void {
    this.agents.delete(`${teamId}\u0000${agentId}`);
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
      const labels = { team: this.sources.teamLabel(teamId), agent: agentId };
      a = { teamId, labels, labelText: labelTextOf(labels), health: null, flags: [-1, -1, -1], lastSuccessAt: null };
      this.agents.set(k, a);
    }
    return a;
  }

  private setFlags(a: AgentSeries, needsScan: boolean, connected: boolean, linked: boolean): void {
    a.flags[0] = needsScan ? 1 : 0;
    a.flags[1] = connected ? 1 : 0;
    a.flags[2] = linked ? 1 : 0;
  }

  /** The team was renamed: its agents' series move to the new label. */
  private relabel(a: AgentSeries, team: string): void {
    a.labels = { team, agent: a.labels.agent };
    a.labelText = labelTextOf(a.labels);
    this.latencyByTeam.delete(a.teamId);
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
