/**
 * The run lease: one run of a sync (or export) at a time, across processes
 * sharing the state. A run takes the lease, renews it on a timer while it
 * works, and releases it at the end. The owner id names the process (pid and
 * host), so a lease left by a process that is gone on this host is taken over
 * at once; a lease held from another host lapses when it is not renewed.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { FerryError } from '../sdk/errors.js';
import { codeOf } from '../sdk/guards.js';
import type { LockStore } from './ports.js';
import type { LockHolder } from './types.js';

/** How long a lease lasts without renewal; renewed every third of it. */
export const LEASE_TTL_MS = 60_000;

/** Which process holds a lease, as parsed from its owner id. */
export interface LeaseOwner {
  host: string;
  pid: number;
}

/** What `ferry status` and `state show` tell about a lock, without touching it. */
export type LeaseState =
  | { state: 'free' }
  | { state: 'held'; owner: LeaseOwner | undefined; since: string }
  | { state: 'stale'; owner: LeaseOwner | undefined; since: string; reason: string };

/** `pid@host#nonce`: unique per lease, and tells which process holds it. */
export function newOwnerId(): string {
  return `${process.pid}@${hostname()}#${Math.random().toString(36).slice(2, 10)}`;
}

/** The process behind an owner id made by {@link newOwnerId}; undefined for other ids. */
export function parseOwnerId(owner: string): LeaseOwner | undefined {
  const match = /^(\d+)@(.*)#[a-z0-9]*$/.exec(owner);
  if (!match) return undefined;
  return { pid: Number(match[1]), host: match[2] ?? '' };
}

/**
 * True when the owner ran on this host and its process no longer exists.
 * Signal 0 tests for existence only; EPERM means it exists under another user.
 * (A reused pid reads as alive: that lease then waits for its expiry.)
 */
export function isOwnerGone(owner: string): boolean {
  const parsed = parseOwnerId(owner);
  if (!parsed || parsed.host !== hostname() || parsed.pid === process.pid) return false;
  try {
    process.kill(parsed.pid, 0);
    return false;
  } catch (error) {
    return codeOf(error) === 'ESRCH';
  }
}

/** The lease of `key` as it stands, read-only. */
export async function readLease(store: LockStore, key: string, nowMs = Date.now()): Promise<LeaseState> {
  const holder = await store.lockHolder(key);
  if (!holder) return { state: 'free' };
  const owner = parseOwnerId(holder.owner);
  const since = holder.acquiredAt;
  if (isOwnerGone(holder.owner)) return { state: 'stale', owner, since, reason: `process ${owner?.pid ?? '?'} is gone` };
  if (holder.expiresMs <= nowMs) return { state: 'stale', owner, since, reason: 'its lease expired' };
  return { state: 'held', owner, since };
}

export class RunLease {
  private readonly renewal: NodeJS.Timeout;

  private constructor(
    private readonly store: LockStore,
    readonly key: string,
    readonly owner: string,
    private readonly log: Logger,
    private readonly ttlMs: number,
  ) {
    this.renewal = setInterval(() => void this.renew(), ttlMs / 3);
    this.renewal.unref();
  }

  /**
   * Takes the lease of `key` or throws FERRY_SYNC_LOCKED. `label` names the
   * run for messages: `sync "deals"`, `export "calls"`.
   */
  static async acquire(store: LockStore, key: string, label: string, log: Logger, ttlMs = LEASE_TTL_MS): Promise<RunLease> {
    const owner = newOwnerId();
    if (await store.acquireLock(key, owner, ttlMs)) return new RunLease(store, key, owner, log, ttlMs);
    const holder = await store.lockHolder(key);
    if (holder && isOwnerGone(holder.owner) && (await store.acquireLock(key, owner, ttlMs, { takeOverFrom: holder.owner }))) {
      log.warn({ previousOwner: holder.owner, since: holder.acquiredAt }, `took over the lock of ${label}: the process that held it is gone; its run is marked aborted`);
      return new RunLease(store, key, owner, log, ttlMs);
    }
    throw lockedError(label, holder);
  }

  /** Stops renewing and gives the lease back. */
  async release(): Promise<void> {
    clearInterval(this.renewal);
    await this.store.releaseLock(this.key, this.owner);
  }

  /** A failed renewal is logged, never thrown: the lease still has two thirds of its time left. */
  private async renew(): Promise<void> {
    try {
      if (!(await this.store.renewLock(this.key, this.owner, this.ttlMs))) {
        this.log.warn({ key: this.key }, 'lost the run lock: another process took it over; this run goes on but may race with it');
      }
    } catch (error) {
      this.log.warn({ err: error, key: this.key }, 'could not renew the run lock');
    }
  }
}

function lockedError(label: string, holder: LockHolder | undefined): FerryError {
  const owner = holder ? parseOwnerId(holder.owner) : undefined;
  const who = owner ? ` (process ${owner.pid} on ${owner.host}, since ${holder?.acquiredAt})` : '';
  return new FerryError('FERRY_SYNC_LOCKED', `another run of ${label} is in progress${who}`, {
    hint: 'wait for it to finish; the lock of a run whose process died is taken over at once on the same host, otherwise after 60 seconds',
  });
}
