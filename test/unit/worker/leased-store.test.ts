import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { leasedStore } from '../../../src/worker/leased-store.js';
import type { LeaseHooks } from '../../../src/worker/leased-store.js';

const stores: StateStore[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const store of stores.splice(0)) await store.close();
});

async function setUp(overrides: Partial<LeaseHooks> = {}) {
  let t = Date.parse('2024-03-01T12:00:00Z');
  const clock = { now: () => t, advance: (ms: number) => void (t += ms) };
  const inner = await openStateStore('sqlite::memory:', { now: clock.now });
  stores.push(inner);
  const hooks = { leaseMs: 3000, acquireWaitMs: 0, onRenew: vi.fn(async () => undefined), onLost: vi.fn(), onError: vi.fn(), ...overrides };
  return { inner, store: leasedStore(inner, hooks), hooks, clock };
}

describe('leasedStore', () => {
  it("takes the lock with the worker's lease, whatever lease the runner asks for", async () => {
    const { inner, store, clock } = await setUp();
    expect(await store.acquireLock('deals', 'run-1', 60_000)).toBe(true);
    expect((await inner.lockHolder('deals'))?.expiresMs).toBe(clock.now() + 3000);
    expect(await store.renewLock('deals', 'run-1', 60_000)).toBe(true);
    await store.releaseLock('deals', 'run-1');
    expect(await inner.lockHolder('deals')).toBeUndefined();
  });

  it('renews on its own clock, extends the job with it, and reports a lost lease once', async () => {
    vi.useFakeTimers();
    const { inner, store, hooks, clock } = await setUp();
    await store.acquireLock('deals', 'run-1', 60_000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(hooks.onRenew).toHaveBeenCalledTimes(1);
    // Stalled past the lease: another worker takes the sync over.
    clock.advance(10_000);
    expect(await inner.acquireLock('deals', 'other-worker', 3000)).toBe(true);
    await vi.advanceTimersByTimeAsync(2000);
    expect(hooks.onLost).toHaveBeenCalledTimes(1);
    expect(hooks.onLost).toHaveBeenCalledWith('deals');
  });

  it('waits a while for a lock whose holder may be about to let go', async () => {
    const { inner, store } = await setUp({ acquireWaitMs: 2000 });
    await inner.acquireLock('deals', 'finishing', 60_000);
    setTimeout(() => void inner.releaseLock('deals', 'finishing'), 300);
    expect(await store.acquireLock('deals', 'run-2', 60_000)).toBe(true);
    await store.releaseLock('deals', 'run-2');
  });

  it('gives up when the holder keeps it, and leaves the shared store open on close', async () => {
    const { inner, store } = await setUp({ acquireWaitMs: 100 });
    await inner.acquireLock('deals', 'busy', 60_000);
    expect(await store.acquireLock('deals', 'run-3', 60_000)).toBe(false);
    await store.close();
    expect(await inner.cursor('deals')).toBeUndefined(); // still usable
  });
});
