/** The runs table: one row per run of a sync, for `ferry status`. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { FerryError } from '../../sdk/errors.js';
import { emptyCounts } from '../types.js';
import type { RunCounts, RunEntry, RunStatus } from '../types.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import { decodeCursor } from './cursor-codec.js';

/** Older runs of a sync are pruned so a sync scheduled every minute doesn't grow the file forever. */
const RUNS_KEPT_PER_SYNC = 1000;

const countsSchema = z.object({
  read: z.number().default(0),
  pushed: z.number().default(0),
  created: z.number().default(0),
  updated: z.number().default(0),
  unchanged: z.number().default(0),
  failed: z.number().default(0),
  deleted: z.number().default(0),
  skipped: z.number().default(0),
  duplicates: z.number().optional(),
  repaired: z.number().optional(),
});

export interface RunRow {
  run_id: string;
  sync: string;
  started_at: string;
  started_ms: number;
  finished_at: string | null;
  status: RunStatus;
  counts: string;
  duration_ms: number | null;
  error: string | null;
  cursor: string | null;
}

export class RunTable {
  /** Prepared once: a run updates its counts at every checkpoint (every 500 records). */
  private readonly updateStmt: Statement<[string, string]>;

  constructor(private readonly db: Db) {
    this.updateStmt = db.prepare<[string, string]>('UPDATE runs SET counts = ? WHERE run_id = ?');
  }

  start(sync: string, nowMs: number): string {
    const runId = randomUUID();
    this.db
      .prepare(
        "INSERT INTO runs (run_id, sync, started_at, started_ms, status, counts) VALUES (?, ?, ?, ?, 'running', ?)",
      )
      .run(runId, sync, new Date(nowMs).toISOString(), nowMs, JSON.stringify(emptyCounts()));
    this.db
      .prepare('DELETE FROM runs WHERE sync = ? AND seq <= (SELECT seq FROM runs WHERE sync = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)')
      .run(sync, sync, RUNS_KEPT_PER_SYNC);
    return runId;
  }

  exists(runId: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE run_id = ?').get(runId) !== undefined;
  }

  update(runId: string, counts: RunCounts): void {
    const result = this.updateStmt.run(JSON.stringify(counts), runId);
    if (result.changes === 0) throw unknownRun(runId);
  }

  /** Also snapshots the sync's committed cursor, so the run's row shows where it left off. */
  finish(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }, nowMs: number): void {
    const result = this.db
      .prepare(
        `UPDATE runs SET status = @status, counts = @counts, error = @error, finished_at = @finishedAt,
           duration_ms = max(0, @nowMs - started_ms),
           cursor = (SELECT position FROM cursors WHERE cursors.sync = runs.sync)
         WHERE run_id = @runId`,
      )
      .run({
        runId,
        status: r.status,
        counts: JSON.stringify(r.counts),
        error: r.error ?? null,
        finishedAt: new Date(nowMs).toISOString(),
        nowMs,
      });
    if (result.changes === 0) throw unknownRun(runId);
  }

  /** Marks the runs a dead process left `running` (called when its lock is taken over: expired, or its process gone). */
  abandon(sync: string, nowMs: number): void {
    this.db
      .prepare(
        `UPDATE runs SET status = 'aborted', finished_at = ?, duration_ms = max(0, ? - started_ms),
           error = coalesce(error, 'the process running it stopped without finishing; its lock was taken over')
         WHERE sync = ? AND status = 'running'`,
      )
      .run(new Date(nowMs).toISOString(), nowMs, sync);
  }

  list(filter: { sync?: string; limit?: number }): RunEntry[] {
    const where = filter.sync === undefined ? '' : 'WHERE sync = @sync';
    const limit = filter.limit === undefined ? '' : 'LIMIT @limit';
    const params: Record<string, string | number> = {};
    if (filter.sync !== undefined) params.sync = filter.sync;
    if (filter.limit !== undefined) params.limit = Math.max(0, Math.trunc(filter.limit));
    const rows = this.db.prepare(`SELECT * FROM runs ${where} ORDER BY seq DESC ${limit}`).all(params) as RunRow[];
    return rows.map(toEntry);
  }
}

function unknownRun(runId: string): FerryError {
  return new FerryError('FERRY_STATE_ERROR', `no run ${runId} in the state store`, {
    hint: 'runs are created with startRun(); the state may have been reset or pruned meanwhile',
  });
}

export function toEntry(row: RunRow): RunEntry {
  const counts = countsSchema.safeParse(JSON.parse(row.counts));
  return {
    runId: row.run_id,
    sync: row.sync,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    status: row.status,
    counts: counts.success ? counts.data : emptyCounts(),
    durationMs: row.duration_ms,
    error: row.error,
    cursor: row.cursor === null ? null : decodeCursor(row.cursor, row.sync),
  };
}
