/**
 * The few things ferry reads or writes in pg-boss's job table directly,
 * because pg-boss 10 has no API for them: which queues have work waiting
 * (one query instead of polling every queue), claiming a job whose run can
 * start, a running job's worker, and extending a running job's lease while
 * its worker is alive (pg-boss 10 has no heartbeat; a job that outlives
 * `expire_in` is failed and retried).
 *
 * A job can wait behind a running one of the same key (a sync, or a slice,
 * queued again while it runs: the `stately` policy keeps one waiting and one
 * running per key). Such a job cannot start until the running one ends, and
 * pg-boss's `fetch` does not know that: it picks the oldest waiting job of the
 * queue, fails to start it (the unique index refuses a second active job of
 * the key) and returns nothing, so every other key queued behind it in the
 * same queue (the other slices of a partitioned sync) waits too. Claiming and
 * listing here skip a job whose key is running.
 */
import type PgBoss from 'pg-boss';
import { codeOf } from '../sdk/guards.js';
import { QUEUE_NAME_PATTERN } from './queue.js';
import { wakeChannel } from './wake.js';

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
    private readonly queueSchema: string,
  ) {
    this.s = `"${queueSchema}"`;
  }

  /** Tells idle workers that a job was queued (wake.ts), so they need not wait for their next poll. */
  async notifyQueued(): Promise<void> {
    await this.boss.getDb().executeSql('SELECT pg_notify($1, $2)', [wakeChannel(this.queueSchema), '']);
  }

  /** Queues with a job ready to start (not behind a running job of its key), oldest waiting first. */
  async readyQueues(limit: number): Promise<string[]> {
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT name FROM ${this.s}.job j WHERE name LIKE $1 AND state < 'active' AND start_after < now() AND ${this.notBehindRunning('j')}
       GROUP BY name ORDER BY min(created_on) LIMIT $2`,
      [QUEUE_NAME_PATTERN, limit],
    );
    return (rows as { name: string }[]).map((r) => r.name);
  }

  /**
   * Starts the oldest job of `queue` that can start, as pg-boss's `fetch`
   * does (SKIP LOCKED, so two workers never get the same job), skipping jobs
   * whose key is running. Undefined when there is none, or another worker
   * started a job of the same key at the same moment.
   */
  async claim<Data extends object>(queue: string): Promise<{ id: string; data: Data } | undefined> {
    try {
      const { rows } = await this.boss.getDb().executeSql(
        `WITH next AS (
           SELECT id FROM ${this.s}.job j
           WHERE name = $1 AND state < 'active' AND start_after < now() AND ${this.notBehindRunning('j')}
           ORDER BY priority DESC, created_on, id
           LIMIT 1
           FOR UPDATE SKIP LOCKED
         )
         UPDATE ${this.s}.job j SET state = 'active', started_on = now(),
           retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
         FROM next WHERE j.name = $1 AND j.id = next.id
         RETURNING j.id, j.data`,
        [queue],
      );
      return (rows as { id: string; data: Data }[])[0];
    } catch (error) {
      // A job of the same key started meanwhile (its waiting and its retrying job raced): the unique index refused this one.
      if (codeOf(error) === '23505') return undefined;
      throw error;
    }
  }

  private notBehindRunning(alias: string): string {
    return `NOT EXISTS (SELECT 1 FROM ${this.s}.job a WHERE a.name = ${alias}.name AND a.state = 'active'
      AND COALESCE(a.singleton_key, '') = COALESCE(${alias}.singleton_key, ''))`;
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
