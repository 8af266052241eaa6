/**
 * `ferry export` for a whole project, like `ferry run`: every export is
 * prepared first (a configuration error stops everything before a request is
 * made), then exports run one after another against one service connection
 * and one state store. SIGINT and SIGTERM stop reading after the current
 * page; what was read is written and flushed.
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import { createLogger } from '../runtime/logger.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { openSharedBudget } from '../runtime/rate-budget.js';
import type { SharedRateBudget } from '../runtime/rate-budget.js';
import { openService } from '../runtime/service.js';
import { stopOnSignals } from '../runtime/stop-signals.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import type { RunCounts } from '../state/index.js';
import { emptyCounts } from '../state/index.js';
import { inspectExport, selectExports } from './prepare.js';
import type { PreparedExport } from './prepare.js';
import { runExport } from './run-export.js';
import type { ExportSummary } from './run-export.js';

export interface ExportsRunOptions {
  configFile: string;
  /** Export names; none means all. */
  names: readonly string[];
  fullRefresh?: boolean;
  /** Log only warnings (a progress bar is showing). */
  quiet?: boolean;
  logger?: Logger;
  /** Records per destination write. */
  batchSize?: number;
  progress?: (exportName: string) => { update(counts: RunCounts): void; stop(): void };
  /** Stops the run like SIGTERM does (tests; embedding). */
  signal?: AbortSignal;
}

export async function runExports(options: ExportsRunOptions): Promise<ExportSummary[]> {
  const config = await loadProject(options.configFile);
  const logger = options.logger ?? createLogger(options.quiet ? { level: 'warn' } : {});
  const selected = selectExports(config, options.names);
  if (selected.length === 0) {
    throw new FerryError('FERRY_USAGE', 'no exports to run', { hint: `add exports: to ${config.file} or an included file` });
  }

  const prepared: PreparedExport[] = await prepareAll(selected, (exp) => inspectExport(config, exp), 'nothing was exported; fix the lines above and run again');

  const stopping = stopOnSignals(logger, 'stopping: writing what was read, flushing the destination', options.signal);

  const store = await openProjectState(config);
  const summaries: ExportSummary[] = [];
  // With state on PostgreSQL, workers and other runs share the API key's request budget there: draw on it too.
  let budget: SharedRateBudget | undefined;
  try {
    budget = await openSharedBudget(config);
    const connection = await openService(config, { logger, gate: budget });
    try {
      for (const exp of prepared) {
        if (stopping.signal.aborted) break;
        const progress = options.progress?.(exp.exp.name);
        try {
          const summary = await runExport(exp, { store, service: connection.client }, {
            signal: stopping.signal,
            logger,
            // Reads respect the same ceilings as pushes: service.concurrency in flight, service.maxRequestsPerSecond started.
            detailConcurrency: config.service.concurrency,
            requestsPerSecond: config.service.maxRequestsPerSecond,
            ...(options.fullRefresh ? { fullRefresh: true } : {}),
            ...(options.batchSize ? { batchSize: options.batchSize } : {}),
            ...(progress ? { onProgress: (counts: RunCounts) => progress.update(counts) } : {}),
          });
          summaries.push(summary);
          // The service itself is gone or refuses us: later exports would fail the same way.
          if (summary.errorCode === 'FERRY_SERVICE_AUTH' || summary.errorCode === 'FERRY_SERVICE_UNREACHABLE') break;
        } catch (error) {
          summaries.push(failedSummary(exp, error));
        } finally {
          progress?.stop();
        }
      }
    } finally {
      await connection.close();
    }
  } finally {
    await store.close();
    await budget?.close();
    stopping.dispose();
  }
  return summaries;
}

/** An export that could not start (its lock is held). */
function failedSummary(exp: PreparedExport, error: unknown): ExportSummary {
  const message = isFerryError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  return {
    export: exp.exp.name,
    runId: null,
    status: 'failed',
    resource: exp.spec.resource,
    destination: exp.destination.name,
    exported: 0,
    counts: emptyCounts(),
    durationMs: 0,
    cursor: null,
    error: message,
    ...(isFerryError(error) ? { errorCode: error.code } : {}),
    exitCode: isFerryError(error) && error.exitCode === 1 ? 1 : 3,
  };
}
