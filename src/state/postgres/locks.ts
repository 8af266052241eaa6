/**
 * Leases that keep one run of a sync at a time across every process and
 * worker sharing the database, with the rules of src/state/sqlite/locks.ts.
 * The check-and-set runs in one transaction holding the row lock
 * (`SELECT … FOR UPDATE`), so two workers cannot both see the lease free.
 */
import type { LockHolder } from '../types.js';
import type { Queryable } from './database.js';

export type AcquireResult = 'acquired' | 'taken-over' | 'held-by-other';

export class PgLocks {
  constructor(private readonly s: string) {}

  /**
   * Call inside a transaction; `onTakeOver` runs in the same one. The lease is
   * free when absent, expired, already `owner`'s, or held by `takeOverFrom`
   * (a holder the caller has proven dead).
   */
  async acquire(
    db: Queryable,
    req: { sync: string; owner: string; ttlMs: number; nowMs: number; takeOverFrom?: string | undefined },
    onTakeOver: () => Promise<void>,
  ): Promise<AcquireResult> {
    const { sync, owner, ttlMs, nowMs } = req;
    const { rows } = await db.query<{ owner: string; expires_ms: string }>(`SELECT owner, expires_ms FROM ${this.s}.locks WHERE sync = $1 FOR UPDATE`, [sync]);
    const row = rows[0];
    const free = row === undefined || row.owner === owner || Number(row.expires_ms) <= nowMs || row.owner === req.takeOverFrom;
    if (!free) return 'held-by-other';
    const acquiredAt = new Date(nowMs).toISOString();
    if (row === undefined) {
      // Two first-time acquirers race on the insert: the loser sees no row inserted and the winner holds a fresh lease.
      const inserted = await db.query(
        `INSERT INTO ${this.s}.locks (sync, owner, acquired_at, expires_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (sync) DO NOTHING`,
        [sync, owner, acquiredAt, nowMs + ttlMs],
      );
      return inserted.rowCount === 1 ? 'acquired' : 'held-by-other';
    }
    await db.query(`UPDATE ${this.s}.locks SET owner = $2, acquired_at = $3, expires_ms = $4 WHERE sync = $1`, [sync, owner, acquiredAt, nowMs + ttlMs]);
    if (row.owner === owner) return 'acquired';
    await onTakeOver();
    return 'taken-over';
  }

  /** Extends the lease if `owner` still holds it (even if it lapsed, as long as nobody took it). */
  async renew(db: Queryable, sync: string, owner: string, ttlMs: number, nowMs: number): Promise<boolean> {
    const result = await db.query(`UPDATE ${this.s}.locks SET expires_ms = $1 WHERE sync = $2 AND owner = $3`, [nowMs + ttlMs, sync, owner]);
    return result.rowCount === 1;
  }

  async holder(db: Queryable, sync: string): Promise<LockHolder | undefined> {
    const { rows } = await db.query<{ owner: string; acquired_at: string; expires_ms: string }>(
      `SELECT owner, acquired_at, expires_ms FROM ${this.s}.locks WHERE sync = $1`,
      [sync],
    );
    const row = rows[0];
    return row === undefined ? undefined : { owner: row.owner, acquiredAt: row.acquired_at, expiresMs: Number(row.expires_ms) };
  }

  async release(db: Queryable, sync: string, owner: string): Promise<void> {
    await db.query(`DELETE FROM ${this.s}.locks WHERE sync = $1 AND owner = $2`, [sync, owner]);
  }
}
