// AppServices: the narrow facade the contract handlers run on. The lead implements it over the real
// core (accounts, monitor, service client per team, tunnel, chat); tests pass a fake.
// Ports return contract DTOs (or core types that are already plain data), so the handlers stay thin.
import type { ServiceClient } from '../core/api/service';
import type {
  AgentHealthDTO,
  AgentInputDTO,
  AlertStatusDTO,
  AnyEvent,
  AppSettingsDTO,
  AppSettingsPatchDTO,
  ChatMessageDTO,
  DeliveryDetailDTO,
  DeliveryFilterDTO,
  DeliverySummaryDTO,
  DemoDTO,
  DiagnosticsDTO,
  EventName,
  Events,
  ExportDTO,
  ForwardResultDTO,
  HealthHistoryEntryDTO,
  IncidentDTO,
  MediaDTO,
  QuietHoursDTO,
  SimulateArgs,
  TeamDTO,
  TunnelStatusDTO,
  Unsubscribe,
} from '../../src-shared/contract';

/** An agent as accounts stores it (no health). */
export interface AgentRecord {
  teamId: string;
  agentId: string;
  label: string;
}

export interface AccountsPort {
  listTeams(): Promise<TeamDTO[]>;
  /** Stores the key in the keychain (throws a KeychainError-like error when it cannot). */
  addTeam(input: { label: string; baseUrl: string; apiKey: string; agents: AgentInputDTO[] }): Promise<TeamDTO>;
  removeTeam(teamId: string): Promise<void>;
  listAgents(teamId?: string): Promise<AgentRecord[]>;
  addAgent(teamId: string, agent: AgentInputDTO): Promise<AgentRecord>;
  removeAgent(teamId: string, agentId: string): Promise<void>;
  settings(): Promise<AppSettingsDTO>;
  updateSettings(patch: AppSettingsPatchDTO): Promise<AppSettingsDTO>;
}

export interface MonitorPort {
  /** Current health of every watched agent. */
  snapshot(): AgentHealthDTO[];
  /** Open (unresolved) incidents, newest first. */
  incidents(): IncidentDTO[];
  acknowledge(incidentId: string): void;
  /** Returns how many incidents were acknowledged. */
  acknowledgeAll(): number;
  /** Pauses notifications until `until` (ms epoch); null resumes. Monitoring itself keeps running. */
  snooze(until: number | null): void;
  status(): AlertStatusDTO;
  setQuietHours(q: QuietHoursDTO): void;
  /** The agent's health changes (the monitor's timeline), newest first; [] for an agent never polled. */
  history(teamId: string, agentId: string): Promise<HealthHistoryEntryDTO[]>;
}

/** The subset of the core ServiceClient the handlers use, one client per team. */
export type TeamClientPort = Pick<
  ServiceClient,
  'startPairing' | 'getSession' | 'send' | 'checkContact' | 'updateSettings' | 'setWebhook' | 'sendBudget' | 'cancelQueued'
>;

export interface TunnelPort {
  status(): TunnelStatusDTO;
  /** Keeps the signing secret (main process only) so deliveries for this agent can be verified. */
  registerSecret(teamId: string, agentId: string, secret: string, publicUrl: string): Promise<void>;
  deliveries(filter: DeliveryFilterDTO): Promise<DeliverySummaryDTO[]>;
  delivery(id: string): Promise<DeliveryDetailDTO>;
  replay(id: string, mode: 'as-received' | 're-signed', body?: string): Promise<ForwardResultDTO>;
  simulate(input: SimulateArgs): Promise<DeliverySummaryDTO>;
  export(id: string, format: 'curl' | 'fixture'): Promise<ExportDTO>;
  /** The file of an image/document delivery, downloaded through its team's client (key only to the service). */
  media(id: string): Promise<MediaDTO>;
}

export interface ChatPort {
  /** Starts a streaming turn; tokens/done/error arrive as chat.* events tagged with turnId. */
  startTurn(input: { teamId: string; agentId: string; userId: string; message: string }): Promise<{ turnId: string }>;
  stopTurn(turnId: string): boolean;
  transcript(teamId: string, agentId: string, userId: string): Promise<ChatMessageDTO[]>;
}

export interface EventSourcePort {
  subscribe(listener: (event: AnyEvent) => void): Unsubscribe;
}

/** Subscribe (IPC, host) and publish (handlers emit send.progress; the facade emits the rest). */
export interface EventBusPort extends EventSourcePort {
  publish<E extends EventName>(name: E, payload: Events[E]): void;
}

export interface AppServices {
  accounts: AccountsPort;
  monitor: MonitorPort;
  /** The service client of a team; throws NotFound when the team is unknown. */
  client(teamId: string): Promise<TeamClientPort>;
  tunnel: TunnelPort;
  chat: ChatPort;
  diagnostics(): Promise<DiagnosticsDTO>;
  /** Starts the local emulator with a demo team and agents, and adds that team. */
  startDemo(): Promise<DemoDTO>;
  /** Everything the renderer should hear about (health, alerts, tunnel, chat, send progress). */
  events: EventBusPort;
  /** ms epoch; injected so 'tomorrow' and DTO timestamps are deterministic in tests. */
  now(): number;
}
