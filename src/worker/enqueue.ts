/**
 * `ferry run --queue`: puts runs of syncs (or exports) on the queue for the
 * workers, and with `--wait` follows each job until it is finished for good
 * (retries included) and reports its outcome.
 */
import type { LoadedConfig } from '../config/index.js';
import { FerryError } from '../sdk/errors.js';
import type { RunOutcome } from './execute.js';
import { runJobs, sendRunJob } from './fan-out.js';
import { JobTable } from './job-table.js';
import { createBoss, ensureQueues, projectRuns, queueName, sharedState, withQueueSetupLock } from './queue.js';
import type { RunKind, RunRequest } from './queue.js';

export interface QueuedRun {
  kind: RunKind;
  /** The sync or export, or the slice's state key (`orders#3/8`) for a partitioned sync. */
  name: string;
  queue: string;
  jobId: string;
  /** True when a run of this sync was already waiting: the request joined it. */
  joined: boolean;
  /** With `wait`: how the run ended (after any retries). */
  outcome?: RunOutcome;
}

export interface EnqueueOptions {
  /** Sync or export names; none means every sync. */
  names: readonly string[];
  fullRefresh?: boolean;
  wait?: boolean;
  /** How often `wait` looks at the jobs. Default 1000 ms. */
  pollMs?: number;
  signal?: AbortSignal;
}

export async function enqueueRuns(config: LoadedConfig, options: EnqueueOptions): Promise<QueuedRun[]> {
  const targets = resolveTargets(config, options.names);
  const boss = createBoss(config, 'client');
  await boss.start();
  try {
    await withQueueSetupLock(config, () => ensureQueues(boss, config));
    const jobs = new JobTable(boss, sharedState(config).queueSchema);
    const queued: QueuedRun[] = [];
    for (const target of targets) {
      const queue = queueName(target.kind, target.name);
      // A partitioned sync is one job per slice, each coalesced on its own key, so workers take slices in parallel.
      for (const job of runJobs(config, target, options.fullRefresh ? { fullRefresh: true } : {})) {
        queued.push({ kind: target.kind, name: job.key, queue, ...(await sendRunJob(boss, jobs, queue, job)) });
      }
    }
    if (options.wait) {
      for (const run of queued) run.outcome = await waitForJob(boss, run.queue, run.jobId, options);
    }
    return queued;
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

function resolveTargets(config: LoadedConfig, names: readonly string[]): { kind: RunKind; name: string }[] {
  const runs = projectRuns(config);
  if (names.length === 0) return runs.filter((r) => r.kind === 'sync').map(({ kind, name }) => ({ kind, name }));
  return names.map((name) => {
    const run = runs.find((r) => r.name === name && r.kind === 'sync') ?? runs.find((r) => r.name === name);
    if (run === undefined) {
      throw new FerryError('FERRY_USAGE', `no sync or export named "${name}" in ${config.file}`, {
        hint: `known: ${runs.map((r) => r.name).join(', ') || '(none)'}`,
      });
    }
    return { kind: run.kind, name: run.name };
  });
}

async function waitForJob(boss: ReturnType<typeof createBoss>, queue: string, jobId: string, options: EnqueueOptions): Promise<RunOutcome> {
  for (;;) {
    const job = await boss.getJobById<RunRequest>(queue, jobId, { includeArchive: true });
    if (job === null) return { status: 'failed', exitCode: 3, runId: null, error: `job ${jobId} vanished from the queue (deleted or purged)` };
    if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') return outcomeOf(job.state, job.output);
    if (options.signal?.aborted) throw new FerryError('FERRY_USAGE', `stopped waiting; job ${jobId} is still ${job.state}`, { hint: 'see ferry status' });
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}

function outcomeOf(state: 'completed' | 'failed' | 'cancelled', output: object | null | undefined): RunOutcome {
  const recorded = (output ?? {}) as Partial<RunOutcome>;
  if (typeof recorded.exitCode === 'number' && typeof recorded.status === 'string') return recorded as RunOutcome;
  // pg-boss's own outcomes: a lease that lapsed on the last attempt, or a cancelled job.
  const message = (output as { value?: { message?: string } } | null | undefined)?.value?.message;
  return { status: 'failed', exitCode: 3, runId: null, error: state === 'cancelled' ? 'the job was cancelled' : (message ?? 'the run failed') };
}
