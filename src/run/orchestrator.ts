/**
 * One run of ferry, whatever started it — `ferry run`, `ferry export`, a
 * worker's job — from prepared units of work to their summaries. The caller
 * (an adapter: src/pipeline/run-project.ts, src/export/run-exports.ts,
 * src/worker/execute.ts) loads the project, prepares what it runs and turns
 * it into units (a sync, a slice of one, an export); this module owns the
 * rest of the sequence, once:
 *
 *   stop signals → state store → shared request budget → service connection
 *   → each unit in turn, watched by the run's listeners → everything closed
 *   → the run's listeners told how it ended.
 *
 * A run-level concern (traces, metrics, an alert when a run ends) is a
 * {@link RunListener}: it sees each unit start and finish and the run end,
 * for every kind of run alike, and is added in one place (`listeners`).
 */
import type { Logger } from 'pino';
import type { ServiceClient } from '../api/client.js';
import type { LoadedConfig } from '../config/index.js';
import { isFerryError } from '../sdk/errors.js';
import type { RunCounts, StateStore } from '../state/index.js';
import { openProjectState } from '../runtime/project.js';
import { openSharedBudget } from '../runtime/rate-budget.js';
import type { SharedRateBudget } from '../runtime/rate-budget.js';
import type { RateShare } from '../sdk/transport/control/rate-share.js';
import { openService } from '../runtime/service.js';
import type { ServiceConnection } from '../runtime/service.js';
import { stopOnSignals } from '../runtime/stop-signals.js';
import type { LiveRunView } from '../metrics/sync-metrics.js';
import type { ClientObserver } from '../api/client.js';

export type RunKind = 'run' | 'export' | 'job';
export type RunStatus = 'succeeded' | 'partial' | 'failed' | 'aborted';

/** What every unit's summary has, syncs' and exports' alike. */
export interface RunResult {
  runId: string | null;
  status: RunStatus;
  counts: RunCounts;
  durationMs: number;
  exitCode: number;
  error?: string;
  /** The ferry error code of a failure, when the summary keeps one (exports do). */
  errorCode?: string;
}

/** Hooks a unit's runner calls while it runs; the run's listeners ask for them. */
export interface UnitHooks {
  /** The unit's run started, with objects that stay live until it ends (metrics read them when scraped). */
  onRunStart?: (run: LiveRunView) => void;
  /** A checkpoint was written (a trace's interval spans). */
  onCheckpoint?: (counts: Readonly<RunCounts>) => void;
}

/** What a unit runs with: the run's shared resources and its listeners' hooks. */
export interface UnitContext {
  store: StateStore;
  service: ServiceClient;
  /** Aborted when the run is asked to stop: finish what is in flight, checkpoint, return. */
  signal: AbortSignal;
  logger: Logger;
  hooks: UnitHooks;
  /** What processes sharing the API key learn together (the shared budget), when state is on PostgreSQL. */
  share?: RateShare;
}

/** One unit of work: a sync, one slice of a partitioned sync, or an export. */
export interface RunUnit<S extends RunResult> {
  kind: 'sync' | 'export';
  /** Its state key and name in logs and traces (`orders`, `orders#3/8`, an export's name). */
  name: string;
  /** The sync or export it belongs to (a slice's sync): per-sync metrics are kept under it. */
  owner: string;
  run(ctx: UnitContext): Promise<S>;
  /** The summary of a unit whose run threw (the failure's own summary when it carries one). */
  failed(error: unknown): S;
}

/** Watches one unit while it runs; made by a listener when the unit starts. */
export interface UnitWatcher extends UnitHooks {
  /** The unit ended, with its summary; `error` when its run threw. */
  finished(summary: RunResult, error?: unknown): void;
}

/** How a run ended, as its listeners are told. */
export interface FinishedRun {
  kind: RunKind;
  config: LoadedConfig;
  /** Each unit that ran, in order, failed ones included. */
  summaries: readonly RunResult[];
  /** The worst of the units' statuses; `failed` when the run itself broke off. */
  status: RunStatus;
  logger: Logger;
}

/** A run-level concern: traces, metrics, alerts. Every method is optional. */
export interface RunListener {
  /** A unit starts: return a watcher to see it run and finish. */
  unitStarted?(unit: RunUnit<RunResult>, ctx: UnitContext): UnitWatcher | undefined | Promise<UnitWatcher | undefined>;
  /** The run ended — also after a failure — and its resources are closed. Should not throw; a throw is logged. */
  runFinished?(run: FinishedRun): void | Promise<void>;
}

export interface OrchestratorOptions<S extends RunResult> {
  kind: RunKind;
  config: LoadedConfig;
  logger: Logger;
  units: readonly RunUnit<S>[];
  /**
   * How the run is stopped: on SIGINT/SIGTERM (`signals`: the line logged
   * then, and `signal`, which stops it too), or by the caller's signal alone
   * (a worker: its own SIGTERM handling and the job's lease).
   */
  stop: { signals: string; signal?: AbortSignal | undefined } | { signal: AbortSignal };
  /** The caller's state store, left open (a worker's leased store); otherwise the project's is opened and closed. */
  store?: StateStore;
  /** Log that a sync will start from the beginning when the project's SQLite state file is missing or empty (syncs; exports keep their own watermark). @default true */
  noteFreshState?: boolean;
  /** The API key's shared request budget: the caller's, `none`, or (the default) opened from the state database when it is shared. */
  budget?: SharedRateBudget | 'none' | 'open' | undefined;
  /** The service connection's settings. */
  service?: { concurrency?: number; rideOutages?: boolean; observer?: ClientObserver };
  /** After a unit threw, run no more units (a worker's job: the queue retries it whole). Otherwise go on, unless the service is gone. */
  failFast?: boolean;
  listeners?: readonly (RunListener | undefined)[];
}

/** What a run came to. */
export interface OrchestratedRun<S extends RunResult> {
  summaries: S[];
  /** The first unit whose run threw, and what it threw (with `failFast`, the last unit that ran). */
  failure?: { unit: RunUnit<S>; error: unknown };
}

export async function orchestrateRun<S extends RunResult>(options: OrchestratorOptions<S>): Promise<OrchestratedRun<S>> {
  const { config, logger } = options;
  const listeners = (options.listeners ?? []).filter((l): l is RunListener => l !== undefined);
  const stopping = 'signals' in options.stop ? stopOnSignals(logger, options.stop.signals, options.stop.signal) : { signal: options.stop.signal, dispose: () => undefined };
  const result: OrchestratedRun<S> = { summaries: [] };
  let completed = false;
  let store: StateStore | undefined;
  let budget: SharedRateBudget | undefined;
  try {
    store = options.store ?? (await openProjectState(config, options.noteFreshState === false ? undefined : logger));
    // With state on PostgreSQL, workers and other runs share the API key's request budget there: draw on it too.
    budget = options.budget === 'none' ? undefined : options.budget === undefined || options.budget === 'open' ? await openSharedBudget(config) : options.budget;
    const connection = await openService(config, { logger, ...options.service, gate: budget, ...(budget ? { share: budget } : {}) });
    try {
      await runUnits(options, listeners, { store, connection, signal: stopping.signal, share: connection.embedded ? undefined : budget }, result);
      completed = true;
    } finally {
      await connection.close();
    }
  } finally {
    if (!options.store) await store?.close();
    if (options.budget === undefined || options.budget === 'open') await budget?.close();
    stopping.dispose();
    const status = completed ? worstStatus(result.summaries) : 'failed';
    for (const listener of listeners) {
      try {
        await listener.runFinished?.({ kind: options.kind, config, summaries: result.summaries, status, logger });
      } catch (error) {
        logger.warn({ err: error }, 'a run listener failed after the run ended; the run\'s outcome stands');
      }
    }
  }
  return result;
}

async function runUnits<S extends RunResult>(
  options: OrchestratorOptions<S>,
  listeners: readonly RunListener[],
  open: { store: StateStore; connection: ServiceConnection; signal: AbortSignal; share?: RateShare | undefined },
  result: OrchestratedRun<S>,
): Promise<void> {
  for (const unit of options.units) {
    if (open.signal.aborted) break;
    const ctx: UnitContext = { store: open.store, service: open.connection.client, signal: open.signal, logger: options.logger, hooks: {}, ...(open.share ? { share: open.share } : {}) };
    const watchers: UnitWatcher[] = [];
    for (const listener of listeners) {
      const watcher = await listener.unitStarted?.(unit, ctx);
      if (watcher) watchers.push(watcher);
    }
    ctx.hooks = joinHooks(watchers);
    let summary: S;
    let error: unknown;
    let threw = false;
    try {
      summary = await unit.run(ctx);
    } catch (thrown) {
      threw = true;
      error = thrown;
      summary = unit.failed(thrown);
      result.failure ??= { unit, error: thrown };
    }
    result.summaries.push(summary);
    for (const watcher of watchers) watcher.finished(summary, error);
    if ((threw && options.failFast) || serviceGone(summary, error)) break;
  }
}

/** The service itself is gone or refuses us: later units would fail the same way. */
function serviceGone(summary: RunResult, error: unknown): boolean {
  const code = isFerryError(error) ? error.code : summary.errorCode;
  return code === 'FERRY_SERVICE_AUTH' || code === 'FERRY_SERVICE_UNREACHABLE';
}

/** The run's status: the worst of its units'. */
export function worstStatus(summaries: readonly RunResult[]): RunStatus {
  for (const status of ['failed', 'aborted', 'partial'] as const) if (summaries.some((s) => s.status === status)) return status;
  return 'succeeded';
}

function joinHooks(watchers: readonly UnitWatcher[]): UnitHooks {
  const starts = watchers.flatMap((w) => (w.onRunStart ? [w.onRunStart] : []));
  const checkpoints = watchers.flatMap((w) => (w.onCheckpoint ? [w.onCheckpoint] : []));
  return {
    ...(starts.length > 0 ? { onRunStart: (run: LiveRunView) => starts.forEach((f) => f(run)) } : {}),
    ...(checkpoints.length > 0 ? { onCheckpoint: (counts: Readonly<RunCounts>) => checkpoints.forEach((f) => f(counts)) } : {}),
  };
}
