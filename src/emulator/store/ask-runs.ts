/**
 * Ask-assistant runs. A run's answer is computed when it is created; it
 * stays `running` until `readyMs` and then reads as its final status, so the
 * state machine needs no timers and survives restarts.
 */
import { prepared, type Db } from './database.js';
import type { AskRunEntity, AskStatus } from './types.js';

interface AskRunRow {
  run_id: string;
  thread_id: string;
  org_id: string;
  message: string;
  status: string;
  final_status: string;
  output: string | null;
  error: string | null;
  created_ms: number;
  ready_ms: number;
}

/** Runs are readable for 30 days. */
export const ASK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export class AskRunsRepo {
  constructor(private readonly db: Db) {}

  create(run: Omit<AskRunEntity, 'status'>): AskRunEntity {
    prepared(this.db, 
        `INSERT INTO ask_runs (run_id, thread_id, org_id, message, status, final_status, output, error, created_ms, ready_ms)
         VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
      )
      .run(run.runId, run.threadId, run.orgId, run.message, run.finalStatus, run.output, run.error, run.createdMs, run.readyMs);
    return { ...run, status: 'running' };
  }

  /** The run as of `now`, or undefined when absent, expired or of another organization. */
  find(orgId: string, threadId: string, runId: string, now = Date.now()): AskRunEntity | undefined {
    const row = prepared(this.db, 'SELECT * FROM ask_runs WHERE run_id = ? AND thread_id = ?').get(runId, threadId) as AskRunRow | undefined;
    if (!row || row.org_id !== orgId || now - row.created_ms > ASK_RETENTION_MS) return undefined;
    let status = row.status as AskStatus;
    if (status === 'running' && now >= row.ready_ms) {
      status = row.final_status as AskStatus;
      prepared(this.db, 'UPDATE ask_runs SET status = ? WHERE run_id = ?').run(status, runId);
    }
    return {
      runId: row.run_id,
      threadId: row.thread_id,
      orgId: row.org_id,
      message: row.message,
      status,
      finalStatus: row.final_status as AskRunEntity['finalStatus'],
      output: row.output,
      error: row.error,
      createdMs: row.created_ms,
      readyMs: row.ready_ms,
    };
  }

  purgeExpired(now = Date.now()): void {
    prepared(this.db, 'DELETE FROM ask_runs WHERE created_ms < ?').run(now - ASK_RETENTION_MS);
  }
}
