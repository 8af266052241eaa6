/**
 * The run-level concerns every kind of run shares, as listeners of the
 * orchestrator (orchestrator.ts): a trace per run with a span per sync, the
 * per-sync metrics, and handing a run's metrics over when it ends. A new
 * run-level concern is one more listener here, added where
 * {@link runListeners} is called.
 */
import type { Logger } from 'pino';
import { exportRunMetrics, runMetricsFor, syncMetricsFor } from '../metrics/project-run.js';
import type { RunMetricsOptions } from '../metrics/project-run.js';
import type { FerryMetrics } from '../metrics/registry.js';
import { runTracerFor } from '../metrics/tracing.js';
import type { LoadedConfig } from '../config/index.js';
import { Notifier } from '../notify/notifier.js';
import type { RunListener } from './orchestrator.js';

/**
 * A trace of the run (`span`: `ferry run`, `ferry job`) with a span per sync
 * or slice, flushed when the run ends; undefined when tracing is off.
 */
export async function tracingListener(span: string, attributes: Record<string, string | number>, logger: Logger): Promise<RunListener | undefined> {
  const tracer = await runTracerFor(span, attributes, logger);
  if (tracer === undefined) return undefined;
  return {
    unitStarted(unit) {
      if (unit.kind !== 'sync') return undefined;
      const trace = tracer.sync(unit.name);
      return { onCheckpoint: trace.onCheckpoint, finished: (summary) => trace.end(summary) };
    },
    // Also after a failure: the trace shows how far the run got.
    runFinished: (run) => tracer.shutdown(run.status),
  };
}

/** Per-sync metrics (runs, records, rate, last success) in `metrics`, kept under the sync's name for each of its slices. */
export function syncMetricsListener(metrics: FerryMetrics): RunListener {
  return {
    async unitStarted(unit, ctx) {
      if (unit.kind !== 'sync') return undefined;
      const syncMetrics = await syncMetricsFor(metrics, unit.owner, ctx.store);
      return { onRunStart: syncMetrics.onRunStart, finished: (summary) => syncMetrics.finish(summary) };
    },
  };
}

/** Writes `--metrics-file` and pushes to the Pushgateway when the run ends — also after a failure: they then show what it got done. */
export function metricsExportListener(metrics: FerryMetrics, options: RunMetricsOptions): RunListener {
  return { runFinished: (run) => exportRunMetrics(metrics, run.config, options, run.logger) };
}

/**
 * The metrics listeners of a one-shot run: none when nobody would read them
 * (no `--metrics-file`, no Pushgateway, no caller's registry), and no per-sync
 * metrics on a dry run (it would count records that were never pushed and
 * fake a last success).
 */
export async function runMetricsListeners(config: LoadedConfig, options: RunMetricsOptions & { dryRun?: boolean }): Promise<{ metrics?: FerryMetrics; listeners: RunListener[] }> {
  const metrics = await runMetricsFor(config, options);
  if (metrics === undefined) return { listeners: [] };
  return { metrics, listeners: [...(options.dryRun ? [] : [syncMetricsListener(metrics)]), metricsExportListener(metrics, options)] };
}

/**
 * Alerts (`notify:`): each sync's (or slice's) finished run goes to the
 * notifier, which sends what it raises (a failure, a rejected share above the
 * threshold); the run ends only once they are sent. Undefined when no webhook
 * is configured. `notifier` lets a long-lived process keep one of its own.
 */
export function alertsListener(config: LoadedConfig, logger: Logger, notifier: Notifier = new Notifier(config, logger)): RunListener | undefined {
  if (!notifier.enabled) return undefined;
  const sending = new Set<Promise<unknown>>();
  return {
    unitStarted(unit) {
      if (unit.kind !== 'sync') return undefined;
      return {
        finished(summary) {
          const sent = notifier.runFinished({ ...summary, sync: unit.name }).finally(() => sending.delete(sent));
          sending.add(sent);
        },
      };
    },
    async runFinished() {
      await Promise.allSettled([...sending]);
    },
  };
}
