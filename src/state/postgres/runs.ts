/**
 * The runs table on PostgreSQL, same rules as SQLite (src/state/sqlite/runs.ts):
 * rows are read back through the SQLite module's row mapping, so both
 * backends report runs identically.
 */
import { randomUUID } from 'node:crypto';
import { FerryError } from '../../sdk/errors.js';
import { emptyCounts } from '../types.js';
import type { RunCounts, RunEntry, RunStatus } from '../types.js';
import { toEntry } from '../sqlite/runs.js';
import type { RunRow } from '../sqlite/runs.js';
import type { Queryable } from './database.js';

/** Older runs of a sync are pruned so a sync scheduled every minute doesn't grow the table forever. */
const RUNS_KEPT_PER_SYNC = 1000;

/** bigint columns come back as numbers (they hold milliseconds, far below 2^53). */
const COLUMNS = `run_id, sync, started_at, started_ms::float8 AS started_ms, finished_at, status, counts, duration_ms::float8 AS duration_ms, error, cursor`;

export class PgRuns {
  constructor(private readonly s: string) {}

  async start(db: Queryable, sync: string, nowMs: number): Promise<string> {
    const runId = randomUUID();
    await db.query(
      `INSERT INTO ${this.s}.runs (run_id, sync, started_at, started_ms, status, counts) VALUES ($1, $2, $3, $4, 'running', $5)`,
      [runId, sync, new Date(nowMs).toISOString(), nowMs, JSON.stringify(emptyCounts())],
    );
    await db.query(
      `DELETE FROM ${this.s}.runs WHERE sync = $1 AND seq <= (SELECT seq FROM ${this.s}.runs WHERE sync = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`,
      [sync, RUNS_KEPT_PER_SYNC],
    );
    return runId;
  }

  async update(db: Queryable, runId: string, counts: RunCounts): Promise<void> {
    const result = await db.query(`UPDATE ${this.s}.runs SET counts = $1 WHERE run_id = $2`, [JSON.stringify(counts), runId]);
    if (result.rowCount === 0) throw unknownRun(runId);
  }

  /** Also snapshots the sync's committed cursor, so the run's row shows where it left off. */
  async finish(db: Queryable, runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }, nowMs: number): Promise<void> {
    const result = await db.query(
      `UPDATE ${this.s}.runs SET status = $2, counts = $3, error = $4, finished_at = $5,
         duration_ms = greatest(0, $6 - started_ms),
         cursor = (SELECT position FROM ${this.s}.cursors c WHERE c.sync = runs.sync)
       WHERE run_id = $1`,
      [runId, r.status, JSON.stringify(r.counts), r.error ?? null, new Date(nowMs).toISOString(), nowMs],
    );
    if (result.rowCount === 0) throw unknownRun(runId);
  }

  /** Marks the runs a dead process left `running` (called when its expired lock is taken over). */
  async abandon(db: Queryable, sync: string, nowMs: number): Promise<void> {
    await db.query(
      `UPDATE ${this.s}.runs SET status = 'aborted', finished_at = $1, duration_ms = greatest(0, $2 - started_ms),
         error = coalesce(error, 'the process running it stopped without finishing (its lock expired)')
       WHERE sync = $3 AND status = 'running'`,
      [new Date(nowMs).toISOString(), nowMs, sync],
    );
  }

  async list(db: Queryable, filter: { sync?: string; limit?: number }): Promise<RunEntry[]> {
    const { rows } = await db.query<RunRow>(
      `SELECT ${COLUMNS} FROM ${this.s}.runs WHERE ($1::text IS NULL OR sync = $1) ORDER BY seq DESC LIMIT $2`,
      [filter.sync ?? null, filter.limit === undefined ? null : Math.max(0, Math.trunc(filter.limit))],
    );
    return rows.map(toEntry);
  }
}

function unknownRun(runId: string): FerryError {
  return new FerryError('FERRY_STATE_ERROR', `no run ${runId} in the state store`, {
    hint: 'runs are created with startRun(); the state may have been reset or pruned meanwhile',
  });
}
