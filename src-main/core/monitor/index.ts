// The channel monitor: public surface.
export { Monitor, type HealthEvent } from './monitor';
export { HEALTHS, type Health } from './health';
export { incidentText } from './policy-text';
export type { IncidentUpdate } from './policy';
export { type PollResult } from './poller';
export type { TimelineEntry } from './timeline';
export { WebhookAlertSink, type AlertSink } from './sinks';
export { AlertmanagerSink } from './alertmanager';
export type { Alert, AgentSnapshot, Incident } from './types';
