// The channel monitor: public surface.
export { Monitor, type Handover, type HealthEvent, type MonitorOptions } from './monitor';
export { HEALTHS, type Health } from './health';
export type { IncidentUpdate } from './policy';
export { type PollResult, type PollTarget } from './poller';
export type { TimelineEntry } from './timeline';
export { WebhookAlertSink, type AlertSink } from './sinks';
export { AlertmanagerSink } from './alertmanager';
export {
  incidentDurationMs,
  type Alert,
  type AgentSnapshot,
  type AlertRules,
  type Incident,
  type TeamJudge,
  type TeamMemberHealth,
} from './types';
export { alertWords, IncidentWords } from './words';
export { availability } from './availability';
export { IncidentHistory, INCIDENT_HISTORY_FILE } from './incident-history';
