/**
 * The slices of a partitioned sync share one target (its source and object
 * type). Run at once on several workers, each found it missing and created
 * it: all but one got a 409 and recovered (6-11 of them at the start of a
 * sync's run). So a slice sets the target up holding a lock of the sync's
 * own, `<sync>#setup` in the state store: the first creates it, the others
 * wait for the lock and then find it there.
 */
import type { Logger } from 'pino';
import { newOwnerId } from '../state/run-lease.js';
import type { LockStore } from '../state/index.js';
import { sleep } from '../sdk/http-retry.js';

/** Long enough for a slow setup (listing, creating, sampling nothing: the sampling is done before). */
const SETUP_LEASE_MS = 60_000;
/** Poll interval while another slice sets up. */
const POLL_MS = 50;

/** The lock's key. */
export function setupLockKey(sync: string): string {
  return `${sync}#setup`;
}

/**
 * Runs `setUp` holding the sync's setup lock. When the lock is not had
 * within the lease's length (its holder died), it runs anyway: setting up
 * twice still works (a 409 is recovered), it is only wasteful.
 */
export async function withSetupLock<T>(store: LockStore, sync: string, log: Logger, signal: AbortSignal, setUp: () => Promise<T>): Promise<T> {
  const key = setupLockKey(sync);
  const owner = newOwnerId();
  const giveUpAt = Date.now() + SETUP_LEASE_MS;
  let held = false;
  let waited = false;
  while (!(held = await store.acquireLock(key, owner, SETUP_LEASE_MS)) && Date.now() < giveUpAt) {
    if (!waited) log.debug({ sync }, 'another slice is setting up the target; waiting for it');
    waited = true;
    await sleep(POLL_MS, signal, 'waiting for the target setup');
  }
  try {
    return await setUp();
  } finally {
    if (held) await store.releaseLock(key, owner);
  }
}
