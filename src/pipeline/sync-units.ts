/**
 * A sync as units of work for the run orchestrator (src/run/orchestrator.ts):
 * one unit for the whole sync, or one per slice of a partitioned sync. Both
 * `ferry run` and a worker's job run syncs through these, so how a sync is
 * run — its request limits, its flags, what a failure's summary says — has
 * one home.
 */
import { CONCURRENCY_CAP } from '../sdk/transport/control/concurrency-limit.js';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/index.js';
import { isFerryError } from '../sdk/errors.js';
import type { ReadPartition } from '../sdk/types.js';
import type { RunCounts } from '../state/index.js';
import type { PushLimits } from '../sink/index.js';
import { emptyCounts } from '../state/index.js';
import type { RunUnit } from '../run/orchestrator.js';
import { discoverStreams } from './prepare.js';
import type { PreparedSync } from './prepare.js';
import { partitionKey, partitionsOf, runSyncPart } from './partitions.js';
import { retryFailures } from './retry-failures.js';
import type { RunOptions, RunSummary } from './run-sync.js';
import { exitCodeOf, failedRunSummary } from './run-summary.js';
import { countVisible } from './verify.js';

export interface SyncRunSummary extends RunSummary {
  /** With `verify`: records of this sync's target the service returns. */
  visible?: number;
}

export interface SyncUnitOptions {
  fullRefresh?: boolean;
  dryRun?: boolean;
  forceDeletes?: boolean;
  /** `ferry run --follow`: the sync's source reads until the run is stopped (see refuseFollow in run-project.ts). */
  follow?: boolean;
  /** Count what the read side shows after each sync. */
  verify?: boolean;
  /** Replay the dead-letter instead of reading the source (`failures retry`): one unit for the whole sync, as its slices share it. */
  retryFailures?: boolean;
  /** With `retryFailures`: only these dead-letter entries (the console's "retry selected"). */
  failureIds?: readonly number[];
  /**
   * Run only this slice (a worker's job for one slice). The slice then gets
   * a share of the sync's own `maxRequestsPerSecond`, as the other slices
   * may be running on other workers at the same time.
   */
  partition?: ReadPartition;
  /** A progress display per unit (`total`: the records the source expects, when it knows). */
  progress?: ((name: string, total?: number) => { update(counts: RunCounts, limits?: PushLimits): void; stop(): void }) | undefined;
}

/** The units of one prepared sync: its slices one after another, or the whole sync. */
export function syncUnits(config: LoadedConfig, prepared: PreparedSync, options: SyncUnitOptions = {}): RunUnit<SyncRunSummary>[] {
  const parts = options.retryFailures ? [undefined] : options.partition ? [options.partition] : partitionsOf(prepared.sync);
  const shareRate = options.partition !== undefined && prepared.sync.maxRequestsPerSecond !== undefined;
  return parts.map((partition) => syncUnit(config, prepared, options, partition, shareRate));
}

function syncUnit(config: LoadedConfig, prepared: PreparedSync, options: SyncUnitOptions, partition: ReadPartition | undefined, shareRate: boolean): RunUnit<SyncRunSummary> {
  const name = partition ? partitionKey(prepared.sync.name, partition) : prepared.sync.name;
  return {
    kind: 'sync',
    name,
    owner: prepared.sync.name,
    async run(ctx) {
      const progress = options.progress?.(name, partition ? undefined : await estimateTotal(prepared, ctx.logger));
      try {
        const runOptions: RunOptions = {
          ...(options.fullRefresh ? { fullRefresh: true } : {}),
          ...(options.dryRun ? { dryRun: true } : {}),
          ...(options.forceDeletes ? { forceDeletes: true } : {}),
          ...(options.follow ? { follow: true } : {}),
          signal: ctx.signal,
          logger: ctx.logger,
          ...serviceLimits(config, prepared),
          ...(progress ? { onProgress: (counts: RunCounts, limits?: PushLimits) => progress.update(counts, limits) } : {}),
          ...ctx.hooks,
          ...(ctx.share ? { share: ctx.share } : {}),
        };
        const deps = { store: ctx.store, service: ctx.service };
        const summary: SyncRunSummary = options.retryFailures
          ? await retryFailures(prepared, deps, runOptions, options.failureIds)
          : await runSyncPart(prepared, deps, runOptions, partition, shareRate);
        if (options.verify && !options.dryRun) summary.visible = await countVisible(ctx.service, prepared.sync);
        return summary;
      } finally {
        progress?.stop();
      }
    },
    failed: (error) => failedSummary(name, error),
  };
}

/** A sync's request limits: its own overrides, else the project's service settings. */
export function serviceLimits(
  config: LoadedConfig,
  prepared: PreparedSync,
): { concurrency: number | undefined; maxRequestsPerSecond: number | undefined; maxAttempts: number; outageBudgetMs: number; limitsKey: string } {
  return {
    limitsKey: config.service.baseUrl,
    concurrency: prepared.sync.concurrency ?? config.service.concurrency,
    maxRequestsPerSecond: prepared.sync.maxRequestsPerSecond ?? config.service.maxRequestsPerSecond,
    maxAttempts: config.service.maxAttempts,
    outageBudgetMs: config.service.outageBudgetSeconds * 1000,
  };
}

/** The summary of a sync whose run threw: what the failure carries (counts, run id, cursor), else an empty failed run. */
function failedSummary(sync: string, error: unknown): SyncRunSummary {
  const attached = failedRunSummary(error);
  const message = isFerryError(error) ? error.describe() : error instanceof Error ? error.message : String(error);
  const exitCode = exitCodeOf('failed', error);
  if (attached) return { ...attached, error: message, exitCode, status: 'failed' };
  return { sync, runId: null, status: 'failed', counts: emptyCounts(), durationMs: 0, cursor: null, changes: [], error: message, exitCode };
}

async function estimateTotal(prepared: PreparedSync, logger: Logger): Promise<number | undefined> {
  if (!process.stderr.isTTY || prepared.sync.group) return undefined;
  try {
    const streams = await discoverStreams(prepared, logger);
    const known = streams.map((s) => s.estimatedCount);
    return known.every((n) => typeof n === 'number') ? known.reduce((a, b) => a + b, 0) : undefined;
  } catch {
    return undefined;
  }
}

/** Connections the client keeps for these syncs: the highest concurrency bound, or the adaptive limit's cap when one sync has none. */
export function connectionsFor(config: LoadedConfig, prepared: readonly PreparedSync[]): number {
  const bounds = prepared.length === 0 ? [config.service.concurrency] : prepared.map((p) => p.sync.concurrency ?? config.service.concurrency);
  return bounds.some((b) => b === undefined) ? CONCURRENCY_CAP : Math.max(...(bounds as number[]));
}
