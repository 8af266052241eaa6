/**
 * One queued run, executed by a worker: the sync (or export) is prepared from
 * the worker's config and run with the same runner `ferry run` (or `ferry
 * export`) uses, against the shared state store.
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import type { LoadedConfig } from '../config/index.js';
import { inspectExport, selectExports } from '../export/prepare.js';
import { runExport } from '../export/run-export.js';
import { syncMetricsFor } from '../metrics/project-run.js';
import type { FerryMetrics } from '../metrics/registry.js';
import { runTracerFor } from '../metrics/tracing.js';
import { inspectSync, selectSyncs } from '../pipeline/prepare.js';
import { serviceLimits } from '../pipeline/run-project.js';
import { partitionKey, partitionsOf, runSyncPart } from '../pipeline/partitions.js';
import { openService } from '../runtime/service.js';
import { isFerryError } from '../sdk/errors.js';
import { emptyCounts } from '../state/index.js';
import type { RunCounts, StateStore } from '../state/index.js';
import type { RunRequest } from './queue.js';
import type { SharedRateBudget } from '../runtime/rate-budget.js';

/** What a run came to, as stored in the queue job's output and read by `run --queue --wait` and `status`. */
export interface RunOutcome {
  status: 'succeeded' | 'partial' | 'failed' | 'aborted';
  exitCode: number;
  runId: string | null;
  counts?: RunCounts;
  error?: string;
}

export interface ExecuteContext {
  config: LoadedConfig;
  store: StateStore;
  logger: Logger;
  /** Aborted when the worker stops (SIGTERM) or loses the run's lease. */
  signal: AbortSignal;
  /** The request-rate budget of the API key, shared by every worker (and one-shot run) on the state database. */
  budget?: SharedRateBudget | undefined;
  /** The worker's metrics, served on /metrics. */
  metrics?: FerryMetrics;
}

export async function executeRun(request: RunRequest, ctx: ExecuteContext): Promise<RunOutcome> {
  try {
    return request.kind === 'sync' ? await executeSync(request, ctx) : await executeExport(request, ctx);
  } catch (error) {
    const attached = (error as { summary?: { runId: string | null; counts: RunCounts } } | null)?.summary;
    return {
      status: 'failed',
      exitCode: isFerryError(error) && error.exitCode === 1 ? 1 : 3,
      runId: attached?.runId ?? null,
      ...(attached ? { counts: attached.counts } : {}),
      error: isFerryError(error) ? error.describe() : error instanceof Error ? error.message : String(error),
    };
  }
}

async function executeSync(request: RunRequest, ctx: ExecuteContext): Promise<RunOutcome> {
  const [prepared] = await prepareAll(selectSyncs(ctx.config, [request.name]), (sync) => inspectSync(ctx.config, sync), 'fix ferry.yaml; the run is retried');
  if (prepared === undefined) throw new Error(`sync "${request.name}" was not prepared`);
  const syncMetrics = ctx.metrics && (await syncMetricsFor(ctx.metrics, request.name, ctx.store));
  const connection = await openService(ctx.config, { logger: ctx.logger, gate: ctx.budget, ...(ctx.metrics ? { observer: ctx.metrics.clientObserver() } : {}) });
  // A worker fans a job for a whole partitioned sync (its schedule's) out into one job per slice (fan-out.ts);
  // one that still gets here runs the slices one after another. A job for one slice of a sync with its own
  // maxRequestsPerSecond runs with a share of it, as the other slices may be running on other workers (the
  // API key's budget is shared anyway, see src/runtime/rate-budget.ts).
  const parts = request.partition ? [request.partition] : partitionsOf(prepared.sync);
  const shareRate = request.partition !== undefined && prepared.sync.maxRequestsPerSecond !== undefined;
  // One trace per job, flushed when the job ends, as a `ferry run` is.
  const tracer = await runTracerFor('ferry job', { 'ferry.syncs': request.name }, ctx.logger);
  let outcome: RunOutcome | undefined;
  let completed = false;
  try {
    for (const partition of parts) {
      const syncTrace = tracer?.sync(partition ? partitionKey(request.name, partition) : request.name);
      const summary = await runSyncPart(prepared, { store: ctx.store, service: connection.client }, {
        signal: ctx.signal,
        logger: ctx.logger,
        ...serviceLimits(ctx.config, prepared),
        ...(request.fullRefresh ? { fullRefresh: true } : {}),
        ...(syncMetrics ? { onRunStart: syncMetrics.onRunStart } : {}),
        ...(syncTrace ? { onCheckpoint: syncTrace.onCheckpoint } : {}),
      }, partition, shareRate).catch((error: unknown) => {
        syncMetrics?.finishFailed(error);
        syncTrace?.end({ status: 'failed', counts: (error as { summary?: { counts: RunCounts } } | null)?.summary?.counts ?? emptyCounts(), runId: null, error: error instanceof Error ? error.message : String(error) });
        throw error;
      });
      syncMetrics?.finish(summary);
      syncTrace?.end(summary);
      // The worst outcome stands for the job (a later slice's success must not hide a partial one).
      if (outcome === undefined || summary.exitCode > outcome.exitCode) {
        outcome = { status: summary.status, exitCode: summary.exitCode, runId: summary.runId, counts: summary.counts, ...(summary.error ? { error: summary.error } : {}) };
      }
      if (ctx.signal.aborted) break;
    }
    completed = true;
    return outcome!;
  } finally {
    await connection.close();
    await tracer?.shutdown(completed && outcome ? outcome.status : 'failed');
  }
}

async function executeExport(request: RunRequest, ctx: ExecuteContext): Promise<RunOutcome> {
  const [prepared] = await prepareAll(selectExports(ctx.config, [request.name]), (exp) => inspectExport(ctx.config, exp), 'fix ferry.yaml; the run is retried');
  if (prepared === undefined) throw new Error(`export "${request.name}" was not prepared`);
  const connection = await openService(ctx.config, { logger: ctx.logger, gate: ctx.budget });
  try {
    const summary = await runExport(prepared, { store: ctx.store, service: connection.client }, {
      signal: ctx.signal,
      logger: ctx.logger,
      ...(request.fullRefresh ? { fullRefresh: true } : {}),
    });
    return {
      status: summary.status,
      exitCode: summary.exitCode,
      runId: summary.runId,
      counts: summary.counts,
      ...(summary.error ? { error: summary.error } : {}),
    };
  } finally {
    await connection.close();
  }
}
