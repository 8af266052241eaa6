/**
 * The dead-letter on PostgreSQL: same rules as SQLite (src/state/sqlite/failures.ts):
 * one open entry per record (by remote id, or origin and source record, or
 * the entry a retry replaces), a newer failure replaces it and carries its
 * attempt count over.
 */
import { failureEntryOf, type FailureRow } from '../rows.js';
import type { FailureEntry, FailureFilter, FailureWrite } from '../types.js';
import { toJson } from '../sqlite/json.js';
import type { Queryable } from './database.js';

export class PgFailures {
  constructor(private readonly s: string) {}

  /**
   * Open entries of the same record go, the highest attempt count + 1 is
   * carried over. The same record: the same remote id; or the same origin
   * and source record (for a record whose id did not map); or the entry
   * `replaces` names (a retry). A null remote id or origin matches nothing.
   */
  async write(db: Queryable, f: FailureWrite, at: string): Promise<void> {
    const sourceRecord = toJson(f.sourceRecord);
    const { rows } = await db.query<{ attempts: number }>(
      `DELETE FROM ${this.s}.failures
       WHERE sync = $1 AND (remote_id = $2 OR (origin = $3 AND source_record IS NOT DISTINCT FROM $4) OR id = $5)
       RETURNING attempts`,
      [f.sync, f.remoteId, f.origin, sourceRecord, f.replaces ?? null],
    );
    const attempts = 1 + Math.max(0, ...rows.map((row) => row.attempts));
    await db.query(
      `INSERT INTO ${this.s}.failures (sync, run_id, remote_id, origin, kind, reason, status, error_body, body, source_record, attempts, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [f.sync, f.runId, f.remoteId, f.origin, f.kind, f.reason, f.status, toJson(f.errorBody), toJson(f.body), sourceRecord, attempts, at],
    );
  }

  async list(db: Queryable, filter: FailureFilter): Promise<FailureEntry[]> {
    const { rows } = await db.query<FailureRow>(
      `SELECT * FROM ${this.s}.failures WHERE ($1::text IS NULL OR sync = $1) AND ($3::bigint IS NULL OR id < $3) ORDER BY id DESC LIMIT $2`,
      [filter.sync ?? null, filter.limit === undefined ? null : Math.max(0, Math.trunc(filter.limit)), filter.beforeId ?? null],
    );
    return rows.map(failureEntryOf);
  }

  async count(db: Queryable, sync?: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.failures WHERE ($1::text IS NULL OR sync = $1)`, [
      sync ?? null,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  async remove(db: Queryable, id: number): Promise<void> {
    await db.query(`DELETE FROM ${this.s}.failures WHERE id = $1`, [id]);
  }

  async purge(db: Queryable, sync?: string): Promise<number> {
    const result = await db.query(`DELETE FROM ${this.s}.failures WHERE ($1::text IS NULL OR sync = $1)`, [sync ?? null]);
    return result.rowCount ?? 0;
  }

  /** Whether a run exists, so a failure naming an unknown run is refused when recorded rather than at commit. */
  async runExists(db: Queryable, runId: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM ${this.s}.runs WHERE run_id = $1`, [runId]);
    return (rowCount ?? 0) > 0;
  }
}

