/**
 * `ferry run` for a whole project: every sync is prepared first (so a config
 * error stops the run before anything is pushed), then its syncs (and their
 * slices) run one after another through the run orchestrator
 * (src/run/orchestrator.ts), against one service connection and one state
 * store. SIGINT and SIGTERM stop reading, let in-flight pushes finish, and
 * checkpoint.
 */
import type { Logger } from 'pino';
import { prepareAll } from '../config/index.js';
import type { RunMetricsOptions } from '../metrics/project-run.js';
import { FerryError } from '../sdk/errors.js';
import type { RunCounts } from '../state/index.js';
import type { PushLimits } from '../sink/index.js';
import { createLogger, errorFields } from '../runtime/logger.js';
import { loadProject } from '../runtime/project.js';
import { orchestrateRun } from '../run/orchestrator.js';
import type { RunListener } from '../run/orchestrator.js';
import { alertsListener, runMetricsListeners, tracingListener } from '../run/listeners.js';
import { inspectSync, selectSyncs } from './prepare.js';
import type { PreparedSync } from './prepare.js';
import { connectionsFor, syncUnits } from './sync-units.js';
import type { SyncRunSummary, SyncUnitOptions } from './sync-units.js';

/** What `ferry run` (and `failures retry`, the console's Run) asks of a run: every unit gets the same options, but a slice (`partition`) and the per-unit progress display, which are the run's own. */
export interface ProjectRunOptions extends RunMetricsOptions, Omit<SyncUnitOptions, 'partition' | 'progress'> {
  configFile: string;
  syncNames: readonly string[];
  /** Log only warnings (a progress bar is showing). */
  quiet?: boolean;
  logger?: Logger;
  progress?: (sync: string, total?: number) => { update(counts: RunCounts, limits?: PushLimits): void; stop(): void };
  /** More run-level listeners (alerts, a console), told of each sync and of the run's end. */
  listeners?: readonly RunListener[];
}

export type ProjectRunSummary = SyncRunSummary;

export async function runProject(options: ProjectRunOptions): Promise<ProjectRunSummary[]> {
  const config = await loadProject(options.configFile);
  const base = options.logger ?? createLogger(options.quiet ? { level: 'warn' } : {});
  // Every line of a dry run says so: nothing it logs was pushed or stored.
  const logger = options.dryRun ? base.child({ dryRun: true }) : base;
  // An include: that matched nothing must not go unseen when the syncs it meant to add are missing.
  for (const warning of config.warnings) logger.warn(warning);
  const syncs = selectSyncs(config, options.syncNames);

  const prepared: PreparedSync[] = await prepareAll(syncs, (sync) => inspectSync(config, sync), 'nothing was pushed; fix the lines above and run again');
  if (options.follow) refuseFollow(prepared, options);

  const { metrics, listeners: metricsListeners } = await runMetricsListeners(config, options);
  const tracing = await tracingListener('ferry run', { 'ferry.syncs': prepared.map((p) => p.sync.name).join(','), 'ferry.dry_run': options.dryRun ? 1 : 0 }, logger);
  const units = prepared.flatMap((sync) => syncUnits(config, sync, options));
  const { summaries } = await orchestrateRun({
    kind: 'run',
    config,
    logger,
    units,
    stop: { signals: 'stopping: finishing in-flight requests and checkpointing' },
    budget: options.dryRun ? 'none' : 'open',
    service: {
      rideOutages: true,
      // One connection per request in flight, for the busiest sync.
      // One connection per request in flight, for the busiest sync: its bound, or the adaptive limit's cap when unbounded.
      concurrency: connectionsFor(config, prepared),
      ...(metrics ? { observer: metrics.clientObserver() } : {}),
    },
    // A dry run pushed nothing: there is nothing to alert on.
    listeners: [failureLog(logger), ...metricsListeners, tracing, options.dryRun ? undefined : alertsListener(config, logger), ...(options.listeners ?? [])],
  });
  return summaries;
}

/** `--follow` streams one sync until stopped: a second sync would never get its turn, a source that cannot wait would just end. */
function refuseFollow(prepared: readonly PreparedSync[], options: ProjectRunOptions): void {
  if (options.dryRun || options.retryFailures) throw new FerryError('FERRY_USAGE', '--follow cannot be combined with --dry-run or failures retry');
  if (prepared.length !== 1) {
    throw new FerryError('FERRY_USAGE', `--follow streams one sync until it is stopped, and ${prepared.length} were selected`, {
      hint: 'name the sync: `ferry run <sync> --follow` (one process per followed sync)',
    });
  }
  const { source, sync } = prepared[0]!;
  if (source.follows !== true) {
    throw new FerryError('FERRY_USAGE', `sync "${sync.name}": the ${source.name} source cannot follow (it reads what is there and ends)`, {
      hint: 'run it without --follow, on a schedule; postgres-cdc follows',
    });
  }
}

/** One error line per sync that failed, with its code, hint and exit code. */
function failureLog(logger: Logger): RunListener {
  return {
    unitStarted: (unit) => ({
      finished(summary, error) {
        if (error === undefined) return;
        logger.error({ sync: unit.name, ...errorFields(error), exitCode: summary.exitCode }, `sync ${unit.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    }),
  };
}
