// The channel monitor: poller → health (per agent, with the failure threshold) → alert policy (one
// batch per poll cycle) → alerts to listeners and sinks; every change kept in the timeline.
import { join } from 'node:path';
import type { ServiceErrorDTO } from '../api/errors';
import type { SessionStatus } from '../api/types';
import { silentLogger, systemClock, type Clock, type Logger, type Random } from '../ports';
import { formatDiagnostics } from './diagnostics';
import { Emitter, type Unsubscribe } from '../events';
import { HealthTracker, errorToDTO, healthOfStatus, type Health } from './health';
import { AlertPolicy, type IncidentUpdate, type PolicyOutput } from './policy';
import { OPEN_INCIDENTS_FILE, OpenIncidentsFile, readOpenIncidents } from './open-incidents';
import { SAME_OUTAGE_MS, SHARED_ACTIONS_FILE, SharedActions, type SharedAction } from './shared-actions';
import {
  Poller,
  type PollCycle,
  type PollResult,
  type PollTarget,
  type PollerConfig,
  type ReadSession,
} from './poller';
import type { AlertSink } from './sinks';
import { snoozeEnd } from './time';
import { Timeline, storedStatus, type TimelineEntry } from './timeline';
import {
  systemLocalTime,
  type AgentSnapshot,
  type Alert,
  type AlertRules,
  type HealthChange,
  type Incident,
  type LocalTime,
  type QuietHours,
  type SnoozePreset,
  type TeamJudge,
} from './types';

export interface HealthEvent {
  teamId: string;
  agentId: string;
  health: Health;
  previous: Health;
  state: string | null;
  status?: SessionStatus;
  error?: ServiceErrorDTO;
  /** ms epoch of this change. */
  since: number;
}

export interface MonitorEvents {
  health: HealthEvent;
  alert: Alert;
  incident: IncidentUpdate;
  poll: PollResult;
  /** An agent no longer watched (gone from the targets). */
  removed: PollTarget;
  /** An agent no longer watched here because another watcher polls it now (after `removed`). */
  released: PollTarget;
  /** The snooze was set or ended, here or in another app on the data folder; `until` is null when none is in force. */
  snooze: { until: number | null };
  /** A change seen by a poll, as the agent's timeline keeps it (not the 'unknown' a stop records). */
  timeline: TimelineEntry;
}

export interface MonitorStatus {
  snoozedUntil: number | null;
  quietHours: QuietHours | null;
  quietNow: boolean;
  paused: boolean;
  rules: AlertRules;
}

export interface MonitorOptions {
  targets: () => PollTarget[];
  /** The app passes (teamId, agentId, signal) => teamStore.clientFor(teamId).getSession(agentId, { signal }). */
  readSession: ReadSession;
  clock?: Clock;
  random?: Random;
  localTime?: LocalTime;
  logger?: Logger;
  /**
   * Directory of the per-agent timeline files and of the incidents open now (taken up again by the
   * next start); null or absent keeps both in memory.
   */
  dataDir?: string | null;
  timelineMaxEntries?: number;
  rules?: Partial<AlertRules>;
  poll?: Partial<PollerConfig>;
  sinks?: AlertSink[];
  /** Prefix of incident/alert ids; default derived from the start time. */
  idPrefix?: string;
  /**
   * Whether this monitor keeps the timeline and open-incident files now (default: always). Two apps on
   * one data folder both watch; only one keeps the files (see takeOverFiles).
   */
  keepsFiles?: () => boolean;
  /** A team's label for alert words (default: its id). */
  teamLabel?: (teamId: string) => string;
  /**
   * Whether an agent gone from targets() is still watched elsewhere (another hub replica polls it now):
   * then its state and open incident are dropped here without a word (the incident goes on there, see
   * takeUp), not closed as removed. Default: never.
   */
  watchedElsewhere?: (t: PollTarget) => boolean;
  /**
   * Who judges a team's team-wide incidents when other watchers poll some of its agents (a hub replica):
   * see judgeTeams. Default: this monitor, over the agents it polls.
   */
  teamJudge?: TeamJudge;
}

/** What the monitor tracks per watched agent. */
interface WatchedAgent {
  teamId: string;
  agentId: string;
  tracker: HealthTracker;
  lastPollAt: number | null;
  /** The last poll the service answered with a session status. */
  lastSuccessAt: number | null;
  lastError?: ServiceErrorDTO;
}

/** What the app that takes over posting the alerts tells the team's channels (Monitor.takeOverFiles). */
export interface Handover {
  /** Raised incidents open here that the app that posted before did not have open. */
  unposted: Incident[];
  /** Incidents the app that posted before had open and this monitor sees recovered. */
  recovered: Incident[];
  /** The alerts that tell them (none when snoozed or in quiet hours). */
  alerts: Alert[];
}

type Trouble = Pick<Incident, 'teamId' | 'kind' | 'agentId'>;

/** How often the other apps' acknowledgements and snoozes are read. */
const SHARED_READ_MS = 2_000;

/** Monitors made in this process (with the pid, names this app in the shared actions). */
let monitorsMade = 0;

/** Two incidents (of two apps) about the same trouble: one team, one kind, one agent (or both team-wide). */
function sameTrouble(a: Trouble, b: Trouble): boolean {
  return a.teamId === b.teamId && a.kind === b.kind && a.agentId === b.agentId;
}

export class Monitor {
  private readonly clock: Clock;
  private readonly local: LocalTime;
  private readonly log: Logger;
  private readonly events: Emitter<MonitorEvents>;
  private readonly poller: Poller;
  private readonly policy: AlertPolicy;
  private readonly timelineStore: Timeline;
  private readonly agents = new Map<string, WatchedAgent>();
  private readonly cycleChanges = new Map<number, { changes: HealthChange[]; entries: TimelineEntry[] }>();
  private readonly sinks = new Set<AlertSink>();
  private readonly deliveries = new Set<Promise<void>>();
  private readonly openFile: OpenIncidentsFile | null;
  /** Acknowledgements and snoozes shared with the other apps on the data folder (shared-actions.ts). */
  private readonly shared: SharedActions | null;
  /** When the snooze in force was set (here or in another app): an older one read later does not undo it. */
  private snoozeSetAt = -Infinity;
  private sharedTimer: unknown = null;
  /** The latest read of the other apps' actions, applied when it ends. */
  private sharedRead: Promise<void> = Promise.resolve();
  /** Incidents taken up from the previous run whose agents are not yet known to be watched still. */
  private restored: Incident[] = [];
  private wakeTimer: unknown = null;
  private stopped = false;

  constructor(private readonly opts: MonitorOptions) {
    this.clock = opts.clock ?? systemClock;
    this.local = opts.localTime ?? systemLocalTime;
    this.log = opts.logger ?? silentLogger;
    this.events = new Emitter<MonitorEvents>((err) => this.log.warn('monitor listener failed', { error: String(err) }));
    this.policy = new AlertPolicy({
      rules: opts.rules,
      localTime: this.local,
      idPrefix: opts.idPrefix ?? `${this.clock.now().toString(36)}-`,
      ...(opts.teamLabel ? { teamLabel: opts.teamLabel } : {}),
      ...(opts.teamJudge ? { teamJudge: opts.teamJudge } : {}),
    });
    this.timelineStore = new Timeline({
      dataDir: opts.dataDir ?? null,
      maxEntries: opts.timelineMaxEntries,
      onError: (err) => this.log.warn('timeline write failed', { error: String(err) }),
      ...(opts.keepsFiles ? { writable: opts.keepsFiles } : {}),
    });
    this.poller = new Poller({
      ...pollerRules(this.policy.getRules()),
      ...opts.poll,
      targets: opts.targets,
      readSession: opts.readSession,
      clock: this.clock,
      random: opts.random,
    });
    this.poller.onPoll((r) => this.onPoll(r));
    this.poller.onCycle((c) => this.onCycle(c));
    // An agent no longer watched: its incidents close silently.
    this.poller.onRemoved((t) => {
      if (this.stopped || !this.agents.delete(key(t.teamId, t.agentId))) return;
      this.events.emit('removed', t);
      if (opts.watchedElsewhere?.(t)) {
        this.policy.release(t.teamId, t.agentId);
        this.openFile?.save(this.policy.openIncidents());
        this.events.emit('released', t);
        return;
      }
      this.handle(this.policy.forget(t.teamId, t.agentId, this.clock.now()));
    });
    for (const s of opts.sinks ?? []) this.sinks.add(s);
    const dataDir = opts.dataDir ?? null;
    const onFileError = (err: unknown) => this.log.warn('open incidents not kept', { error: String(err) });
    this.openFile =
      dataDir === null ? null : new OpenIncidentsFile(join(dataDir, OPEN_INCIDENTS_FILE), onFileError, opts.keepsFiles);
    if (dataDir !== null) {
      this.restored = readOpenIncidents(join(dataDir, OPEN_INCIDENTS_FILE), onFileError);
      this.policy.restore(this.restored);
    }
    this.shared =
      dataDir === null
        ? null
        : new SharedActions(join(dataDir, SHARED_ACTIONS_FILE), `${process.pid}.${++monitorsMade}`, (err) =>
            this.log.warn('acknowledgements and snoozes not shared with the other apps on the data folder', {
              error: String(err),
            }),
          );
    // A snooze set in another app before this one started, still in force, holds here too.
    const held = this.shared?.snoozeAtStart;
    if (held && held.until !== null && held.until > this.clock.now()) {
      this.snoozeSetAt = held.at;
      this.policy.snooze(held.until, this.clock.now());
    }
  }

  // ----- lifecycle ----------------------------------------------------------------------------

  start(): void {
    this.closeRemoved();
    this.poller.start();
    this.scheduleWake();
    this.scheduleSharedRead();
  }

  /** Reads the other apps' actions every SHARED_READ_MS while running (whether or not anything is polled). */
  private scheduleSharedRead(): void {
    if (this.shared === null || this.stopped) return;
    this.sharedTimer = this.clock.setTimeout(() => {
      this.sharedTimer = null;
      this.sharedRead = this.shared!.readNew()
        .then((list) => this.applyShared(list))
        .finally(() => this.scheduleSharedRead());
    }, SHARED_READ_MS);
  }

  pause(): void {
    this.poller.pause();
  }

  resume(): void {
    this.poller.resume();
  }

  /** Re-reads the targets (after an agent was added or removed) and polls what is due. */
  refresh(): void {
    this.closeRemoved();
    this.poller.refresh();
  }

  /** Polls one agent now (e.g. right after a pairing was started). */
  pollSoon(teamId: string, agentId: string): void {
    this.poller.pollSoon(teamId, agentId);
  }

  /** New poll settings (intervals…), applied at once; health, incidents and snooze are kept. */
  setPollConfig(patch: Partial<PollerConfig>): void {
    this.poller.setConfig(patch);
  }

  pollConfig(): PollerConfig {
    return this.poller.config();
  }

  /** Aborts polls in flight and waits for them, records 'unknown' in each polled agent's timeline, waits for pending writes and sink deliveries. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.wakeTimer !== null) this.clock.clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (this.sharedTimer !== null) this.clock.clearTimeout(this.sharedTimer);
    this.sharedTimer = null;
    await this.poller.stop();
    // From now on nothing is seen: each agent's timeline says so (availability does not count it).
    // (A monitor that does not keep the files says so in memory only: the one that does goes on watching.)
    const at = this.clock.now();
    for (const a of this.agents.values()) {
      const health = a.tracker.current().health;
      if (health !== 'unknown')
        void this.timelineStore.record({
          at,
          teamId: a.teamId,
          agentId: a.agentId,
          from: health,
          to: 'unknown',
          state: null,
        });
    }
    await this.flush();
  }

  /**
   * This monitor keeps the files from now on (the app that kept them stopped): the timelines are read
   * again from the files, each agent whose file does not end in what this monitor sees now gets an
   * entry saying so (an app that stopped last wrote `unknown`), and the open incidents are written.
   * Answers what the team's channels were not told by the app that posted before (the open-incident
   * file it left says what it had open): the incidents open here that it did not have, and those it
   * had that this monitor sees recovered (an agent incident whose agent polls connected here), with
   * the alerts that tell them (AlertPolicy.handoverAlerts). Its incidents of the same outages as the file's
   * take their incident groups (AlertPolicy.adoptGroups). Without a data folder: nothing to hand over.
   */
  async takeOverFiles(): Promise<Handover> {
    const none: Handover = { unposted: [], recovered: [], alerts: [] };
    if (this.stopped || this.openFile === null) return none;
    await this.timelineStore.reload();
    const at = this.clock.now();
    for (const a of this.agents.values()) {
      const now = a.tracker.current();
      if (now.health === 'unknown') continue;
      const last = (await this.timelineStore.list(a.agentId)).filter((e) => e.teamId === a.teamId).at(-1);
      if (last?.to === now.health) continue;
      void this.timelineStore.record({
        at,
        teamId: a.teamId,
        agentId: a.agentId,
        from: last?.to ?? 'unknown',
        to: now.health,
        state: now.state ?? null,
      });
    }
    const before = readOpenIncidents(this.openFile.file, (err) =>
      this.log.warn('open incidents of the app that posted before not read', { error: String(err) }),
    );
    // The incident groups the app that posted before gave the same outages: Alertmanager's labels stay its.
    const groups = new Map<string, string>();
    for (const i of this.policy.openIncidents()) {
      const b = before.find((x) => sameTrouble(x, i) && Math.abs(x.openedAt - i.openedAt) <= SAME_OUTAGE_MS);
      if (b?.group !== undefined) groups.set(i.id, b.group);
    }
    if (groups.size > 0) this.handle(this.policy.adoptGroups(groups, at));
    const open = this.policy.openIncidents();
    const unposted = open.filter((i) => i.raised && !before.some((b) => sameTrouble(b, i)));
    const recovered = before.filter(
      (b) =>
        b.raised &&
        b.agentId !== null &&
        !open.some((i) => sameTrouble(b, i)) &&
        this.agents.get(key(b.teamId, b.agentId))?.tracker.current().health === 'connected',
    );
    this.openFile.save(open);
    await this.flush();
    return { unposted, recovered, alerts: this.policy.handoverAlerts(unposted, recovered, at) };
  }

  /**
   * Takes up incidents another watcher had open (a hub replica that polled these agents before): each
   * goes on here with its id and start, so the first poll that sees the same trouble raises nothing
   * again. Called before the agents are polled here.
   */
  takeUp(incidents: Incident[]): void {
    if (this.stopped || incidents.length === 0) return;
    const copies = incidents.map((i) => ({ ...i, agentIds: [...i.agentIds] }));
    this.policy.restore(copies);
    // Told as updated, not opened: what follows the incidents (Alertmanager, the screens) carries them on.
    const open = new Set(this.policy.openIncidents());
    this.handle({
      alerts: [],
      incidents: copies.filter((i) => open.has(i)).map((i) => ({ change: 'updated', incident: i })),
    });
  }

  /**
   * Judges the teams' team-wide incidents again (MonitorOptions.teamJudge): call when the agents polled
   * elsewhere changed, or which teams this monitor judges did.
   */
  judgeTeams(teamIds: Iterable<string>): void {
    if (this.stopped) return;
    this.handle(this.policy.judgeTeams(teamIds, this.clock.now()));
  }

  /**
   * Takes up team-wide incidents another watcher judged (it judges the team no more): each goes on here
   * with its id and start. Called before this monitor judges the team.
   */
  takeUpTeams(incidents: Incident[]): void {
    if (this.stopped || incidents.length === 0) return;
    const copies = incidents.map((i) => ({ ...i, agentIds: [...i.agentIds] }));
    this.policy.restoreTeams(copies);
    const open = new Set(this.policy.openIncidents());
    this.handle({
      alerts: [],
      incidents: copies.filter((i) => open.has(i)).map((i) => ({ change: 'updated', incident: i })),
    });
  }

  /** Waits for pending timeline writes and sink deliveries. */
  async flush(): Promise<void> {
    await this.timelineStore.flush();
    await this.openFile?.flush();
    await this.shared?.flush();
    await this.sharedRead;
    while (this.deliveries.size > 0) await Promise.allSettled([...this.deliveries]);
  }

  on<K extends keyof MonitorEvents>(event: K, fn: (payload: MonitorEvents[K]) => void): Unsubscribe {
    return this.events.on(event, fn);
  }

  addSink(sink: AlertSink): Unsubscribe {
    this.sinks.add(sink);
    return () => {
      this.sinks.delete(sink);
    };
  }

  // ----- reading ------------------------------------------------------------------------------

  snapshot(): AgentSnapshot[] {
    const live = new Set(this.targetKeys());
    const out: AgentSnapshot[] = [];
    for (const [k, a] of this.agents) if (live.has(k)) out.push(snapshotOf(a));
    return out;
  }

  /** One watched agent's snapshot (null before its first poll). */
  snapshotOf(teamId: string, agentId: string): AgentSnapshot | null {
    const a = this.agents.get(key(teamId, agentId));
    return a ? snapshotOf(a) : null;
  }

  /** Open incidents, newest first. */
  incidents(): Incident[] {
    return this.policy.openIncidents().map((i) => ({ ...i, agentIds: [...i.agentIds] }));
  }

  timeline(agentId: string): Promise<TimelineEntry[]> {
    return this.timelineStore.list(agentId);
  }

  /** Plain text for hand-offs ("copy diagnostics"); all watched agents when none are named. */
  async exportDiagnostics(agentIds?: string[]): Promise<string> {
    const snaps = this.snapshot().filter((s) => !agentIds || agentIds.includes(s.agentId));
    const open = this.policy.openIncidents();
    const agents = await Promise.all(
      snaps.map(async (snapshot) => ({
        snapshot,
        incidents: open.filter(
          (i) =>
            i.teamId === snapshot.teamId &&
            (i.agentId === snapshot.agentId || (i.agentId === null && i.agentIds.includes(snapshot.agentId))),
        ),
        entries: await this.timelineStore.list(snapshot.agentId),
      })),
    );
    return formatDiagnostics({ now: this.clock.now(), agents });
  }

  status(): MonitorStatus {
    const now = this.clock.now();
    const rules = this.policy.getRules();
    return {
      snoozedUntil: this.policy.snoozedUntilAt(now),
      quietHours: rules.quietHours,
      quietNow: this.policy.isQuiet(now),
      paused: this.poller.isPaused,
      rules,
    };
  }

  rules(): AlertRules {
    return this.policy.getRules();
  }

  // ----- person actions -----------------------------------------------------------------------

  /** Acknowledges an incident by id, or every open incident of an agent (by `by` when named). Returns how many. */
  acknowledge(target: string | { agentId: string; teamId?: string }, by?: string): number {
    const now = this.clock.now();
    const { count, output } = this.policy.acknowledge(target, now, by);
    this.share(output, now);
    this.handle(output);
    return count;
  }

  acknowledgeAll(by?: string): number {
    const now = this.clock.now();
    const { count, output } = this.policy.acknowledgeAll(now, by);
    this.share(output, now);
    this.handle(output);
    return count;
  }

  /** The incidents a person acknowledged here, for the other apps on the data folder. */
  private share(out: PolicyOutput, now: number): void {
    this.shared?.write(
      out.incidents
        .filter((u) => u.change === 'updated' && u.incident.acknowledgedAt === now)
        .map(({ incident: i }) => ({
          type: 'acknowledge' as const,
          at: now,
          teamId: i.teamId,
          agentId: i.agentId,
          kind: i.kind,
          openedAt: i.openedAt,
        })),
    );
  }

  /**
   * Actions made in another app: an acknowledgement applies to this app's incident about the same
   * outage; a snooze (or its end) applies unless one set here since is newer.
   */
  private applyShared(actions: SharedAction[]): void {
    for (const a of actions) {
      if (this.stopped) return;
      if (a.type === 'snooze') {
        if (a.at < this.snoozeSetAt) continue;
        this.snoozeSetAt = a.at;
        this.handle(this.policy.snooze(a.until, this.clock.now()));
        this.events.emit('snooze', { until: this.policy.snoozedUntilAt(this.clock.now()) });
        continue;
      }
      const inc = this.policy
        .openIncidents()
        .find(
          (i) => i.acknowledgedAt === null && sameTrouble(i, a) && Math.abs(i.openedAt - a.openedAt) <= SAME_OUTAGE_MS,
        );
      if (inc) this.handle(this.policy.acknowledge(inc.id, this.clock.now()).output);
    }
  }

  /** Suppresses alerts until `until` (ms epoch); null ends the snooze. Monitoring goes on. */
  snooze(until: number | null): void {
    this.setSnooze(until, this.clock.now());
  }

  /** Snooze presets: 'short' (15 min), 'long' (1 h), 'tomorrow' (08:00 local), or N minutes. Returns the end. */
  snoozeFor(preset: SnoozePreset | { minutes: number }): number {
    const now = this.clock.now();
    const until = snoozeEnd(preset, now, this.policy.getRules(), this.local);
    this.setSnooze(until, now);
    return until;
  }

  /** A snooze set (or ended) here: applied, told, and shared with the other apps on the data folder. */
  private setSnooze(until: number | null, now: number): void {
    this.snoozeSetAt = now;
    this.handle(this.policy.snooze(until, now));
    this.shared?.write([{ type: 'snooze', at: now, until }]);
    this.events.emit('snooze', { until: this.policy.snoozedUntilAt(now) });
  }

  setQuietHours(q: QuietHours | null): void {
    this.setRules({ quietHours: q });
  }

  setRules(patch: Partial<AlertRules>): void {
    this.handle(this.policy.setRules(patch, this.clock.now()));
    const r = this.policy.getRules();
    for (const a of this.agents.values())
      a.tracker.setThreshold({ failures: r.unreachableAfterFailures, seconds: r.unreachableAfterSec });
    this.poller.setConfig(pollerRules(r));
  }

  // ----- internals ----------------------------------------------------------------------------

  private targetKeys(): string[] {
    try {
      return this.opts.targets().map((t) => key(t.teamId, t.agentId));
    } catch {
      return [...this.agents.keys()];
    }
  }

  /** Incidents taken up from the previous run whose agent is no longer watched close as removed (no notice). */
  private closeRemoved(): void {
    if (this.restored.length === 0) return;
    let live: Set<string>;
    try {
      live = new Set(this.opts.targets().map((t) => key(t.teamId, t.agentId)));
    } catch {
      return; // tried again at the next refresh
    }
    const now = this.clock.now();
    for (const inc of this.restored)
      for (const agentId of inc.agentIds)
        if (!live.has(key(inc.teamId, agentId))) this.handle(this.policy.forget(inc.teamId, agentId, now));
    this.restored = [];
  }

  private onPoll(r: PollResult): void {
    if (this.stopped) return;
    const k = key(r.teamId, r.agentId);
    let a = this.agents.get(k);
    if (!a) {
      const rules = this.policy.getRules();
      a = {
        teamId: r.teamId,
        agentId: r.agentId,
        tracker: new HealthTracker(
          { failures: rules.unreachableAfterFailures, seconds: rules.unreachableAfterSec },
          r.at,
        ),
        lastPollAt: null,
        lastSuccessAt: null,
      };
      this.agents.set(k, a);
    }
    a.lastPollAt = r.at;
    if (r.status) a.lastSuccessAt = r.at;
    const obs = a.tracker.observe(r.status ? { status: r.status } : { error: r.error }, r.at);
    if (r.error !== undefined) a.lastError = errorToDTO(r.error);
    else delete a.lastError;
    this.events.emit('poll', r);
    if (!obs.changed && !obs.stateChanged) return;
    const reading = obs.reading;
    const bucket = this.cycleChanges.get(r.cycleId) ?? { changes: [], entries: [] };
    this.cycleChanges.set(r.cycleId, bucket);
    const entry: TimelineEntry = {
      at: r.at,
      teamId: r.teamId,
      agentId: r.agentId,
      from: obs.previous,
      to: reading.health,
      state: reading.state,
    };
    if (r.status) entry.status = storedStatus(r.status);
    if (a.lastError) entry.error = a.lastError;
    bucket.entries.push(entry);
    if (!obs.changed) return;
    bucket.changes.push({
      teamId: r.teamId,
      agentId: r.agentId,
      from: obs.previous,
      to: reading.health,
      at: r.at,
      lastGoodAt: obs.lastGoodAt,
      pairing: reading.pairing,
      phone: reading.phone,
    });
    const ev: HealthEvent = {
      teamId: r.teamId,
      agentId: r.agentId,
      health: reading.health,
      previous: obs.previous,
      state: reading.state,
      since: reading.since,
    };
    if (r.status) ev.status = r.status;
    if (a.lastError) ev.error = a.lastError;
    this.events.emit('health', ev);
  }

  private onCycle(c: PollCycle): void {
    if (this.stopped) return;
    const bucket = this.cycleChanges.get(c.cycleId);
    this.cycleChanges.delete(c.cycleId);
    const now = this.clock.now();
    if (bucket && bucket.changes.length > 0) this.handle(this.policy.ingest(bucket.changes, now));
    for (const e of bucket?.entries ?? []) {
      const inc = this.policy.openIncidentFor(e.teamId, e.agentId);
      const entry = inc ? { ...e, incidentId: inc.id } : e;
      void this.timelineStore.record(entry);
      this.events.emit('timeline', entry);
    }
  }

  private handle(out: PolicyOutput): void {
    if (this.openFile && (out.incidents.length > 0 || out.alerts.length > 0))
      this.openFile.save(this.policy.openIncidents());
    for (const u of out.incidents) this.events.emit('incident', u);
    for (const alert of out.alerts) {
      this.events.emit('alert', alert);
      for (const sink of this.sinks) {
        const p = sink
          .deliver(alert)
          .catch((err: unknown) => this.log.warn('alert sink failed', { error: String(err) }))
          .finally(() => this.deliveries.delete(p));
        this.deliveries.add(p);
      }
    }
    this.scheduleWake();
  }

  private scheduleWake(): void {
    if (this.wakeTimer !== null) this.clock.clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (this.stopped) return;
    const now = this.clock.now();
    const at = this.policy.nextWakeAt(now);
    if (at === null) return;
    this.wakeTimer = this.clock.setTimeout(
      () => {
        this.wakeTimer = null;
        if (!this.stopped) this.handle(this.policy.tick(this.clock.now()));
      },
      Math.max(0, at - now),
    );
  }
}

function snapshotOf(a: WatchedAgent): AgentSnapshot {
  const r = a.tracker.current();
  const s = r.lastStatus;
  const snap: AgentSnapshot = {
    teamId: a.teamId,
    agentId: a.agentId,
    health: r.health,
    state: r.state,
    phone: r.phone,
    needsScan: s?.needsScan ?? false,
    connected: s?.connected ?? false,
    linked: s?.linked ?? false,
    pairing: r.pairing,
    since: r.since,
    lastPollAt: a.lastPollAt,
    lastSuccessAt: a.lastSuccessAt,
    consecutiveFailures: r.consecutiveFailures,
  };
  if (s) snap.lastKnown = healthOfStatus(s);
  if (a.lastError) snap.lastError = a.lastError;
  return snap;
}

function key(teamId: string, agentId: string): string {
  return `${teamId}\u0000${agentId}`;
}

/** What the poller takes from the alert rules: back off once an agent is unreachable; poll fast while a drop may not be over. */
function pollerRules(r: AlertRules): Pick<PollerConfig, 'failuresBeforeBackoff' | 'fastHoldMs'> {
  return { failuresBeforeBackoff: r.unreachableAfterFailures, fastHoldMs: r.recoverAfterSec * 1000 };
}
