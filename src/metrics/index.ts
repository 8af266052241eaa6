/** Prometheus metrics for operators (docs/metrics.md). */
export { FerryMetrics, LATENCY_BUCKETS } from './registry.js';
export type { FerryMetricsOptions } from './registry.js';
export { SyncMetrics, RECORD_OUTCOMES } from './sync-metrics.js';
export { metricsRequestHandler, serveMetrics, METRICS_PATH } from './http.js';
export type { MetricsServer, MetricsSource } from './http.js';
export { exportMetrics, pushMetrics, writeMetricsFile } from './export.js';
export type { MetricsExport } from './export.js';
export { exportRunMetrics, runMetricsFor, syncMetricsFor } from './project-run.js';
export type { RunMetricsOptions } from './project-run.js';
export { readPushGauges } from './pusher-stats.js';
export type { PushGauges } from './pusher-stats.js';
export { EmulatorRequestMetrics } from './emulator.js';
