// The companion's shape: what a shell gives it (CompanionOptions), what it tells (CompanionEvents) and what
// it offers (Companion). The composition is companion.ts; its parts are the other files of this folder.
import type { Dispatcher } from 'undici';
import type { ServiceClient } from '../../core/api/service';
import type {
  AgentLabelsChange,
  AgentRecord,
  AppSettings,
  ClientFactory,
  ConfigStore,
  DeepPartial,
} from '../../core/teams';
import type { ChatService, TranscriptStore } from '../../core/chat';
import type { Emitter } from '../../core/events';
import type {
  Monitor,
  Alert,
  AlertSink,
  HealthEvent,
  IncidentUpdate,
  PollResult,
  PollTarget,
  TeamJudge,
} from '../../core/monitor';
import type { Clock, Logger } from '../../core/ports';
import type { SecretStore } from '../../core/secrets';
import type {
  DeliveryCommit,
  ForwardAttempt,
  RefusedRequest,
  RegistrationLog,
  StoredDelivery,
  Tunnel,
  WebhookRegistration,
} from '../../core/tunnel';
import type { NgrokLoader } from '../../core/expose';
import type { LockHolder } from '../../core/lock-file';
import type { CompanionMetrics } from '../../core/metrics';
import type { MediaStore, Messages, MessageStore } from '../../core/messages';
import type { TeamView } from './team-set';
import type { DemoInfo } from './demo';
import type { Prefs } from './prefs';
import type { PortTaken } from './tunnel-host';
import type { ExposureHost, ExposureView } from './exposure-host';
import type { MetricsListen } from './observability';

export interface CompanionOptions {
  /** Transcripts, timelines, the tunnel's log. Default <configDir>/data. */
  dataDir?: string;
  /** config.json and companion.json. Default defaultConfigDir(). */
  configDir?: string;
  /** Where the teams and app settings live instead of <configDir>/config.json (a hub: its database). */
  configStore?: ConfigStore;
  /** Default: the OS keychain. */
  secrets?: SecretStore;
  clock?: Clock;
  /** For every service client and the tunnel's forwards. */
  dispatcher?: Dispatcher;
  /** Makes the teams' service clients (default: the real client over `dispatcher`; tests: a fake). */
  clientFactory?: ClientFactory;
  logger?: Logger;
  /** Receives every alert the monitor raises (besides the 'alert' event). */
  notifier?: AlertSink;
  /** Overrides of the poll intervals (ms) that are not saved (tests, `serve --poll-sec`). */
  poll?: { intervalMs?: number; fastIntervalMs?: number };
  /**
   * Start the tunnel's receiver at once (true), or only when something asks for it (false: a command that
   * reads). Default: when a webhook this install registered points at it.
   */
  startTunnel?: boolean;
  /** The receiver's port for this run, over the saved tunnelPort until that is changed (tests: 0, any free port). */
  tunnelPort?: number;
  /** How often an app that does not post the alerts tries to take over (ms; default 10 s; tests). */
  alertSenderRetryMs?: number;
  /** The public exposure: how long it may take to come up, and the ngrok module (tests). */
  exposure?: { timeoutMs?: number; loadNgrok?: NgrokLoader };
  /** Dialect names the demo emulator answers in (`serve --emulator --dialect`). */
  demoDialect?: readonly string[];
  /**
   * Start the demo (its emulator and team, see startDemo) before the monitor starts, so the demo
   * team's incidents open before a restart are taken up, not closed as removed (`serve --emulator`).
   * Default: when the data folder holds a demo team (any shell resumes it); false: never.
   */
  demo?: boolean;
  /** Where to serve Prometheus metrics for this run, over the saved metricsPort (`serve --metrics-port`). */
  metrics?: MetricsListen;
  /** The Alertmanager to post the alerts to for this run, over the saved one (`monitor --alertmanager`). */
  alertmanagerUrl?: string;
  /**
   * The conversations' store, open and migrated (a hub: Postgres, one inbox for every replica), and who reads
   * now (a hub's acting member: the unread counts and read marks requests show are theirs). Default: SQLite
   * in the data folder, with its one read state. `eraseDeliveries`: where else a deletion blanks the bodies of
   * the messages' deliveries (a hub's database), after the tunnel log of the data folder.
   */
  messages?: {
    store: MessageStore;
    reader?: () => string | null;
    eraseDeliveries?: (ids: readonly string[]) => Promise<void>;
    /** Where the messages' files are kept (a hub: its database); default: the data folder's media cache. */
    media?: MediaStore;
  };
  /** Which of the agents this companion polls (a hub replica: those it holds a lease on). Default: all of them. */
  pollShare?: PollShare;
  /**
   * A durable store the receiver commits every accepted delivery to before acknowledging it (a team hub's
   * database, which also refuses a repeat another hub process took first). Default none: the tunnel's log
   * in the data folder is the durable store.
   */
  commitDelivery?: DeliveryCommit;
  /**
   * Where the agents' webhook registrations are kept and read (a hub: in its database, the same on every
   * replica). Default: this data folder's history and the URLs in companion.json.
   */
  webhookRegistry?: WebhookRegistry;
  /**
   * The member a request runs for (a hub: its acting member), recorded with what they do (a send). Default:
   * none (this machine's one person).
   */
  actingMember?: () => string | null;
  /** Where the chat transcripts are kept (a hub: its database, one truth for every replica). Default: <dataDir>/chat. */
  chatTranscripts?: TranscriptStore;
}

/** The agents' webhook registrations: the history, the URL each is registered to, the hooks that reach here. */
export interface WebhookRegistry {
  /** Every registration (URL redacted, when, from where): appended by each, read by the screens. */
  readonly history: RegistrationLog;
  /** The URL the agent's webhook was last registered to, or null. */
  publicUrlOf(teamId: string, agentId: string): string | null;
  /** The agent's hook at this companion's own fixed public address (a hub's --public-url), or null. */
  publicHookOf(agentId: string): string | null;
  /**
   * Tells `fn` of each agent registered elsewhere (another hub replica): its signing secret changed, so this
   * receiver reads it again before the service's first delivery with it arrives.
   */
  onRegisteredElsewhere?(fn: (agentId: string) => void): void;
}

/** The agents one of several pollers polls (a hub replica's leases, app/hub/leases.ts). */
export interface PollShare {
  /** Of every agent, those polled here now. */
  targets(all: PollTarget[]): PollTarget[];
  /** An agent no longer polled here is polled by another replica: its open incident goes on there. */
  watchedElsewhere(t: PollTarget): boolean;
  /** Who judges each team's team-wide incidents, over all its agents (default: each poller, over its own). */
  teamJudge?: TeamJudge;
}

export interface CompanionEvents {
  health: HealthEvent;
  /** Every settled poll (the agent's snapshot is already updated when this fires). */
  poll: PollResult;
  alert: Alert;
  incident: IncidentUpdate;
  delivery: StoredDelivery;
  forward: ForwardAttempt;
  exposure: ExposureView;
  refused: RefusedRequest;
  /** The teams or agents changed in config.json from outside this app (a command, another window). */
  teams: undefined;
  /** The app settings changed (here, or in config.json from outside). */
  settings: undefined;
  /** This app started or stopped posting the alerts (see alertsPostedElsewhere). */
  alertSender: undefined;
  /** The snooze was set or ended, here or in another app on the data folder. */
  snooze: { until: number | null };
}

export interface CompanionSettings {
  app: AppSettings;
  prefs: Prefs;
}

export interface SettingsPatch {
  app?: DeepPartial<AppSettings>;
  prefs?: Partial<
    Pick<Prefs, 'notifications' | 'escalateAfterMin' | 'forwardTo' | 'allowLegacySignature' | 'quietHours'>
  > & { messageNotifications?: Partial<Prefs['messageNotifications']> };
}

export interface Companion {
  readonly configDir: string;
  readonly dataDir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: Emitter<CompanionEvents>;
  readonly chat: ChatService;
  /** The conversations on the agents' numbers: the send log, read marks and names, and the index. */
  readonly messages: Messages;
  /** The member the current request runs for (CompanionOptions.actingMember), or null. */
  actingMember(): string | null;
  /** The monitor (one for the companion's life: settings changes apply to it in place). */
  monitor(): Monitor;
  /** A team's label (its id when unknown): what alerts and metrics call it. */
  teamLabel(teamId: string): string;
  /**
   * The other app on this data folder that posts the alerts (to the alert webhook and Alertmanager)
   * while this one does not (only one app per data folder posts them; this one takes over when that
   * one stops), or null: this one posts them.
   */
  alertsPostedElsewhere(): LockHolder | null;
  /** Whether this app posts the alerts and keeps the on-call files (timelines, open incidents, history). */
  keepsAlerts(): boolean;
  /** The Prometheus metrics, and where they are served (null: not served). */
  readonly metrics: CompanionMetrics;
  metricsUrl(): Promise<string | null>;
  /** The tunnel now (rebuilt when its port changes). */
  tunnel(): Tunnel;
  tunnelUrl(): string | null;
  /** Why the tunnel's receiver cannot run (another process writes its data folder), or null. */
  tunnelProblem(): string | null;
  /** The receiver's port is held by another process: who, and a free port to offer instead. */
  tunnelPortTaken(): PortTaken | null;
  forwardTo(): string | null;
  /** Starts the tunnel's receiver (idempotent). */
  startTunnel(): Promise<{ url: string; port: number }>;
  /** The receiver's public exposure (ngrok or a tunnel command) and the agents registered at it. */
  readonly exposure: ExposureHost;

  listTeams(): TeamView[];
  /** The id of the first team (as listTeams orders them) that has this agent, else null; copies no team. */
  teamOfAgent(agentId: string): string | null;
  findTeam(teamIdOrLabel: string): TeamView | undefined;
  addTeam(input: {
    label: string;
    baseUrl: string;
    apiKey: string;
    allowInsecureHttp?: boolean;
    agents: Array<{ agentId: string; label?: string }>;
  }): Promise<TeamView>;
  /** Changes a team in place (label, base URL, key); its id and all kept under it stay. */
  updateTeam(
    teamId: string,
    input: { label?: string; baseUrl?: string; apiKey?: string; allowInsecureHttp?: boolean },
  ): Promise<TeamView>;
  removeTeam(teamId: string): Promise<void>;
  addAgent(
    teamId: string,
    agent: { agentId: string; label?: string; labels?: readonly string[] },
  ): Promise<AgentRecord>;
  removeAgent(teamId: string, agentId: string): Promise<void>;
  /** Polls the agent at the fast interval all the time (kept in the config); applied to the monitor at once. */
  setWatchClosely(teamId: string, agentId: string, on: boolean): Promise<AgentRecord>;
  /** Changes the agent's labels (kept in the config): `labels` replaces them, then `add` and `remove`. */
  setAgentLabels(teamId: string, agentId: string, change: AgentLabelsChange): Promise<AgentRecord>;
  clientFor(teamId: string): Promise<ServiceClient>;

  /**
   * Points an agent's webhook at publicUrl and keeps its signing secret (keychain, or memory for
   * the demo) and the registered URL; starts the tunnel. The answer carries no secret.
   */
  registerWebhook(teamId: string, agentId: string, publicUrl: string, source?: string): Promise<WebhookRegistration>;
  /** Registers the agent's previous URL of the history again (the app behind it needs the new secret). */
  restoreWebhook(
    teamId: string,
    agentId: string,
    source?: string,
  ): Promise<WebhookRegistration & { secretHint: string }>;
  /** The agent's current signing secret, for an explicit reveal only; null when none is stored. */
  revealSigningSecret(teamId: string, agentId: string): Promise<string | null>;
  /** The webhook registrations this install made (data folder, or a hub's database; URL, when, from where; never a secret). */
  readonly registrations: RegistrationLog;
  publicUrlOf(teamId: string, agentId: string): string | null;
  /** The agent's hook at this companion's fixed public address (a hub's --public-url), or null. */
  publicHookOf(agentId: string): string | null;
  hasSigningSecret(teamId: string, agentId: string): Promise<boolean>;

  settings(): CompanionSettings;
  updateSettings(patch: SettingsPatch): Promise<CompanionSettings>;

  /** Starts the demo emulator (once) without adding its team. */
  startEmulator(): Promise<DemoInfo>;
  /** Starts the demo emulator (once) and adds its team (once). */
  startDemo(): Promise<{ team: TeamView; emulator: DemoInfo }>;

  close(): Promise<void>;
}
