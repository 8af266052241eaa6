import { describe, expect, it } from 'vitest';
import { emptyCounts, openStateStore, RUN_COUNTS_ZERO } from '../../../src/state/index.js';
import { fakeClock } from './helpers.js';

describe('runs', () => {
  it('starts, updates and finishes a run with counts, duration and the committed cursor', () => {
    const clock = fakeClock();
    const store = openStateStore('sqlite::memory:', { now: clock.now });
    const runId = store.startRun('deals');
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(store.lastRun('deals')).toMatchObject({
      runId,
      sync: 'deals',
      status: 'running',
      startedAt: '2024-03-01T12:00:00.000Z',
      finishedAt: null,
      durationMs: null,
      error: null,
      cursor: null,
      counts: emptyCounts(),
    });

    store.updateRun(runId, { ...RUN_COUNTS_ZERO, read: 10, pushed: 4 });
    expect(store.lastRun('deals')?.counts).toMatchObject({ read: 10, pushed: 4 });

    clock.advance(1234);
    store.checkpoint('deals', { value: '2024-02-29T23:59:59.999999Z', key: '7' });
    const counts = { read: 10, pushed: 8, created: 5, updated: 3, unchanged: 1, failed: 1, deleted: 0, skipped: 0 };
    store.finishRun(runId, { status: 'partial', counts, error: '1 record rejected' });
    expect(store.lastRun('deals')).toEqual({
      runId,
      sync: 'deals',
      status: 'partial',
      startedAt: '2024-03-01T12:00:00.000Z',
      finishedAt: '2024-03-01T12:00:01.234Z',
      durationMs: 1234,
      error: '1 record rejected',
      cursor: { value: '2024-02-29T23:59:59.999999Z', key: '7' },
      counts,
    });
    store.close();
  });

  it('lists runs newest first, per sync and with a limit', () => {
    const store = openStateStore('sqlite::memory:');
    const ids = ['a', 'b', 'a', 'a'].map((sync) => ({ sync, runId: store.startRun(sync) }));
    expect(store.runs().map((r) => r.runId)).toEqual(ids.map((r) => r.runId).reverse());
    expect(store.runs({ sync: 'a' }).map((r) => r.runId)).toEqual([ids[3]?.runId, ids[2]?.runId, ids[0]?.runId]);
    expect(store.runs({ sync: 'a', limit: 1 })).toHaveLength(1);
    expect(store.lastRun('b')?.runId).toBe(ids[1]?.runId);
    expect(store.lastRun('none')).toBeUndefined();
    store.close();
  });

  it('commits buffered writes when a run finishes, without moving the cursor', () => {
    const store = openStateStore('sqlite::memory:');
    const runId = store.startRun('deals');
    store.checkpoint('deals', { value: 1 });
    store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
    store.finishRun(runId, { status: 'failed', counts: emptyCounts(), error: 'source lost' });
    expect(store.fingerprints('deals', ['a']).size).toBe(1);
    expect(store.cursor('deals')).toEqual({ value: 1 });
    expect(store.lastRun('deals')).toMatchObject({ status: 'failed', error: 'source lost', cursor: { value: 1 } });
    store.close();
  });

  it('refuses to update a run it does not know', () => {
    const store = openStateStore('sqlite::memory:');
    expect(() => store.updateRun('nope', emptyCounts())).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    expect(() => store.finishRun('nope', { status: 'succeeded', counts: emptyCounts() })).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    store.close();
  });

  it('gives fresh zero counts', () => {
    const a = emptyCounts();
    a.read = 5;
    expect(emptyCounts().read).toBe(0);
    expect(Object.isFrozen(RUN_COUNTS_ZERO)).toBe(true);
    expect(Object.values(RUN_COUNTS_ZERO).every((v) => v === 0)).toBe(true);
  });
});
