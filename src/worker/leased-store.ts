/**
 * The state store as a worker hands it to one run. The runner takes the
 * sync's lock with its own one-minute lease; a worker wants the lease it was
 * configured with (short in tests, so a dead worker's run moves on quickly),
 * renewed on its own clock together with the queue job's lease, and it wants
 * to know when the lease is lost (another worker took the sync over after
 * this one stalled) so the run stops instead of running twice.
 *
 * Everything else passes straight through; `close` is the worker's business.
 */
import type { StateStore } from '../state/index.js';

export interface LeaseHooks {
  leaseMs: number;
  /** Called on every renewal (the queue job's lease is extended here). */
  onRenew: () => Promise<void>;
  /** Called once when a renewal finds the lease held by someone else. */
  onLost: (sync: string) => void;
  /** How long to keep trying for a lock another holder still has (its lease may be about to lapse). */
  acquireWaitMs: number;
  onError: (error: unknown) => void;
}

export function leasedStore(store: StateStore, hooks: LeaseHooks): StateStore {
  const renewals = new Map<string, NodeJS.Timeout>();

  const startRenewing = (sync: string, owner: string) => {
    const timer = setInterval(() => {
      void (async () => {
        try {
          const held = await store.renewLock(sync, owner, hooks.leaseMs);
          if (!held) {
            clearInterval(timer);
            hooks.onLost(sync);
            return;
          }
          await hooks.onRenew();
        } catch (error) {
          hooks.onError(error);
        }
      })();
    }, Math.max(200, Math.floor(hooks.leaseMs / 3)));
    timer.unref();
    renewals.set(`${sync}\u0000${owner}`, timer);
  };

  const overrides: Partial<Record<keyof StateStore, unknown>> = {
    async acquireLock(sync: string, owner: string, _ttlMs: number, options?: { takeOverFrom?: string }): Promise<boolean> {
      const deadline = Date.now() + hooks.acquireWaitMs;
      for (;;) {
        if (await store.acquireLock(sync, owner, hooks.leaseMs, options)) {
          startRenewing(sync, owner);
          return true;
        }
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(500, hooks.leaseMs / 4)));
      }
    },
    async renewLock(sync: string, owner: string): Promise<boolean> {
      return store.renewLock(sync, owner, hooks.leaseMs);
    },
    async releaseLock(sync: string, owner: string): Promise<void> {
      const key = `${sync}\u0000${owner}`;
      clearInterval(renewals.get(key));
      renewals.delete(key);
      await store.releaseLock(sync, owner);
    },
    async close(): Promise<void> {
      await store.flush();
    },
  };

  // Bound once per method, not on every call: the run calls the store several times per record.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in overrides) return overrides[property as keyof StateStore];
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) bound.set(property, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
}
