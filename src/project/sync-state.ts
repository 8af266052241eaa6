/**
 * A sync's incremental state as `ferry state` and the console show it
 * (cursor, ledger size, open failures, lock), and resetting it under the
 * sync's lock.
 */
import type { Logger } from 'pino';
import type { CursorPosition } from '../sdk/types.js';
import type { LockStore, RunEntry, StateStore } from '../state/index.js';
import { readLease, RunLease } from '../state/run-lease.js';

export interface LockState {
  held: boolean;
  /** The run that holds it, when the last run of the sync is still marked running. */
  runId?: string;
  since?: string;
  /** A lock left by a process that is gone or whose lease expired: the next run takes it over. */
  stale?: string;
}

export interface SyncState {
  sync: string;
  configured: boolean;
  cursor: CursorPosition | null;
  liveRecords: number;
  openFailures: number;
  lock: LockState;
  lastRun: Pick<RunEntry, 'runId' | 'status' | 'startedAt' | 'finishedAt'> | null;
}

/** Whether a run holds the sync's lock, read without touching it. */
export async function lockState(store: LockStore, sync: string, lastRun: RunEntry | undefined): Promise<LockState> {
  const lease = await readLease(store, sync);
  if (lease.state === 'free') return { held: false };
  if (lease.state === 'stale') return { held: false, since: lease.since, stale: lease.reason };
  return lastRun?.status === 'running' ? { held: true, runId: lastRun.runId, since: lastRun.startedAt } : { held: true, since: lease.since };
}

export async function collectState(store: StateStore, names: readonly string[], configured: ReadonlySet<string>): Promise<SyncState[]> {
  const states: SyncState[] = [];
  for (const sync of names) {
    const lastRun = await store.lastRun(sync);
    const lock = await lockState(store, sync, lastRun);
    states.push({
      sync,
      configured: configured.has(sync),
      cursor: (await store.cursor(sync)) ?? null,
      liveRecords: await store.countLive(sync),
      openFailures: await store.failureCount(sync),
      lock,
      lastRun: lastRun
        ? { runId: lastRun.runId, status: lastRun.status, startedAt: lastRun.startedAt, finishedAt: lastRun.finishedAt }
        : null,
    });
  }
  return states;
}

/**
 * `ferry state reset`: forget the sync's cursor (with `cursorOnly`), or its
 * cursor, ledger and failures. The sync's lock is held meanwhile so a run in
 * progress cannot checkpoint over the reset (a live run makes this wait, then fail).
 */
export async function resetSync(store: StateStore, sync: string, options: { cursorOnly?: boolean }, logger: Logger): Promise<void> {
  const lease = await RunLease.acquire(store, sync, `sync "${sync}"`, logger);
  try {
    await store.reset(sync, options.cursorOnly ? { cursor: true } : undefined);
  } finally {
    await lease.release();
  }
}
