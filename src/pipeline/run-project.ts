/**
 * `ferry run` for a whole project: every sync is prepared first (so a config
 * error stops the run before anything is pushed), then syncs run one after
 * another against one service connection and one state store. SIGINT and
 * SIGTERM stop reading, let in-flight pushes finish, and checkpoint.
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import type { LoadedConfig } from '../config/index.js';
import { exportRunMetrics, runMetricsFor, syncMetricsFor } from '../metrics/project-run.js';
import type { RunMetricsOptions } from '../metrics/project-run.js';
import { runTracerFor } from '../metrics/tracing.js';
import { isFerryError } from '../sdk/errors.js';
import type { RunCounts } from '../state/index.js';
import { emptyCounts } from '../state/index.js';
import { createLogger, errorFields } from '../runtime/logger.js';
import { discoverStreams, inspectSync, selectSyncs } from './prepare.js';
import type { PreparedSync } from './prepare.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { retryFailures } from './retry-failures.js';
import { partitionKey, partitionsOf, runSyncPart } from './partitions.js';
import type { RunSummary } from './run-sync.js';
import { openService } from '../runtime/service.js';
import { openSharedBudget } from '../runtime/rate-budget.js';
import type { SharedRateBudget } from '../runtime/rate-budget.js';
import { stopOnSignals } from '../runtime/stop-signals.js';
import { countVisible } from './verify.js';

export interface ProjectRunOptions extends RunMetricsOptions {
  configFile: string;
  syncNames: readonly string[];
  fullRefresh?: boolean;
  dryRun?: boolean;
  forceDeletes?: boolean;
  /** Count what the read side shows after each sync. */
  verify?: boolean;
  /** Replay the dead-letter instead of reading sources (`failures retry`). */
  retryFailures?: boolean;
  /** Log only warnings (a progress bar is showing). */
  quiet?: boolean;
  logger?: Logger;
  progress?: (sync: string, total?: number) => { update(counts: RunCounts): void; stop(): void };
}

export interface ProjectRunSummary extends RunSummary {
  /** With `verify`: records of this sync's target the service returns. */
  visible?: number;
}

export async function runProject(options: ProjectRunOptions): Promise<ProjectRunSummary[]> {
  const config = await loadProject(options.configFile);
  const base = options.logger ?? createLogger(options.quiet ? { level: 'warn' } : {});
  // Every line of a dry run says so: nothing it logs was pushed or stored.
  const logger = options.dryRun ? base.child({ dryRun: true }) : base;
  const syncs = selectSyncs(config, options.syncNames);

  const prepared: PreparedSync[] = await prepareAll(syncs, (sync) => inspectSync(config, sync), 'nothing was pushed; fix the lines above and run again');

  const stopping = stopOnSignals(logger, 'stopping: finishing in-flight requests and checkpointing');

  const metrics = await runMetricsFor(config, options);
  const store = await openProjectState(config, logger);
  const tracer = await runTracerFor('ferry run', { 'ferry.syncs': prepared.map((p) => p.sync.name).join(','), 'ferry.dry_run': options.dryRun ? 1 : 0 }, logger);
  const summaries: ProjectRunSummary[] = [];
  let completed = false;
  let budget: SharedRateBudget | undefined;
  try {
    // With state on PostgreSQL, workers and other runs share the API key's request budget there: draw on it too.
    budget = options.dryRun ? undefined : await openSharedBudget(config);
    // One connection per request in flight, for the busiest sync.
    const concurrency = Math.max(config.service.concurrency, ...prepared.map((p) => p.sync.concurrency ?? 0));
    const connection = await openService(config, {
      logger,
      rideOutages: true,
      concurrency,
      gate: budget,
      ...(metrics ? { observer: metrics.clientObserver() } : {}),
    });
    try {
      // A partitioned sync runs as its slices, one after another, each with its own summary.
      // Its dead-letter is shared by the slices, so `failures retry` replays it once, as a whole.
      const parts = prepared.flatMap((sync) => (options.retryFailures ? [undefined] : partitionsOf(sync.sync)).map((partition) => ({ sync, partition })));
      for (const { sync, partition } of parts) {
        if (stopping.signal.aborted) break;
        const progress = options.progress?.(partition ? partitionKey(sync.sync.name, partition) : sync.sync.name, partition ? undefined : await estimateTotal(sync, logger));
        // A dry run is no run: it would count records that were never pushed and fake a last success.
        const syncMetrics = metrics && !options.dryRun ? await syncMetricsFor(metrics, sync.sync.name, store) : undefined;
        const syncTrace = tracer?.sync(partition ? partitionKey(sync.sync.name, partition) : sync.sync.name);
        const runOptions = {
          ...(options.fullRefresh ? { fullRefresh: true } : {}),
          ...(options.dryRun ? { dryRun: true } : {}),
          ...(options.forceDeletes ? { forceDeletes: true } : {}),
          signal: stopping.signal,
          logger,
          ...serviceLimits(config, sync),
          ...(progress ? { onProgress: (counts: RunCounts) => progress.update(counts) } : {}),
          ...(syncMetrics ? { onRunStart: syncMetrics.onRunStart } : {}),
          ...(syncTrace ? { onCheckpoint: syncTrace.onCheckpoint } : {}),
        };
        const deps = { store, service: connection.client };
        try {
          const summary: ProjectRunSummary = options.retryFailures
            ? await retryFailures(sync, deps, runOptions)
            : await runSyncPart(sync, deps, runOptions, partition);
          if (options.verify && !options.dryRun) summary.visible = await countVisible(connection.client, sync.sync);
          summaries.push(summary);
        } catch (error) {
          const name = partition ? partitionKey(sync.sync.name, partition) : sync.sync.name;
          const failed = failedSummary(name, error);
          logger.error({ sync: name, ...errorFields(error), exitCode: failed.exitCode }, `sync ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
          summaries.push(failed);
          // The service itself is gone or refuses us: later syncs would fail the same way.
          if (isFerryError(error, 'FERRY_SERVICE_AUTH') || isFerryError(error, 'FERRY_SERVICE_UNREACHABLE')) break;
        } finally {
          progress?.stop();
          syncMetrics?.finish(summaries.at(-1)!);
          syncTrace?.end(summaries.at(-1)!);
        }
      }
      completed = true;
    } finally {
      await connection.close();
    }
  } finally {
    await store.close();
    await budget?.close();
    stopping.dispose();
    // Also after a failure, as the metrics below: the trace shows how far the run got.
    await tracer?.shutdown(completed ? worstStatus(summaries) : 'failed');
    // Also after a failure: the textfile and the gateway then show what the run got done.
    if (metrics) await exportRunMetrics(metrics, config, options, logger);
  }
  return summaries;
}

/** A sync's request limits: its own overrides, else the project's service settings. */
export function serviceLimits(
  config: LoadedConfig,
  prepared: PreparedSync,
): { concurrency: number; maxRequestsPerSecond: number; maxAttempts: number; outageBudgetMs: number } {
  return {
    concurrency: prepared.sync.concurrency ?? config.service.concurrency,
    maxRequestsPerSecond: prepared.sync.maxRequestsPerSecond ?? config.service.maxRequestsPerSecond,
    maxAttempts: config.service.maxAttempts,
    outageBudgetMs: config.service.outageBudgetSeconds * 1000,
  };
}

/** The run span's status: the worst of its syncs'. */
function worstStatus(summaries: readonly ProjectRunSummary[]): string {
  for (const status of ['failed', 'aborted', 'partial'] as const) if (summaries.some((s) => s.status === status)) return status;
  return 'succeeded';
}

async function estimateTotal(prepared: PreparedSync, logger: Logger): Promise<number | undefined> {
  if (!process.stderr.isTTY || prepared.sync.group) return undefined;
  try {
    const streams = await discoverStreams(prepared, logger);
    const known = streams.map((s) => s.estimatedCount);
    return known.every((n) => typeof n === 'number') ? known.reduce((a, b) => a! + b!, 0) : undefined;
  } catch {
    return undefined;
  }
}

function failedSummary(sync: string, error: unknown): ProjectRunSummary {
  const attached = (error as { summary?: RunSummary } | null)?.summary;
  const message = isFerryError(error) ? error.describe() : error instanceof Error ? error.message : String(error);
  if (attached) return { ...attached, error: message, exitCode: 3, status: 'failed' };
  return { sync, runId: null, status: 'failed', counts: emptyCounts(), durationMs: 0, cursor: null, changes: [], error: message, exitCode: 3 };
}
