/**
 * Leases that keep one run of a sync at a time, across processes sharing the
 * state file. A holder renews its lease while it runs; a lease that was not
 * renewed in time belongs to a dead process and may be taken over.
 */
import type { LockHolder } from '../types.js';
import type { Db } from './database.js';

export type AcquireResult = 'acquired' | 'taken-over' | 'held-by-other';

export class LockTable {
  constructor(private readonly db: Db) {}

  /**
   * Atomic check-and-set in a `BEGIN IMMEDIATE` transaction: the write lock is
   * taken before the read, so two processes cannot both see the lease free.
   */
  acquire(
    sync: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
    onTakeOver: () => void,
    takeOverFrom?: string,
  ): AcquireResult {
    return this.db
      .transaction((): AcquireResult => {
        const row = this.db.prepare('SELECT owner, expires_ms FROM locks WHERE sync = ?').get(sync) as
          | { owner: string; expires_ms: number }
          | undefined;
        const live = row !== undefined && row.owner !== owner && row.expires_ms > nowMs;
        if (live && row.owner !== takeOverFrom) return 'held-by-other';
        this.db
          .prepare(
            `INSERT INTO locks (sync, owner, acquired_at, expires_ms) VALUES (?, ?, ?, ?)
             ON CONFLICT (sync) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at, expires_ms = excluded.expires_ms`,
          )
          .run(sync, owner, new Date(nowMs).toISOString(), nowMs + ttlMs);
        if (row === undefined || row.owner === owner) return 'acquired';
        // Same transaction: nobody can start a new run between the takeover and the clean-up.
        onTakeOver();
        return 'taken-over';
      })
      .immediate();
  }

  /** Extends the lease if `owner` still holds it (even if it lapsed, as long as nobody took it). */
  renew(sync: string, owner: string, ttlMs: number, nowMs: number): boolean {
    return this.db.prepare('UPDATE locks SET expires_ms = ? WHERE sync = ? AND owner = ?').run(nowMs + ttlMs, sync, owner).changes === 1;
  }

  holder(sync: string): LockHolder | undefined {
    const row = this.db.prepare('SELECT owner, acquired_at, expires_ms FROM locks WHERE sync = ?').get(sync) as
      | { owner: string; acquired_at: string; expires_ms: number }
      | undefined;
    return row === undefined ? undefined : { owner: row.owner, acquiredAt: row.acquired_at, expiresMs: row.expires_ms };
  }

  release(sync: string, owner: string): void {
    this.db.prepare('DELETE FROM locks WHERE sync = ? AND owner = ?').run(sync, owner);
  }
}
