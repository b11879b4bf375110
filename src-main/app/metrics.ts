// The companion's Prometheus metrics and the local server that shows them.
export { CompanionMetrics, startMetricsServer } from '../core/metrics';
