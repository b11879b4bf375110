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
// reconnecting, and for `fastHoldMs` after (so a new drop of a number that just came back is seen at
// once); for `fastHoldMs` after any reading that is not connected following a connected one (a drop
// seen by one poll only, an unlink); and always for an agent watched closely (a target's
// `watchClosely`): at the interval, a drop shorter than about one interval can fall between two polls. After a failed poll the agent is tried again at the normal pace until it has failed
// `failuresBeforeBackoff` times in a row (that is when the monitor calls it unreachable, so an
// outage is known within two intervals of the first failure); then it backs off (POLL_BACKOFF, never
// sooner than the interval nor than a 429's Retry-After). While EVERY agent of a team backs off,
// one of them is probed each interval, and the first answer brings the whole team back at once: the
// service answering again is noticed within one interval. Concurrency is bounded per team (one API
// key each).
import { RateLimited, Timeout } from '../api/errors';
import type { SessionStatus } from '../api/types';
import { Deadlines } from '../deadlines';
import { backoffDelay, isBackoffPolicy, jittered, type BackoffPolicy } from '../backoff';
import { systemClock, type Clock, type Random } from '../ports';
import { Emitter, type Unsubscribe } from '../events';
import { isTransientError } from './health';

export interface PollTarget {
  teamId: string;
  agentId: string;
  /** Polled at the fast interval all the time (short drops are seen). */
  watchClosely?: boolean;
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
  /**
   * Agents due within this window are polled in the same cycle (pulled early by up to this much, so
   * agents polled together stay together despite their answers arriving a little apart). Default
   * 250: wider windows poll every agent noticeably more often than the interval.
   */
  coalesceMs?: number;
  /** Failed polls in a row before backing off (the monitor's unreachable threshold). Default 2. */
  failuresBeforeBackoff?: number;
  /** Fast polling goes on this long after the last status that asked for it. Default 30 000. */
  fastHoldMs?: number;
}

export type PollerConfig = Required<Omit<PollerOptions, 'targets' | 'readSession' | 'clock' | 'random'>>;

/** Waits after failed polls: 5 s doubling to 2 min, up to 10 % shorter. */
const POLL_BACKOFF: BackoffPolicy = { baseMs: 5_000, maxMs: 120_000, jitter: 0.1 };

const DEFAULT_POLLER_CONFIG: PollerConfig = {
  intervalMs: 15_000,
  fastIntervalMs: 2_000,
  jitter: 0.1,
  maxInFlightPerTeam: 8,
  backoff: POLL_BACKOFF,
  pollTimeoutMs: 10_000,
  coalesceMs: 250,
  failuresBeforeBackoff: 2,
  fastHoldMs: 30_000,
};

interface AgentSlot {
  target: PollTarget;
  dueAt: number;
  failures: number;
  busy: boolean;
  /** pollSoon() came while a poll was in flight: poll again as soon as it settles. */
  again: boolean;
  /** Poll fast until then (ms epoch). */
  fastUntil: number;
  /** The last status read said connected. */
  connected: boolean;
  /**
   * The abort controller of this agent's polls. One poll of an agent runs at a time and a call
   * leaves no listener on the signal once it settles, so the next poll takes the same controller
   * unless it was aborted (a timeout, or stop()).
   */
  controller: AbortController | null;
}

/** A team whose every agent backs off: one probe per interval, not before a 429's Retry-After. */
interface TeamProbe {
  /** When the next probe is due (ms epoch). */
  at: number;
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
  /** A target that is gone from targets(): nothing more is polled or reported for it. */
  removed: PollTarget;
}

/** A poll in flight. */
interface InFlight {
  controller: AbortController;
  timeoutMs: number;
  timedOut: boolean;
}

function timeOutPoll(f: InFlight): void {
  f.timedOut = true;
  f.controller.abort(new Timeout({ message: `No answer within ${f.timeoutMs} ms.` }));
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
  private readonly probes = new Map<string, TeamProbe>();
  /** Per team: no poll before then (a 429's Retry-After; rate limits are per API key). */
  private readonly notBefore = new Map<string, number>();
  private timerAt = Infinity;
  private syncedAt = -Infinity;
  private syncWanted = true;
  private readonly running = new Set<Promise<void>>();
  /** One per poll in flight: stop() aborts them. */
  private readonly flights = new Set<InFlight>();
  /** The polls' timeouts. */
  private readonly deadlines: Deadlines;
  private timer: unknown = null;
  private cycleSeq = 0;
  private started = false;
  private paused = false;
  private stopped = false;

  constructor(private readonly opts: PollerOptions) {
    this.cfg = pollerConfig(opts);
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.deadlines = new Deadlines(this.clock);
  }

  config(): PollerConfig {
    return { ...this.cfg, backoff: { ...this.cfg.backoff } };
  }

  /** New settings apply at once: an agent due later than a shorter interval allows is due sooner. */
  setConfig(patch: Partial<PollerConfig>): void {
    Object.assign(this.cfg, pollerConfig({ ...this.cfg, ...patch }));
    const latest = this.clock.now() + this.cfg.intervalMs;
    for (const s of this.slots.values()) if (!s.busy && s.failures === 0 && s.dueAt > latest) s.dueAt = latest;
    this.refresh();
  }

  onPoll(fn: (r: PollResult) => void): Unsubscribe {
    return this.events.on('poll', fn);
  }

  onCycle(fn: (c: PollCycle) => void): Unsubscribe {
    return this.events.on('cycle', fn);
  }

  onRemoved(fn: (t: PollTarget) => void): Unsubscribe {
    return this.events.on('removed', fn);
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
    this.syncWanted = true;
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
    const reason = new Error('poller stopped');
    for (const f of this.flights) f.controller.abort(reason);
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  // ----- scheduling ---------------------------------------------------------------------------

  private tick(): void {
    this.clearTimer();
    if (this.stopped || this.paused) return;
    const now = this.clock.now();
    // The targets are re-read on refresh() and at least once per interval (not on every tick).
    if (this.syncWanted || now - this.syncedAt >= this.cfg.intervalMs) this.syncTargets(now);
    this.probeTeams(now);
    const due: AgentSlot[] = [];
    const horizon = now + this.cfg.coalesceMs;
    for (const s of this.slots.values()) if (!s.busy && s.dueAt <= horizon) due.push(s);
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
    this.syncedAt = now;
    this.syncWanted = false;
    const seen = new Set<string>();
    for (const t of targets) {
      const k = key(t.teamId, t.agentId);
      seen.add(k);
      const closely = t.watchClosely === true;
      const slot = this.slots.get(k);
      if (!slot) {
        this.slots.set(k, {
          target: { teamId: t.teamId, agentId: t.agentId, watchClosely: closely },
          dueAt: now,
          failures: 0,
          busy: false,
          fastUntil: 0,
          connected: false,
          again: false,
          controller: null,
        });
      } else if (slot.target.watchClosely !== closely) {
        slot.target.watchClosely = closely;
        // Watched closely from now: the next poll comes within the fast interval.
        if (closely && !slot.busy && slot.failures === 0)
          slot.dueAt = Math.min(slot.dueAt, now + this.cfg.fastIntervalMs);
      }
    }
    for (const [k, slot] of this.slots) {
      if (seen.has(k)) continue;
      this.slots.delete(k);
      this.events.emit('removed', slot.target);
    }
  }

  /** Each team whose agents all back off gets the one due soonest polled each interval. */
  private probeTeams(now: number): void {
    if (this.probes.size === 0) return;
    const threshold = Math.max(1, this.cfg.failuresBeforeBackoff);
    for (const [teamId, probe] of this.probes) {
      let next: AgentSlot | null = null;
      let all = true;
      let members = 0;
      for (const s of this.slots.values()) {
        if (s.target.teamId !== teamId) continue;
        members++;
        if (s.failures < threshold) all = false;
        else if (!s.busy && (!next || s.dueAt < next.dueAt)) next = s;
      }
      if (!all || members === 0) {
        this.probes.delete(teamId);
        continue;
      }
      probe.at = Math.max(probe.at, this.notBefore.get(teamId) ?? 0);
      if (probe.at <= now && next) {
        if (next.dueAt > now) next.dueAt = now;
        probe.at = now + this.cfg.intervalMs;
      }
    }
  }

  private schedule(): void {
    this.clearTimer();
    if (this.stopped || this.paused) return;
    const now = this.clock.now();
    let next = now + this.cfg.intervalMs; // re-read the targets at least this often
    for (const s of this.slots.values()) if (!s.busy && s.dueAt < next) next = s.dueAt;
    for (const p of this.probes.values()) if (p.at < next) next = p.at;
    this.timerAt = Math.max(next, now);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.tick();
    }, this.timerAt - now);
  }

  /** A poll settled: its agent is due at `dueAt`; the timer moves only when that is sooner. */
  private scheduleFor(dueAt: number): void {
    if (this.stopped || this.paused) return;
    if (this.timer === null || dueAt < this.timerAt) this.schedule();
  }

  private clearTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private pump(teamId: string): void {
    const queue = this.queues.get(teamId);
    if (!queue) return;
    while (
      !this.paused &&
      !this.stopped &&
      queue.length > 0 &&
      (this.inFlight.get(teamId) ?? 0) < this.cfg.maxInFlightPerTeam
    ) {
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
    if (slot.controller === null || slot.controller.signal.aborted) slot.controller = new AbortController();
    const flight: InFlight = { controller: slot.controller, timeoutMs: this.cfg.pollTimeoutMs, timedOut: false };
    this.flights.add(flight);
    const timeout = this.deadlines.add(flight.timeoutMs, timeOutPoll, flight);
    let status: SessionStatus | undefined;
    let error: unknown;
    try {
      status = await this.opts.readSession(teamId, agentId, flight.controller.signal);
    } catch (err) {
      error = flight.timedOut ? new Timeout({ message: `No answer within ${flight.timeoutMs} ms.`, cause: err }) : err;
    } finally {
      timeout.cancel();
      this.flights.delete(flight);
    }
    if (this.stopped) return;
    const at = this.clock.now();
    const wasBackingOff = slot.failures >= Math.max(1, this.cfg.failuresBeforeBackoff);
    const next = this.nextDelay(slot, status, error, cycle.draw, at);
    const delay = slot.again ? 0 : next;
    slot.again = false;
    slot.busy = false;
    slot.dueAt = at + delay;
    // The service answers again after the whole team backed off: everyone is looked at now.
    if (wasBackingOff && slot.failures === 0 && this.probes.has(teamId)) this.wakeTeam(teamId, at);
    else if (!wasBackingOff && slot.failures >= Math.max(1, this.cfg.failuresBeforeBackoff))
      this.startProbe(teamId, at);
    const result: PollResult = { teamId, agentId, cycleId: cycle.id, startedAt, at, nextPollInMs: delay };
    if (status) result.status = status;
    else result.error = error;
    const current = this.slots.get(key(teamId, agentId));
    if (current === slot) {
      cycle.results.push(result);
      this.events.emit('poll', result);
    }
    this.finishCycleMember(cycle);
    this.scheduleFor(slot.dueAt);
  }

  /** The last agent of a team to back off starts the team's probe: first one interval from now. */
  private startProbe(teamId: string, now: number): void {
    if (this.probes.has(teamId)) return;
    const threshold = Math.max(1, this.cfg.failuresBeforeBackoff);
    for (const s of this.slots.values()) if (s.target.teamId === teamId && s.failures < threshold) return;
    this.probes.set(teamId, { at: now + this.cfg.intervalMs });
  }

  private wakeTeam(teamId: string, now: number): void {
    this.probes.delete(teamId);
    for (const s of this.slots.values())
      if (s.target.teamId === teamId && s.failures > 0 && !s.busy && s.dueAt > now) s.dueAt = now;
    this.schedule();
  }

  private nextDelay(
    slot: AgentSlot,
    status: SessionStatus | undefined,
    error: unknown,
    draw: number,
    now: number,
  ): number {
    const interval = jittered(this.cfg.intervalMs, this.cfg.jitter, draw);
    if (status) {
      slot.failures = 0;
      if (wantsFastPoll(status) || (slot.connected && !status.connected)) slot.fastUntil = now + this.cfg.fastHoldMs;
      slot.connected = status.connected;
      const fast = now < slot.fastUntil || wantsFastPoll(status) || slot.target.watchClosely === true;
      return fast ? jittered(this.cfg.fastIntervalMs, this.cfg.jitter, draw) : interval;
    }
    if (!isTransientError(error)) {
      // A definite answer (key rejected, agent not found): keep the normal pace.
      slot.failures = 0;
      return interval;
    }
    slot.failures++;
    const retries = slot.failures - Math.max(1, this.cfg.failuresBeforeBackoff) + 1;
    let delay =
      retries < 1
        ? interval
        : Math.max(
            interval,
            backoffDelay(this.cfg.backoff, retries, () => draw),
          );
    if (error instanceof RateLimited) {
      // ASSUMPTION A-RATE: Retry-After (s), or X-RateLimit-Reset (unix s); the limit is the team's key.
      const after = error.retryAfterSeconds(Math.floor(now / 1000));
      if (after !== undefined) {
        delay = Math.max(delay, Math.ceil(after * 1000));
        this.notBefore.set(
          slot.target.teamId,
          Math.max(this.notBefore.get(slot.target.teamId) ?? 0, now + Math.ceil(after * 1000)),
        );
      }
    }
    return delay;
  }

  private finishCycleMember(cycle: Cycle): void {
    cycle.pending--;
    if (cycle.pending > 0 || this.stopped) return;
    this.events.emit('cycle', {
      cycleId: cycle.id,
      startedAt: cycle.startedAt,
      at: this.clock.now(),
      results: cycle.results,
    });
  }
}

function key(teamId: string, agentId: string): string {
  return `${teamId}\u0000${agentId}`;
}

const NUMERIC_SETTINGS = [
  'intervalMs',
  'fastIntervalMs',
  'jitter',
  'maxInFlightPerTeam',
  'pollTimeoutMs',
  'coalesceMs',
  'failuresBeforeBackoff',
  'fastHoldMs',
] as const;

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
