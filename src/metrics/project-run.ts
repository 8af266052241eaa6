/**
 * The metrics side of `ferry run`: which registry a run uses, the per-sync
 * hooks (with the last success restored from the state store, so a textfile
 * written after a failed run still carries it), and the hand-over at the end.
 * prom-client is imported only when a run asks for metrics: loading it is a
 * noticeable share of a cold start.
 */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/index.js';
import type { RunStore } from '../state/index.js';
import type { FerryMetrics } from './registry.js';
import type { SyncMetrics } from './sync-metrics.js';

/** Runs looked at for the last success; older history is not worth the read. */
const HISTORY = 50;

export interface RunMetricsOptions {
  /** A registry the caller scrapes (a worker); otherwise one is made when something will read it. */
  metrics?: FerryMetrics;
  /** `--metrics-file`. */
  metricsFile?: string;
}

/** The registry for this run, or undefined when nobody would read it. */
export async function runMetricsFor(config: LoadedConfig, options: RunMetricsOptions): Promise<FerryMetrics | undefined> {
  if (options.metrics) return options.metrics;
  if (options.metricsFile === undefined && config.metrics.pushgateway === undefined) return undefined;
  const { FerryMetrics } = await import('./registry.js');
  return new FerryMetrics();
}

/** The sync's metrics, with its last success from the state store when this process has not seen one. */
export async function syncMetricsFor(metrics: FerryMetrics, sync: string, store: RunStore): Promise<SyncMetrics> {
  const syncMetrics = metrics.sync(sync);
  const last = (await store.runs({ sync, limit: HISTORY })).find((run) => (run.status === 'succeeded' || run.status === 'partial') && run.finishedAt !== null);
  if (last?.finishedAt) syncMetrics.restoreLastSuccess(new Date(last.finishedAt));
  return syncMetrics;
}

/** Write the textfile and push, as configured. */
export async function exportRunMetrics(metrics: FerryMetrics, config: LoadedConfig, options: RunMetricsOptions, logger: Logger): Promise<void> {
  const { exportMetrics } = await import('./export.js');
  await exportMetrics(
    metrics,
    {
      ...(options.metricsFile !== undefined ? { file: options.metricsFile } : {}),
      ...(config.metrics.pushgateway !== undefined ? { pushgateway: config.metrics.pushgateway, job: config.metrics.job } : {}),
    },
    logger,
  );
}
