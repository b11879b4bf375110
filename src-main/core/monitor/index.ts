// The channel monitor: public surface.
export { Monitor, type MonitorOptions, type HealthEvent } from './monitor';
export { HEALTHS, type Health } from './health';
export { incidentText } from './policy-text';
export type { IncidentUpdate } from './policy';
export { DEFAULT_POLLER_CONFIG, type PollResult } from './poller';
export type { TimelineEntry } from './timeline';
export { WebhookAlertSink, type AlertSink } from './sinks';
export { AlertmanagerSink, alertmanagerLabels, type PostableAlert } from './alertmanager';
export { formatDuration } from './time';
export type { Alert, AgentSnapshot, Incident } from './types';
