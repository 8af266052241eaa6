/**
 * One queued run, executed by a worker: the sync (or export) is prepared from
 * the worker's config and run through the same run orchestrator and units
 * `ferry run` (or `ferry export`) uses, against the shared state store. A
 * unit that throws ends the job (the queue retries it whole).
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import type { LoadedConfig } from '../config/index.js';
import { exportUnit } from '../export/export-unit.js';
import { inspectExport, selectExports } from '../export/prepare.js';
import type { FerryMetrics } from '../metrics/registry.js';
import { inspectSync, selectSyncs } from '../pipeline/prepare.js';
import { failedRunSummary } from '../pipeline/run-summary.js';
import { syncUnits } from '../pipeline/sync-units.js';
import { orchestrateRun } from '../run/orchestrator.js';
import type { OrchestratedRun, RunResult, RunUnit } from '../run/orchestrator.js';
import { alertsListener, syncMetricsListener, tracingListener } from '../run/listeners.js';
import type { Notifier } from '../notify/notifier.js';
import { isFerryError } from '../sdk/errors.js';
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
  /** Alerts (`notify:`) for each finished run of a sync. */
  notifier?: Notifier;
}

export async function executeRun(request: RunRequest, ctx: ExecuteContext): Promise<RunOutcome> {
  try {
    return outcomeOf(request.kind === 'sync' ? await executeSync(request, ctx) : await executeExport(request, ctx));
  } catch (error) {
    return failedOutcome(error);
  }
}

async function executeSync(request: RunRequest, ctx: ExecuteContext): Promise<OrchestratedRun<RunResult>> {
  const [prepared] = await prepareAll(selectSyncs(ctx.config, [request.name]), (sync) => inspectSync(ctx.config, sync), 'fix ferry.yaml; the run is retried');
  if (prepared === undefined) throw new Error(`sync "${request.name}" was not prepared`);
  // A worker fans a job for a whole partitioned sync (its schedule's) out into one job per slice (fan-out.ts);
  // one that still gets here runs the slices one after another. A job for one slice of a sync with its own
  // maxRequestsPerSecond runs with a share of it, as the other slices may be running on other workers (the
  // API key's budget is shared anyway, see src/runtime/rate-budget.ts).
  const units = syncUnits(ctx.config, prepared, {
    ...(request.fullRefresh ? { fullRefresh: true } : {}),
    ...(request.partition ? { partition: request.partition } : {}),
  });
  // One trace per job, flushed when the job ends, as a `ferry run` is.
  const tracing = await tracingListener('ferry job', { 'ferry.syncs': request.name }, ctx.logger);
  const alerts = ctx.notifier ? alertsListener(ctx.config, ctx.logger, ctx.notifier) : undefined;
  return execute(units, ctx, [ctx.metrics ? syncMetricsListener(ctx.metrics) : undefined, tracing, alerts], ctx.metrics);
}

async function executeExport(request: RunRequest, ctx: ExecuteContext): Promise<OrchestratedRun<RunResult>> {
  const [prepared] = await prepareAll(selectExports(ctx.config, [request.name]), (exp) => inspectExport(ctx.config, exp), 'fix ferry.yaml; the run is retried');
  if (prepared === undefined) throw new Error(`export "${request.name}" was not prepared`);
  return execute([exportUnit(ctx.config, prepared, request.fullRefresh ? { fullRefresh: true } : {})], ctx, [], undefined);
}

function execute(
  units: readonly RunUnit<RunResult>[],
  ctx: ExecuteContext,
  listeners: Parameters<typeof orchestrateRun>[0]['listeners'],
  metrics: FerryMetrics | undefined,
): Promise<OrchestratedRun<RunResult>> {
  return orchestrateRun({
    kind: 'job',
    config: ctx.config,
    logger: ctx.logger,
    units,
    stop: { signal: ctx.signal },
    store: ctx.store,
    budget: ctx.budget ?? 'none',
    service: metrics ? { observer: metrics.clientObserver() } : {},
    failFast: true,
    listeners,
  });
}

/** The job's outcome: its failure, else the worst of its units (a later slice's success must not hide a partial one). */
function outcomeOf(run: OrchestratedRun<RunResult>): RunOutcome {
  if (run.failure) return failedOutcome(run.failure.error);
  let worst: RunResult | undefined;
  for (const summary of run.summaries) if (worst === undefined || summary.exitCode > worst.exitCode) worst = summary;
  // Stopped before its first unit began: nothing ran.
  if (worst === undefined) return { status: 'aborted', exitCode: 3, runId: null, error: 'stopped before the run began' };
  return { status: worst.status, exitCode: worst.exitCode, runId: worst.runId, counts: worst.counts, ...(worst.error ? { error: worst.error } : {}) };
}

/** A job that threw: exit code 1 for what a person must fix (config), else 3; with what the failed run got done, when its failure says. */
function failedOutcome(error: unknown): RunOutcome {
  const summary = failedRunSummary(error);
  return {
    status: 'failed',
    exitCode: isFerryError(error) && error.exitCode === 1 ? 1 : 3,
    runId: summary?.runId ?? null,
    ...(summary ? { counts: summary.counts } : {}),
    error: isFerryError(error) ? error.describe() : error instanceof Error ? error.message : String(error),
  };
}
