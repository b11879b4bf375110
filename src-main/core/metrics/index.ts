// Prometheus metrics (OpenMetrics at /metrics): public surface.
export { CompanionMetrics, type MetricsSources } from './metrics';
export { startMetricsServer, type MetricsServer } from './server';
