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
import { inspectSync, selectSyncs } from '../pipeline/prepare.js';
import { serviceLimits } from '../pipeline/run-project.js';
import { runSync } from '../pipeline/run-sync.js';
import { openService } from '../pipeline/service.js';
import { isFerryError } from '../sdk/errors.js';
import type { RunCounts, StateStore } from '../state/index.js';
import type { RunRequest } from './queue.js';

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
  const connection = await openService(ctx.config, { logger: ctx.logger, ...(ctx.metrics ? { observer: ctx.metrics.clientObserver() } : {}) });
  try {
    const summary = await runSync(prepared, { store: ctx.store, service: connection.client }, {
      signal: ctx.signal,
      logger: ctx.logger,
      ...serviceLimits(ctx.config, prepared),
      ...(request.fullRefresh ? { fullRefresh: true } : {}),
      ...(syncMetrics ? { onRunStart: syncMetrics.onRunStart } : {}),
    }).catch((error: unknown) => {
      syncMetrics?.finishFailed(error);
      throw error;
    });
    syncMetrics?.finish(summary);
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

async function executeExport(request: RunRequest, ctx: ExecuteContext): Promise<RunOutcome> {
  const [prepared] = await prepareAll(selectExports(ctx.config, [request.name]), (exp) => inspectExport(ctx.config, exp), 'fix ferry.yaml; the run is retried');
  if (prepared === undefined) throw new Error(`export "${request.name}" was not prepared`);
  const connection = await openService(ctx.config, { logger: ctx.logger });
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
