// Polls the session status of every watched agent, on the injected clock.
//
// Scheduling: each agent has a due time. A scheduler tick launches every agent due now or within
// `coalesceMs`, and those polls form one CYCLE: the cycle's batch is emitted when all of them have
// settled. The random draw behind the jitter (which only shortens a delay, so the interval is a
// ceiling and detection latency stays within one interval) is made once per cycle and applied to
// every next delay of that cycle, so agents polled together stay together (which is what lets the
// policy group their changes into one alert), while the whole schedule still drifts off any fixed beat.
//
// Delays: `intervalMs` normally; `fastIntervalMs` while a pairing QR is on offer or the number is
// reconnecting; after a failure, the `backoff` policy (POLL_BACKOFF), and never sooner than a 429's
// Retry-After. Concurrency is bounded per team (one API key each).
import { RateLimited, Timeout } from '../api/errors';
import type { SessionStatus } from '../api/types';
import { backoffDelay, isBackoffPolicy, jittered, type BackoffPolicy } from '../backoff';
import { systemClock, type Clock, type Random } from '../ports';
import { Emitter, type Unsubscribe } from '../events';
import { isTransientError } from './health';

export interface PollTarget {
  teamId: string;
  agentId: string;
}

export type ReadSession = (teamId: string, agentId: string, signal: AbortSignal) => Promise<SessionStatus>;

export interface PollResult {
  teamId: string;
  agentId: string;
  cycleId: number;
  startedAt: number;
  /** When the poll settled (ms epoch). */
  at: number;
  status?: SessionStatus;
  error?: unknown;
  /** Delay chosen until this agent's next poll. */
  nextPollInMs: number;
}

export interface PollCycle {
  cycleId: number;
  startedAt: number;
  at: number;
  results: PollResult[];
}

export interface PollerOptions {
  targets: () => PollTarget[];
  readSession: ReadSession;
  clock?: Clock;
  random?: Random;
  /** Default 15 000. */
  intervalMs?: number;
  /** While pairing or reconnecting. Default 2 000. */
  fastIntervalMs?: number;
  /** Fraction of an interval taken off at random (see jittered). Default 0.1. */
  jitter?: number;
  /** Polls in flight per team. Default 8. */
  maxInFlightPerTeam?: number;
  /** Waits after failed polls. Default POLL_BACKOFF. */
  backoff?: BackoffPolicy;
  /** A poll that takes longer is aborted and counts as a Timeout. Default 10 000. */
  pollTimeoutMs?: number;
  /** Agents due within this window are polled in the same cycle. Default 1 000. */
  coalesceMs?: number;
}

export type PollerConfig = Required<Omit<PollerOptions, 'targets' | 'readSession' | 'clock' | 'random'>>;

/** Waits after failed polls: 5 s doubling to 2 min, up to 10 % shorter. */
const POLL_BACKOFF: BackoffPolicy = { baseMs: 5_000, maxMs: 120_000, jitter: 0.1 };

export const DEFAULT_POLLER_CONFIG: PollerConfig = {
  intervalMs: 15_000,
  fastIntervalMs: 2_000,
  jitter: 0.1,
  maxInFlightPerTeam: 8,
  backoff: POLL_BACKOFF,
  pollTimeoutMs: 10_000,
  coalesceMs: 1_000,
};

interface AgentSlot {
  target: PollTarget;
  dueAt: number;
  failures: number;
  busy: boolean;
  /** pollSoon() came while a poll was in flight: poll again as soon as it settles. */
  again: boolean;
}

interface Cycle {
  id: number;
  startedAt: number;
  /** The cycle's random draw in [0, 1), shared by every next delay it sets. */
  draw: number;
  pending: number;
  results: PollResult[];
}

interface Job {
  slot: AgentSlot;
  cycle: Cycle;
}

interface PollerEvents {
  poll: PollResult;
  cycle: PollCycle;
}

/** Whether this status calls for fast polling (pairing QR on offer, or reconnecting). */
function wantsFastPoll(s: SessionStatus): boolean {
  const pairing = s.needsScan && s.qr !== null; // ASSUMPTION A-PAIRING
  const reconnecting = s.linked && !s.connected && !s.needsScan; // ASSUMPTION A-RECONNECTING
  return pairing || reconnecting || s.state === 'pairing';
}

export class Poller {
  private readonly cfg: PollerConfig;
  private readonly clock: Clock;
  private readonly random: Random;
  private readonly events = new Emitter<PollerEvents>();
  private readonly slots = new Map<string, AgentSlot>();
  private readonly queues = new Map<string, Job[]>();
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private readonly stopController = new AbortController();
  private timer: unknown = null;
  private cycleSeq = 0;
  private started = false;
  private paused = false;
  private stopped = false;

  constructor(private readonly opts: PollerOptions) {
    this.cfg = pollerConfig(opts);
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
  }

  config(): PollerConfig {
    return { ...this.cfg, backoff: { ...this.cfg.backoff } };
  }

  onPoll(fn: (r: PollResult) => void): Unsubscribe {
    return this.events.on('poll', fn);
  }

  onCycle(fn: (c: PollCycle) => void): Unsubscribe {
    return this.events.on('cycle', fn);
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Number of polls in flight for a team (tests, diagnostics). */
  inFlightFor(teamId: string): number {
    return this.inFlight.get(teamId) ?? 0;
  }

  /** When an agent is due next (ms epoch), or null if not scheduled. */
  dueAt(teamId: string, agentId: string): number | null {
    return this.slots.get(key(teamId, agentId))?.dueAt ?? null;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.tick();
  }

  /** Re-reads the targets and polls what is due (new agents at once). */
  refresh(): void {
    if (this.started && !this.stopped && !this.paused) this.tick();
  }

  /**
   * Polls one agent as soon as possible (e.g. when a pairing was seen to complete). A poll already in
   * flight may have been answered before the change, so another one follows it at once.
   */
  pollSoon(teamId: string, agentId: string): void {
    const slot = this.slots.get(key(teamId, agentId));
    if (slot?.busy) slot.again = true;
    else if (slot) slot.dueAt = this.clock.now();
    this.refresh();
  }

  /** No new polls start; polls in flight finish and are reported. */
  pause(): void {
    if (this.paused || this.stopped) return;
    this.paused = true;
    this.clearTimer();
    for (const [teamId, queue] of this.queues) {
      this.queues.set(teamId, []);
      for (const job of queue) {
        job.slot.busy = false;
        this.finishCycleMember(job.cycle);
      }
    }
  }

  resume(): void {
    if (!this.paused || this.stopped) return;
    this.paused = false;
    if (this.started) this.tick();
  }

  /** Aborts polls in flight; resolves once every one of them has settled. Nothing is emitted after. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    this.queues.clear();
    this.stopController.abort(new Error('poller stopped'));
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  // ----- scheduling ---------------------------------------------------------------------------

  private tick(): void {
    this.clearTimer();
    if (this.stopped || this.paused) return;
    const now = this.clock.now();
    this.syncTargets(now);
    const due = [...this.slots.values()].filter((s) => !s.busy && s.dueAt <= now + this.cfg.coalesceMs);
    if (due.length > 0) {
      const cycle: Cycle = {
        id: ++this.cycleSeq,
        startedAt: now,
        draw: this.random(),
        pending: due.length,
        results: [],
      };
      const teams = new Set<string>();
      for (const slot of due) {
        slot.busy = true;
        const q = this.queues.get(slot.target.teamId) ?? [];
        q.push({ slot, cycle });
        this.queues.set(slot.target.teamId, q);
        teams.add(slot.target.teamId);
      }
      for (const t of teams) this.pump(t);
    }
    this.schedule();
  }

  private syncTargets(now: number): void {
    let targets: PollTarget[];
    try {
      targets = this.opts.targets();
    } catch {
      return;
    }
    const seen = new Set<string>();
    for (const t of targets) {
      const k = key(t.teamId, t.agentId);
      seen.add(k);
      if (!this.slots.has(k)) this.slots.set(k, { target: { teamId: t.teamId, agentId: t.agentId }, dueAt: now, failures: 0, busy: false, again: false });
    }
    for (const k of [...this.slots.keys()]) if (!seen.has(k)) this.slots.delete(k);
  }

  private schedule(): void {
    this.clearTimer();
    if (this.stopped || this.paused) return;
    const now = this.clock.now();
    let next = now + this.cfg.intervalMs; // re-read the targets at least this often
    for (const s of this.slots.values()) if (!s.busy && s.dueAt < next) next = s.dueAt;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.tick();
    }, Math.max(0, next - now));
  }

  private clearTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private pump(teamId: string): void {
    const queue = this.queues.get(teamId);
    if (!queue) return;
    while (!this.paused && !this.stopped && queue.length > 0 && (this.inFlight.get(teamId) ?? 0) < this.cfg.maxInFlightPerTeam) {
      const job = queue.shift()!;
      this.inFlight.set(teamId, (this.inFlight.get(teamId) ?? 0) + 1);
      const p = this.run(job).finally(() => {
        this.running.delete(p);
        this.inFlight.set(teamId, (this.inFlight.get(teamId) ?? 1) - 1);
        this.pump(teamId);
      });
      this.running.add(p);
    }
  }

  // ----- one poll -----------------------------------------------------------------------------

  private async run(job: Job): Promise<void> {
    const { slot, cycle } = job;
    const { teamId, agentId } = slot.target;
    const startedAt = this.clock.now();
    const controller = new AbortController();
    let timedOut = false;
    const onStop = () => controller.abort(this.stopController.signal.reason);
    this.stopController.signal.addEventListener('abort', onStop, { once: true });
    const timeout = this.clock.setTimeout(() => {
      timedOut = true;
      controller.abort(new Timeout({ message: `No answer within ${this.cfg.pollTimeoutMs} ms.` }));
    }, this.cfg.pollTimeoutMs);
    let status: SessionStatus | undefined;
    let error: unknown;
    try {
      status = await this.opts.readSession(teamId, agentId, controller.signal);
    } catch (err) {
      error = timedOut ? new Timeout({ message: `No answer within ${this.cfg.pollTimeoutMs} ms.`, cause: err }) : err;
    } finally {
      this.clock.clearTimeout(timeout);
      this.stopController.signal.removeEventListener('abort', onStop);
    }
    if (this.stopped) return;
    const at = this.clock.now();
    const next = this.nextDelay(slot, status, error, cycle.draw, at);
    const delay = slot.again ? 0 : next;
    slot.again = false;
    slot.busy = false;
    slot.dueAt = at + delay;
    const result: PollResult = { teamId, agentId, cycleId: cycle.id, startedAt, at, nextPollInMs: delay };
    if (status) result.status = status;
    else result.error = error;
    const current = this.slots.get(key(teamId, agentId));
    if (current === slot) {
      cycle.results.push(result);
      this.events.emit('poll', result);
    }
    this.finishCycleMember(cycle);
    this.schedule();
  }

  private nextDelay(slot: AgentSlot, status: SessionStatus | undefined, error: unknown, draw: number, now: number): number {
    if (status) {
      slot.failures = 0;
      return jittered(wantsFastPoll(status) ? this.cfg.fastIntervalMs : this.cfg.intervalMs, this.cfg.jitter, draw);
    }
    if (!isTransientError(error)) {
      // A definite answer (key rejected, agent not found): keep the normal pace.
      slot.failures = 0;
      return jittered(this.cfg.intervalMs, this.cfg.jitter, draw);
    }
    slot.failures++;
    let delay = backoffDelay(this.cfg.backoff, slot.failures, () => draw);
    if (error instanceof RateLimited) {
      // ASSUMPTION A-RATE: Retry-After (s), or X-RateLimit-Reset (unix s).
      const after = error.retryAfterSeconds(Math.floor(now / 1000));
      if (after !== undefined) delay = Math.max(delay, Math.ceil(after * 1000));
    }
    return delay;
  }

  private finishCycleMember(cycle: Cycle): void {
    cycle.pending--;
    if (cycle.pending > 0 || this.stopped) return;
    this.events.emit('cycle', { cycleId: cycle.id, startedAt: cycle.startedAt, at: this.clock.now(), results: cycle.results });
  }
}

function key(teamId: string, agentId: string): string {
  return `${teamId}\u0000${agentId}`;
}

const NUMERIC_SETTINGS = ['intervalMs', 'fastIntervalMs', 'jitter', 'maxInFlightPerTeam', 'pollTimeoutMs', 'coalesceMs'] as const;

/** The defaults, overridden by every usable option given (undefined or invalid ones ignored). */
function pollerConfig(opts: Partial<PollerConfig>): PollerConfig {
  const cfg = { ...DEFAULT_POLLER_CONFIG };
  for (const k of NUMERIC_SETTINGS) {
    const v = opts[k];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) cfg[k] = v;
  }
  if (opts.backoff && isBackoffPolicy(opts.backoff)) cfg.backoff = { ...opts.backoff };
  return cfg;
}
