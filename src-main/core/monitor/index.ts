// The channel monitor: public surface.
export { Monitor, type MonitorOptions, type HealthEvent } from './monitor';
export { HEALTHS, type Health } from './health';
export { incidentText } from './policy-text';
export { alertWords, IncidentWords, type AlertWords, type IncidentWording } from './words';
export type { IncidentUpdate } from './policy';
export { DEFAULT_POLLER_CONFIG, type PollResult, type PollTarget } from './poller';
export type { TimelineEntry } from './timeline';
export { WebhookAlertSink, type AlertSink } from './sinks';
export { AlertmanagerSink, alertmanagerLabels, type PostableAlert } from './alertmanager';
export { formatDuration } from './time';
export type { Alert, AgentSnapshot, AlertRules, Incident } from './types';
