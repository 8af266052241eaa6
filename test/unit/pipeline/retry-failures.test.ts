/**
 * `ferry failures retry` reads the dead-letter a page at a time: every entry
 * is replayed once, newest first, and one that fails again during the replay
 * (written back with a new id) is not replayed a second time.
 */
import { describe, expect, it } from 'vitest';
import { replayUnits } from '../../../src/pipeline/retry-failures.js';
import { openStateStore } from '../../../src/state/index.js';
import type { FailureFilter, FailureWrite, StateStore } from '../../../src/state/index.js';

function failure(remoteId: string, extra: Partial<FailureWrite> = {}): FailureWrite {
  return { sync: 'deals', runId: null, remoteId, origin: `deals.csv:${remoteId}`, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: { id: remoteId }, ...extra };
}

/** The store, noting the filter of every page of the dead-letter read through it. */
function spyOnPages(store: StateStore, asked: FailureFilter[]): StateStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'failures') return (filter: FailureFilter) => (asked.push(filter), target.failures(filter));
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('replayUnits', () => {
  it('replays each entry once across pages, while the replay writes failures back', async () => {
    const store = await openStateStore('sqlite::memory:');
    try {
      for (let i = 0; i < 8; i++) await store.recordFailure(failure(`r${i}`));
      // An entry without its source record cannot be replayed: skipped, not an end of the pages.
      await store.recordFailure(failure('gone', { sourceRecord: null }));
      await store.flush();
      // Every read of the dead-letter is one bounded page.
      const asked: FailureFilter[] = [];
      const spied = spyOnPages(store, asked);
      const replayed: unknown[] = [];
      for await (const unit of replayUnits(spied, 'deals', 3)) {
        replayed.push(unit.input);
        // It fails again: the new entry replaces the one replayed, under a new id.
        await store.recordFailure(failure((unit.input as { id: string }).id, { replaces: unit.failureId!, reason: 'again' }));
        await store.flush();
      }
      expect(replayed).toEqual(['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0'].map((id) => ({ id })));
      const left = await store.failures({ sync: 'deals' });
      expect(left.filter((f) => f.reason === 'again')).toHaveLength(8);
      expect(left).toHaveLength(9);
      // Nine entries: three full pages, then an empty one.
      expect(asked.map((f) => f.limit)).toEqual([3, 3, 3, 3]);
    } finally {
      await store.close();
    }
  });

  it('replays only the entries asked for (the console\'s "retry selected"), reading no page below the lowest', async () => {
    const store = await openStateStore('sqlite::memory:');
    try {
      for (let i = 0; i < 10; i++) await store.recordFailure(failure(`r${i}`));
      await store.flush();
      const ids = (await store.failures({ sync: 'deals' })).map((f) => f.id);
      const wanted = [ids[2]!, ids[5]!, ids[6]!];
      const asked: FailureFilter[] = [];
      const spied = spyOnPages(store, asked);
      const replayed: number[] = [];
      for await (const unit of replayUnits(spied, 'deals', 2, wanted)) replayed.push(unit.failureId!);
      expect(replayed).toEqual(wanted);
      // Paging starts just above the highest id asked for and stops once below the lowest.
      expect(asked[0]!.beforeId).toBe(Math.max(...wanted) + 1);
      expect(asked.length).toBeLessThanOrEqual(3);
      const none: unknown[] = [];
      for await (const unit of replayUnits(store, 'deals', 2, [])) none.push(unit);
      expect(none).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
