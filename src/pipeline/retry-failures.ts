/**
 * `ferry failures retry`: dead-lettered records are mapped again from the
 * source record stored with them, with the current mapping and object type,
 * and pushed. A fix to the mapping, the object type or the service is picked
 * up; a fix in the source data is picked up by the next ordinary run instead.
 */
import type { StateStore } from '../state/index.js';
import type { SinkService } from '../sink/index.js';
import type { PreparedSync } from './prepare.js';
import { runSync } from './run-sync.js';
import type { RunOptions, RunSummary } from './run-sync.js';
import type { Unit } from './units.js';

export async function retryFailures(
  prepared: PreparedSync,
  deps: { store: StateStore; service: SinkService },
  options: Omit<RunOptions, 'replay' | 'fullRefresh'>,
): Promise<RunSummary> {
  const entries = await deps.store.failures({ sync: prepared.sync.name });
  async function* replay(): AsyncIterable<Unit> {
    for (const entry of entries) {
      if (entry.sourceRecord === null || entry.sourceRecord === undefined) continue;
      yield { input: entry.sourceRecord, origin: entry.origin ?? `dead-letter #${entry.id}`, failureId: entry.id };
    }
  }
  return runSync(prepared, deps, { ...options, replay: replay() });
}
