/**
 * `ferry export` for a whole project, like `ferry run`: every export is
 * prepared first (a configuration error stops everything before a request is
 * made), then exports run one after another through the run orchestrator
 * (src/run/orchestrator.ts), against one service connection and one state
 * store. SIGINT and SIGTERM stop reading after the current page; what was
 * read is written and flushed.
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import { createLogger } from '../runtime/logger.js';
import { loadProject } from '../runtime/project.js';
import { orchestrateRun } from '../run/orchestrator.js';
import type { RunListener } from '../run/orchestrator.js';
import { FerryError } from '../sdk/errors.js';
import type { RunCounts } from '../state/index.js';
import { exportUnit } from './export-unit.js';
import { inspectExport, selectExports } from './prepare.js';
import type { PreparedExport } from './prepare.js';
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
  /** More run-level listeners (alerts, a console), told of each export and of the run's end. */
  listeners?: readonly RunListener[];
}

export async function runExports(options: ExportsRunOptions): Promise<ExportSummary[]> {
  const config = await loadProject(options.configFile);
  const logger = options.logger ?? createLogger(options.quiet ? { level: 'warn' } : {});
  const selected = selectExports(config, options.names);
  if (selected.length === 0) {
    throw new FerryError('FERRY_USAGE', 'no exports to run', { hint: `add exports: to ${config.file} or an included file` });
  }

  const prepared: PreparedExport[] = await prepareAll(selected, (exp) => inspectExport(config, exp), 'nothing was exported; fix the lines above and run again');

  const { summaries } = await orchestrateRun({
    kind: 'export',
    config,
    logger,
    units: prepared.map((exp) => exportUnit(config, exp, options)),
    stop: { signals: 'stopping: writing what was read, flushing the destination', signal: options.signal },
    noteFreshState: false,
    listeners: options.listeners ?? [],
  });
  return summaries;
}
