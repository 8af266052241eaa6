/**
 * The few things ferry reads or writes in pg-boss's job table directly,
 * because pg-boss 10 has no API for them: which queues have work waiting
 * (one query instead of polling every queue), a running job's worker, and
 * extending a running job's lease while its worker is alive (pg-boss 10
 * has no heartbeat; a job that outlives `expire_in` is failed and retried).
 */
import type PgBoss from 'pg-boss';
import { QUEUE_NAME_PATTERN } from './queue.js';

export interface JobRow {
  id: string;
  queue: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  retryCount: number;
  startAfter: Date;
  startedOn: Date | null;
  completedOn: Date | null;
  createdOn: Date;
  output: Record<string, unknown> | null;
  /** What the job was queued under: the sync's name, or a slice's state key. */
  singletonKey: string | null;
}

export class JobTable {
  private readonly s: string;

  constructor(
    private readonly boss: PgBoss,
    queueSchema: string,
  ) {
    this.s = `"${queueSchema}"`;
  }

  /** Queues with a job ready to start, oldest waiting first. */
  async readyQueues(limit: number): Promise<string[]> {
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT name FROM ${this.s}.job WHERE name LIKE $1 AND state < 'active' AND start_after < now()
       GROUP BY name ORDER BY min(created_on) LIMIT $2`,
      [QUEUE_NAME_PATTERN, limit],
    );
    return (rows as { name: string }[]).map((r) => r.name);
  }

  /** Pushes a running job's expiry to `leaseMs` from now and records which worker runs it. */
  async extendLease(queue: string, id: string, leaseMs: number, worker: string): Promise<boolean> {
    const { rows } = await this.boss.getDb().executeSql(
      `UPDATE ${this.s}.job SET expire_in = (now() - started_on) + $3 * interval '1 millisecond',
         output = jsonb_build_object('worker', $4::text)
       WHERE name = $1 AND id = $2 AND state = 'active' RETURNING id`,
      [queue, id, leaseMs, worker],
    );
    return rows.length === 1;
  }

  /** The waiting job of a queue with this singleton key (what a coalesced enqueue joined). */
  async waitingJob(queue: string, singletonKey: string): Promise<string | undefined> {
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT id FROM ${this.s}.job WHERE name = $1 AND singleton_key = $2 AND state < 'active' ORDER BY created_on LIMIT 1`,
      [queue, singletonKey],
    );
    return (rows as { id: string }[])[0]?.id;
  }

  /** Jobs of ferry's queues: everything not finished, plus the latest finished ones. */
  async list(finishedLimit: number): Promise<JobRow[]> {
    const columns = `id, name AS queue, state, retry_count AS "retryCount", start_after AS "startAfter", started_on AS "startedOn",
      completed_on AS "completedOn", created_on AS "createdOn", output, singleton_key AS "singletonKey"`;
    const { rows } = await this.boss.getDb().executeSql(
      `(SELECT ${columns} FROM ${this.s}.job WHERE name LIKE $1 AND state <= 'active')
       UNION ALL
       (SELECT * FROM (SELECT ${columns} FROM ${this.s}.job WHERE name LIKE $1 AND state > 'active'
         UNION ALL SELECT ${columns} FROM ${this.s}.archive WHERE name LIKE $1) done ORDER BY "completedOn" DESC NULLS LAST LIMIT $2)`,
      [QUEUE_NAME_PATTERN, finishedLimit],
    );
    return rows as JobRow[];
  }
}
