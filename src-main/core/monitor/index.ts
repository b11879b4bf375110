// The channel monitor: public surface.
export { Monitor, type MonitorOptions, type MonitorEvents, type MonitorStatus, type HealthEvent } from './monitor';
export {
  deriveHealth,
  isTransientError,
  errorToDTO,
  redactSecrets,
  HealthTracker,
  HEALTHS,
  DEFAULT_FAILURE_THRESHOLD,
  type Health,
  type HealthReading,
  type FailureThreshold,
} from './health';
export { AlertPolicy, type AlertPolicyOptions, type IncidentUpdate, type PolicyOutput } from './policy';
export { incidentText } from './policy-text';
export {
  Poller,
  wantsFastPoll,
  pollerConfig,
  DEFAULT_POLLER_CONFIG,
  type PollTarget,
  type ReadSession,
  type PollResult,
  type PollCycle,
  type PollerOptions,
  type PollerConfig,
} from './poller';
export { Timeline, storedStatus, type TimelineEntry, type TimelineOptions, type StoredStatus } from './timeline';
export { formatDiagnostics, type DiagnosticsAgent } from './diagnostics';
export { WebhookAlertSink, MemoryAlertSink, formatAlertLine, formatAlertText, type AlertSink, type WebhookSinkOptions } from './sinks';
export { formatDuration, inQuietHours, parseHHMM, snoozeEnd } from './time';
export {
  DEFAULT_RULES,
  systemLocalTime,
  utcLocalTime,
  type Alert,
  type AlertKind,
  type AlertRules,
  type AgentSnapshot,
  type HealthChange,
  type Incident,
  type IncidentKind,
  type LocalTime,
  type QuietHours,
  type SnoozePreset,
} from './types';
