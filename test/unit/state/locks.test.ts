import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import { fakeClock } from './helpers.js';

describe('locks', () => {
  it('lets one owner hold a sync at a time, independently per sync', () => {
    const store = openStateStore('sqlite::memory:');
    expect(store.acquireLock('deals', 'p1', 60_000)).toBe(true);
    expect(store.acquireLock('deals', 'p2', 60_000)).toBe(false);
    expect(store.acquireLock('deals', 'p1', 60_000)).toBe(true); // re-entrant for the holder
    expect(store.acquireLock('notes', 'p2', 60_000)).toBe(true);
    store.close();
  });

  it('hands the lock over after release, and ignores a release by a non-holder', () => {
    const store = openStateStore('sqlite::memory:');
    store.acquireLock('deals', 'p1', 60_000);
    store.releaseLock('deals', 'p2');
    expect(store.acquireLock('deals', 'p2', 60_000)).toBe(false);
    store.releaseLock('deals', 'p1');
    expect(store.acquireLock('deals', 'p2', 60_000)).toBe(true);
    store.close();
  });

  it('lets an expired lease be taken over, and renewing keeps it alive', () => {
    const clock = fakeClock();
    const store = openStateStore('sqlite::memory:', { now: clock.now });
    expect(store.acquireLock('deals', 'p1', 1000)).toBe(true);
    clock.advance(900);
    expect(store.renewLock('deals', 'p1', 1000)).toBe(true); // now expires at 1900
    clock.advance(900);
    expect(store.acquireLock('deals', 'p2', 1000)).toBe(false);
    clock.advance(101);
    expect(store.acquireLock('deals', 'p2', 1000)).toBe(true);
    expect(store.renewLock('deals', 'p1', 1000)).toBe(false); // p1 lost it
    expect(store.renewLock('deals', 'p2', 1000)).toBe(true);
    expect(store.renewLock('other', 'p2', 1000)).toBe(false);
    store.close();
  });

  it('marks the runs of a dead holder aborted when its lease is taken over', () => {
    const clock = fakeClock();
    const store = openStateStore('sqlite::memory:', { now: clock.now });
    store.acquireLock('deals', 'dead', 1000);
    const orphan = store.startRun('deals');
    clock.advance(5000);
    expect(store.acquireLock('deals', 'alive', 1000)).toBe(true);
    expect(store.runs({ sync: 'deals' })[0]).toMatchObject({ runId: orphan, status: 'aborted', durationMs: 5000 });
    expect(store.lastRun('deals')?.error).toMatch(/lock expired/);
    store.close();
  });

  it('rejects a non-positive lease', () => {
    const store = openStateStore('sqlite::memory:');
    expect(() => store.acquireLock('deals', 'p1', 0)).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    store.close();
  });
});
