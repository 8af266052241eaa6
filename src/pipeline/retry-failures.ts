/**
 * `ferry failures retry`: dead-lettered records are mapped again from the
 * source record stored with them, with the current mapping and object type,
 * and pushed. A fix to the mapping, the object type or the service is picked
 * up; a fix in the source data is picked up by the next ordinary run instead.
 */
import type { DeadLetterStore, StateStore } from '../state/index.js';
import type { SinkService } from '../sink/index.js';
import type { PreparedSync } from './prepare.js';
import { runSync } from './run-sync.js';
import type { RunOptions, RunSummary } from './run-sync.js';
import type { Unit } from './units.js';
import { DEAD_LETTER_VALUE_BYTES, isExcerpt } from './dead-letter-excerpt.js';
import { formatBytes } from '../sdk/bytes.js';

/** Dead-letter entries read per query: a dead-letter may hold a whole sync's records, each with its bodies. */
export const REPLAY_PAGE = 500;

export async function retryFailures(
  prepared: PreparedSync,
  deps: { store: StateStore; service: SinkService },
  options: Omit<RunOptions, 'replay' | 'fullRefresh'>,
  /** Only these dead-letter entries (the console's "retry selected"); all of the sync's when omitted. */
  failureIds?: readonly number[],
): Promise<RunSummary> {
  const excerpts: number[] = [];
  const replay = replayUnits(deps.store, prepared.sync.name, REPLAY_PAGE, failureIds, (id) => excerpts.push(id));
  const summary = await runSync(prepared, deps, { ...options, replay });
  if (excerpts.length > 0) {
    // Replaying an excerpt would push the cut record: those entries stay, and the warning says how to land them.
    options.logger.warn(
      { sync: prepared.sync.name, entries: excerpts },
      `${excerpts.length} dead-letter entr${excerpts.length === 1 ? 'y' : 'ies'} (#${excerpts.join(', #')}) hold only an excerpt of a record larger than ${formatBytes(DEAD_LETTER_VALUE_BYTES)} and were not retried: ` +
        'fix the cause, then `ferry run --full-refresh` the sync to read them again from the source (or `ferry failures purge`)',
    );
  }
  return summary;
}

/**
 * The sync's dead-letter entries as units, newest first, a page at a time
 * (keyset paging by id, so memory stays bounded however many there are).
 * Each page starts below the last id of the one before; an entry that fails
 * again during the replay is written with a new, higher id, so it is not
 * replayed twice in one retry.
 */
export async function* replayUnits(
  store: DeadLetterStore,
  sync: string,
  pageSize = REPLAY_PAGE,
  only?: readonly number[],
  /** Told the id of each entry left out because it holds an excerpt ({@link isExcerpt}), not the record. */
  onExcerpt?: (id: number) => void,
): AsyncIterable<Unit> {
  const wanted = only === undefined ? undefined : new Set(only);
  // Ids only ever grow, so a page that starts below the smallest wanted id has none of them.
  const lowest = wanted === undefined ? undefined : Math.min(...wanted);
  let beforeId = wanted === undefined ? undefined : Math.max(...wanted) + 1;
  for (;;) {
    if (wanted !== undefined && (wanted.size === 0 || (beforeId !== undefined && beforeId <= lowest!))) return;
    const page = await store.failures({ sync, limit: pageSize, ...(beforeId === undefined ? {} : { beforeId }) });
    for (const entry of page) {
      if (wanted !== undefined && !wanted.has(entry.id)) continue;
      if (entry.sourceRecord === null || entry.sourceRecord === undefined) continue;
      if (isExcerpt(entry.sourceRecord)) {
        onExcerpt?.(entry.id);
        continue;
      }
      yield { input: entry.sourceRecord, origin: entry.origin ?? `dead-letter #${entry.id}`, failureId: entry.id };
    }
    if (page.length < pageSize) return;
    beforeId = page[page.length - 1]!.id;
  }
}
