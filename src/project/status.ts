/**
 * What `ferry status` and the console show per sync: its last run (a run
 * still marked running whose process is gone shows as abandoned), cursor,
 * open failures and live records.
 */
import type { LoadedConfig } from '../config/index.js';
import { sourceLagOf } from '../pipeline/source-upstream.js';
import type { ConnectorLogger, CursorPosition, SourceLag } from '../sdk/types.js';
import type { RunEntry, StateStore } from '../state/index.js';
import { readLease } from '../state/run-lease.js';

/** A run's status as `status` shows it: `abandoned` is a run still marked running whose process is gone. */
export type ShownRun = Omit<RunEntry, 'status'> & { status: RunEntry['status'] | 'abandoned' };

export interface SyncStatus {
  sync: string;
  /** False for a sync that only the state remembers (removed from the config). */
  configured: boolean;
  lastRun: ShownRun | null;
  /** Why the last run counts as abandoned (its process is gone, or its lease expired). */
  abandoned?: string;
  cursor: CursorPosition | null;
  openFailures: number;
  liveRecords: number;
  /** The last N runs, newest first, with `--runs N`. */
  runs?: RunEntry[];
  /** A change source's lag (postgres-cdc: its replication slot), or why it could not be read. */
  sourceLag?: SourceLag | { error: string };
}

/** Adds the lag of each configured sync whose source reports one (change sources: they are asked, over the network). */
export async function addSourceLag(config: LoadedConfig, statuses: SyncStatus[], logger: ConnectorLogger): Promise<void> {
  for (const status of statuses) {
    const sync = config.syncs.find((s) => s.name === status.sync);
    if (!sync) continue;
    const lag = await sourceLagOf(config, sync, status.cursor ?? undefined, logger);
    if (lag) status.sourceLag = lag;
  }
}

export async function collectStatus(
  store: StateStore,
  names: readonly string[],
  configured: ReadonlySet<string>,
  runs: number,
): Promise<SyncStatus[]> {
  const statuses: SyncStatus[] = [];
  for (const sync of names) {
    const lastRun = (await store.lastRun(sync)) ?? null;
    const abandoned = lastRun?.status === 'running' ? await abandonedBecause(store, sync) : undefined;
    statuses.push({
      sync,
      configured: configured.has(sync),
      lastRun: lastRun && abandoned ? { ...lastRun, status: 'abandoned' } : lastRun,
      ...(abandoned ? { abandoned } : {}),
      cursor: (await store.cursor(sync)) ?? null,
      openFailures: await store.failureCount(sync),
      liveRecords: await store.countLive(sync),
      ...(runs > 0 ? { runs: await store.runs({ sync, limit: runs }) } : {}),
    });
  }
  return statuses;
}

/**
 * A run marked running whose lease is free or stale was left by a process
 * that died: the next run takes the lease over and marks it aborted.
 */
async function abandonedBecause(store: StateStore, sync: string): Promise<string | undefined> {
  const lease = await readLease(store, sync);
  if (lease.state === 'held') return undefined;
  return lease.state === 'stale' ? lease.reason : 'its lock was released';
}
