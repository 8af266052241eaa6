import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_EVERY_UNITS, CHECKPOINT_INTERVAL_MS, Checkpointer } from '../../../src/pipeline/checkpointer.js';
import type { StateStore } from '../../../src/state/index.js';
import { emptyCounts } from '../../../src/state/index.js';

/** A store that only counts the checkpoint-time writes. */
function countingStore() {
  const calls = { checkpoint: 0, flush: 0, updateRun: 0 };
  const store = {
    checkpoint: async () => void calls.checkpoint++,
    flush: async () => void calls.flush++,
    updateRun: async () => void calls.updateRun++,
  } as unknown as StateStore;
  return { store, calls };
}

describe('Checkpointer', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  let cursor = 0;
  const finishAll = async (checkpointer: Checkpointer, units: number, unchanged: boolean) => {
    for (let i = 0; i < units; i++) await checkpointer.finished(checkpointer.begin({ value: cursor++ }), unchanged);
  };

  it(`checkpoints every ${CHECKPOINT_EVERY_UNITS} units that wrote something`, async () => {
    const { store, calls } = countingStore();
    const checkpointer = new Checkpointer(store, 'deals', 'run-1', emptyCounts(), pino({ level: 'silent' }));
    await finishAll(checkpointer, CHECKPOINT_EVERY_UNITS * 3, false);
    expect(calls.checkpoint).toBe(3);
    expect(calls.updateRun).toBe(3);
  });

  it('does not count units found unchanged at the source toward it, only the time trigger', async () => {
    const { store, calls } = countingStore();
    const checkpointer = new Checkpointer(store, 'deals', 'run-1', emptyCounts(), pino({ level: 'silent' }));
    await finishAll(checkpointer, CHECKPOINT_EVERY_UNITS * 3, true);
    expect(calls).toEqual({ checkpoint: 0, flush: 0, updateRun: 0 });
    vi.setSystemTime(Date.now() + CHECKPOINT_INTERVAL_MS);
    await finishAll(checkpointer, 1, true);
    expect(calls).toEqual({ checkpoint: 1, flush: 0, updateRun: 1 });
    // The final checkpoint still stores the position past every unit.
    await checkpointer.final(checkpointer.tracker.finalPosition());
    expect(calls.checkpoint).toBe(2);
  });
});
