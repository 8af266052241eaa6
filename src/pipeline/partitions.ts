/**
 * Partitioned syncs (`partitions: { count }`): the sync is cut into slices
 * that run as separate units of work, one after another locally or one queue
 * job each on workers. A slice has its own lock, cursor and run rows, kept
 * under its own state key (`orders#3/8`); the ledger and the dead-letter stay
 * under the sync's name, shared by every slice, since slices never overlap
 * and a remote id therefore belongs to exactly one of them.
 */
import type { LoadedSync } from '../config/index.js';
import type { ReadPartition } from '../sdk/types.js';
import type { SinkService } from '../sink/index.js';
import type { StateStore } from '../state/index.js';
import type { PreparedSync } from './prepare.js';
import { runSync } from './run-sync.js';
import { failedRunSummary } from './run-summary.js';
import type { RunOptions, RunSummary } from './run-sync.js';

/** The slices of a sync, or `[undefined]` (the whole sync) when it is not partitioned. */
export function partitionsOf(sync: Pick<LoadedSync, 'partitions'>): (ReadPartition | undefined)[] {
  const count = sync.partitions?.count;
  if (count === undefined) return [undefined];
  return Array.from({ length: count }, (_, index) => ({ index, count }));
}

/** The state key of one slice: lock, cursor and runs live under it. */
export function partitionKey(sync: string, partition: ReadPartition): string {
  return `${sync}#${partition.index}/${partition.count}`;
}

/** State calls that belong to the slice rather than to the whole sync. */
const SLICE_METHODS = new Set<keyof StateStore>(['acquireLock', 'renewLock', 'releaseLock', 'lockHolder', 'cursor', 'checkpoint', 'startRun']);

/**
 * The store as one slice's run sees it: lock, cursor, checkpoint and run rows
 * of `sync` are redirected to the slice's key; everything else (the ledger,
 * the dead-letter) passes through under the sync's name.
 */
export function partitionStore(store: StateStore, sync: string, partition: ReadPartition): StateStore {
  const key = partitionKey(sync, partition);
  // Made once per method, not on every call: the run calls the store several times per record.
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let made = wrapped.get(property);
      if (made === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        made = SLICE_METHODS.has(property as keyof StateStore)
          ? (first: unknown, ...rest: unknown[]) => method.call(target, first === sync ? key : first, ...rest)
          : method.bind(target);
        wrapped.set(property, made);
      }
      return made;
    },
  });
}

/**
 * Runs one slice (or the whole sync when `partition` is undefined). With
 * `shareRate`, the sync's request rate is split evenly between its slices, so
 * that all of them running at once on different workers stay within it.
 */
export async function runSyncPart(
  prepared: PreparedSync,
  deps: { store: StateStore; service: SinkService },
  options: RunOptions,
  partition: ReadPartition | undefined,
  shareRate = false,
): Promise<RunSummary> {
  if (partition === undefined) return runSync(prepared, deps, options);
  const name = prepared.sync.name;
  const key = partitionKey(name, partition);
  const bound = options.maxRequestsPerSecond;
  const maxRequestsPerSecond = shareRate && bound !== undefined ? bound / partition.count : bound;
  try {
    const summary = await runSync(prepared, { ...deps, store: partitionStore(deps.store, name, partition) }, { ...options, partition, maxRequestsPerSecond });
    return { ...summary, sync: key };
  } catch (error) {
    const attached = failedRunSummary(error);
    if (attached) attached.sync = key;
    throw error;
  }
}
