/**
 * Takes jobs off ferry's queues while the worker has a free slot: one query
 * finds the queues with work that can start, then a claim takes a job (SKIP
 * LOCKED, so two workers never get the same one; see job-table.ts). Each claimed job's
 * lease is extended while it runs; its outcome completes the job, or fails
 * it so pg-boss retries it with backoff (on whichever worker is free).
 */
import type { Logger } from 'pino';
import type PgBoss from 'pg-boss';
import type { RunOutcome } from './execute.js';
import type { JobTable } from './job-table.js';
import type { RunRequest } from './queue.js';

export interface ClaimedJob {
  id: string;
  queue: string;
  request: RunRequest;
  startedAt: string;
}

export interface DispatcherOptions {
  boss: PgBoss;
  jobs: JobTable;
  workerId: string;
  /** Runs at once on this worker. */
  concurrency: number;
  pollMs: number;
  logger: Logger;
  run: (job: ClaimedJob) => Promise<RunOutcome>;
}

/** Outcomes worth another attempt: the run broke off (stopped, lost its lease, service down), not a data problem. */
function shouldRetry(outcome: RunOutcome): boolean {
  return outcome.status === 'failed' || outcome.status === 'aborted';
}

export class Dispatcher {
  readonly running = new Map<string, ClaimedJob>();
  private stopping = false;
  private wake: (() => void) | undefined;
  /** Set by {@link nudge} while the loop is busy: look again at once instead of sleeping. */
  private nudged = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.loop = this.pollLoop();
  }

  /** New work may be waiting (a job was queued): look now rather than at the next poll. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Stops claiming jobs and waits for the running ones to finish (the caller has told them to stop). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async pollLoop(): Promise<void> {
    const { logger, pollMs } = this.options;
    while (!this.stopping) {
      this.nudged = false;
      try {
        await this.claimWhileFree();
      } catch (error) {
        logger.warn({ err: error }, 'could not read the queue; retrying');
      }
      if (this.nudged || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  private async claimWhileFree(): Promise<void> {
    const { jobs, concurrency } = this.options;
    const free = concurrency - this.running.size;
    if (free <= 0) return;
    for (const queue of await jobs.readyQueues(free * 4)) {
      // A partitioned sync's queue holds one job per slice: take as many as there are free slots.
      while (!this.stopping && this.running.size < concurrency) {
        const job = await jobs.claim<RunRequest>(queue);
        if (job === undefined) break; // another worker took it, or its sync is running elsewhere
        this.begin({ id: job.id, queue, request: job.data, startedAt: new Date().toISOString() });
      }
      if (this.stopping || this.running.size >= concurrency) return;
    }
  }

  private begin(job: ClaimedJob): void {
    this.running.set(job.id, job);
    const done = this.finish(job).finally(() => {
      this.running.delete(job.id);
      this.inFlight.delete(done);
      this.nudge(); // a slot is free: look for more work now
    });
    this.inFlight.add(done);
  }

  private async finish(job: ClaimedJob): Promise<void> {
    const { boss, logger, workerId } = this.options;
    const log = logger.child({ job: job.id, [job.request.kind]: job.request.name });
    log.info('run started');
    let outcome: RunOutcome;
    try {
      outcome = await this.options.run(job);
    } catch (error) {
      outcome = { status: 'failed', exitCode: 3, runId: null, error: error instanceof Error ? error.message : String(error) };
    }
    const output = { ...outcome, worker: workerId };
    try {
      if (shouldRetry(outcome)) await boss.fail(job.queue, job.id, output);
      else await boss.complete(job.queue, job.id, output);
      log.info({ status: outcome.status, exitCode: outcome.exitCode, retried: shouldRetry(outcome) }, 'run finished');
    } catch (error) {
      // The job stays active; its lease lapses and pg-boss retries it elsewhere.
      log.error({ err: error }, 'could not record the run outcome in the queue');
    }
  }
}
