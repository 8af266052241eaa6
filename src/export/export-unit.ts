/**
 * An export as a unit of work for the run orchestrator
 * (src/run/orchestrator.ts). Both `ferry export` and a worker's export job
 * run exports through it, so how an export is run — its request ceilings,
 * what a failure that stopped it before it began says — has one home.
 */
import type { LoadedConfig } from '../config/index.js';
import { isFerryError } from '../sdk/errors.js';
import type { RunCounts } from '../state/index.js';
import { emptyCounts } from '../state/index.js';
import type { RunUnit } from '../run/orchestrator.js';
import type { PreparedExport } from './prepare.js';
import { runExport } from './run-export.js';
import type { ExportSummary } from './run-export.js';

export interface ExportUnitOptions {
  fullRefresh?: boolean;
  /** Records per destination write. */
  batchSize?: number;
  progress?: ((exportName: string) => { update(counts: RunCounts): void; stop(): void }) | undefined;
}

export function exportUnit(config: LoadedConfig, prepared: PreparedExport, options: ExportUnitOptions = {}): RunUnit<ExportSummary> {
  const name = prepared.exp.name;
  return {
    kind: 'export',
    name,
    owner: name,
    async run(ctx) {
      const progress = options.progress?.(name);
      try {
        return await runExport(prepared, { store: ctx.store, service: ctx.service }, {
          signal: ctx.signal,
          logger: ctx.logger,
          // Reads respect the same ceilings as pushes: service.concurrency in flight, service.maxRequestsPerSecond started.
          detailConcurrency: config.service.concurrency,
          requestsPerSecond: config.service.maxRequestsPerSecond,
          ...(options.fullRefresh ? { fullRefresh: true } : {}),
          ...(options.batchSize ? { batchSize: options.batchSize } : {}),
          ...(progress ? { onProgress: (counts: RunCounts) => progress.update(counts) } : {}),
        });
      } finally {
        progress?.stop();
      }
    },
    failed: (error) => failedSummary(prepared, error),
  };
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
